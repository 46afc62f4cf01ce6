/* 2_devsums.cu - cuda-devsums.  Grows from cuda-copyonce.  The idea: the host
 * needs each centre's sums, not every label, so the device makes them. */
#include "2_copyonce.cuh"

#include <cstring>

enum { BLOCK_THREADS = 256, BLOCKS_PER_SM = 4 };

static __global__ void km_pass(const uint8_t *rgb, unsigned long long n, uint8_t *labels, int k, int first_pass,
                               unsigned *partial, int *changed)
{
    unsigned *mine = partial + (size_t)blockIdx.x * k * 4;   /* < 2^24 pixels a block: no overflow */
    for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        unsigned label = km_nearest(seed_centres, k, r, g, b);
        if (first_pass || labels[i] != label)
            *changed = 1;             /* the source's flag: any change at all */
        labels[i] = (uint8_t)label;
        atomicAdd(&mine[4 * label], r);
        atomicAdd(&mine[4 * label + 1], g);
        atomicAdd(&mine[4 * label + 2], b);
        atomicAdd(&mine[4 * label + 3], 1u);
    }
}

/* One block: column sums of the partials into `sums`, zeroing them. */
static __global__ void km_reduce(unsigned blocks, int k, unsigned *partial, unsigned long long *sums)
{
    for (int j = threadIdx.x; j < 4 * k; j += blockDim.x) {
        unsigned long long total = 0;
        for (unsigned b = 0; b < blocks; b++) {
            total += partial[(size_t)b * 4 * k + j];
            partial[(size_t)b * 4 * k + j] = 0;
        }
        sums[j] = total;
    }
}

/* cuda-copyonce's state, and the sums' buffers. */
struct devsums_state : seed_state {
    unsigned blocks;
    unsigned *partial;               /* device: blocks x k x 4 */
    unsigned long long *sums;        /* device: k x 4 */
    unsigned long long *host_sums;   /* pinned */
};

/* A pass: the labels and each block's slice of the sums, reduced on the
 * device; 4k sums and the flag come back, not the labels. */
static sb_status devsums_pass(void *ctx, const sb_kmeans_prepped *centres, int first_pass, sb_kmeans_sums *sums,
                              long *changed, sb_error *err)
{
    devsums_state *s = (devsums_state *)ctx;
    sb_status st = seed_pass_start(s, centres, err);
    if (st)
        return st;
    km_pass<<<s->blocks, BLOCK_THREADS, 0, s->stream>>>(s->rgb, (unsigned long long)s->n, s->labels, s->params.k,
                                                        first_pass, s->partial, s->changed);
    SB_CUDA_LAUNCHED(err, s->who);
    km_reduce<<<1, 1024, 0, s->stream>>>(s->blocks, s->params.k, s->partial, s->sums);
    SB_CUDA_LAUNCHED(err, s->who);
    SB_CUDA_TRY(cudaMemcpyAsync(s->host_sums, s->sums, (size_t)s->params.k * sizeof(sums[0]), cudaMemcpyDeviceToHost,
                                s->stream), err, s->who);
    SB_CUDA_TRY(cudaMemcpyAsync(s->host_changed, s->changed, sizeof(int), cudaMemcpyDeviceToHost, s->stream),
                err, s->who);
    SB_CUDA_TRY(cudaStreamSynchronize(s->stream), err, s->who);
    memcpy(sums, s->host_sums, (size_t)s->params.k * sizeof(sums[0]));
    *changed = *s->host_changed;
    return SB_OK;
}

static void devsums_release(void *state)
{
    devsums_state *s = (devsums_state *)state;
    if (!s)
        return;
    cudaFree(s->partial);
    cudaFree(s->sums);
    cudaFreeHost(s->host_sums);
    seed_release(s);
}

static sb_status devsums_open(devsums_state *s, const sb_exec *exec, sb_error *err)
{
    sb_status st = seed_open(s, exec, err);
    if (st)
        return st;
    int dev, sm_count;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, s->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev), err, s->who);
    s->blocks = km_blocks_for(sm_count, s->n, (unsigned long long)s->n, BLOCK_THREADS, BLOCKS_PER_SM);
    size_t partial_bytes = (size_t)s->blocks * s->params.k * 4 * sizeof(unsigned);
    SB_CUDA_TRY(cudaMalloc(&s->partial, partial_bytes), err, s->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->partial, 0, partial_bytes, s->stream), err, s->who);
    SB_CUDA_TRY(cudaMalloc(&s->sums, (size_t)s->params.k * 4 * sizeof(unsigned long long)), err, s->who);
    SB_CUDA_TRY(cudaMallocHost(&s->host_sums, (size_t)s->params.k * 4 * sizeof(unsigned long long)), err, s->who);
    return SB_OK;
}

static sb_status devsums_prepare(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    return seed_prepare_as<devsums_state>(state, in, params, output, exec, devsums_open, devsums_release, err);
}

static sb_status devsums_run(void *state, sb_error *err)
{
    return seed_run_with(state, devsums_pass, err);
}

/* The labels, once a run; the centres and the pass count were made on
 * the host. */
static sb_status devsums_fetch(void *state, sb_error *err)
{
    seed_state *s = (seed_state *)state;
    SB_CUDA_TRY(cudaMemcpyAsync(s->out->labels, s->labels, (size_t)s->n, cudaMemcpyDeviceToHost, s->stream), err,
                s->who);
    SB_CUDA_TRY(cudaStreamSynchronize(s->stream), err, s->who);
    return SB_OK;
}

SB_CUDA_RUNG("kmeans", "cuda-devsums", "cuda-copyonce", "cuda-global", SB_ONE_AT_A_TIME | SB_HOST_BOUND,
             "the sums made on the device (a slice per block, one reduce block): 4k sums come back a pass, not the labels",
             devsums_prepare, copyonce_upload, devsums_run, devsums_fetch, devsums_release)
