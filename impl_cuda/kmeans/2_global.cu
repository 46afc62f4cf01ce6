/* 2_global.cu - cuda-global.  Grows from cuda-devsums.  The idea: the whole
 * loop on the device, global memory only. */
#include "kmeans_device.cuh"

enum { BLOCK_THREADS = 256, BLOCKS_PER_SM = 4 };

struct rung_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    unsigned blocks;
    unsigned *partial;      /* blocks x k x 4 */
};

static __global__ void km_pass(const uint8_t *rgb, unsigned long long n, uint8_t *labels, int k,
                               int first_pass, const float4 *prepped, unsigned *partial, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    unsigned *mine = partial + (size_t)blockIdx.x * k * 4;   /* < 2^24 pixels a block: no overflow */
    for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        unsigned label = km_nearest(prepped, k, r, g, b);
        if (first_pass || labels[i] != label)
            atomicAdd(&control->changed, 1u);
        labels[i] = (uint8_t)label;
        atomicAdd(&mine[4 * label], r);
        atomicAdd(&mine[4 * label + 1], g);
        atomicAdd(&mine[4 * label + 2], b);
        atomicAdd(&mine[4 * label + 3], 1u);
    }
}

/* One block: column sums of the partials into `sums`, zeroing them, then
 * the end of the pass. */
static __global__ void km_reduce(unsigned blocks, int k, int converge, unsigned *partial, unsigned long long *sums,
                                 int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    for (int j = threadIdx.x; j < 4 * k; j += blockDim.x) {
        unsigned long long total = 0;
        for (unsigned b = 0; b < blocks; b++) {
            total += partial[(size_t)b * 4 * k + j];
            partial[(size_t)b * 4 * k + j] = 0;
        }
        sums[j] = total;
    }
    __threadfence();     /* km_finish_pass reads the sums from L2 */
    __syncthreads();
    km_finish_pass(k, converge, sums, centres, prepped, control);
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = km_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    km_device *d = &s->dev;
    s->blocks = km_grid_blocks(d, (unsigned long long)d->n, BLOCK_THREADS, BLOCKS_PER_SM);
    size_t bytes = (size_t)s->blocks * d->params.k * 4 * sizeof(unsigned);
    SB_CUDA_TRY(cudaMalloc(&s->partial, bytes), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->partial, 0, bytes, d->stream), err, d->who);
    return SB_OK;
}

static sb_status rung_pass(rung_state *s, int first_pass, sb_error *err)
{
    km_device *d = &s->dev;
    km_pass<<<s->blocks, BLOCK_THREADS, 0, d->stream>>>(
        (const uint8_t *)d->rgb, (unsigned long long)d->n, (uint8_t *)d->labels, d->params.k, first_pass,
        d->prepped, s->partial, d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    km_reduce<<<1, 1024, 0, d->stream>>>(s->blocks, d->params.k, !d->params.fixed, s->partial, d->sums,
                                         d->centres, d->prepped, d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    return km_run_passes(&s->dev, [s](int first_pass, sb_error *e) { return rung_pass(s, first_pass, e); }, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        cudaFree(s->partial);
    km_device_close(s);
}

SB_CUDA_RUNG("kmeans", "cuda-global", "cuda-devsums", "cuda-global", 0,
             "the loop on the device: the reduce kernel applies the update, the host reads a flag once a batch of passes",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, rung_release)
