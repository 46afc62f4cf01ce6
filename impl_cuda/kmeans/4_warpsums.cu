/* 4_warpsums.cu - cuda-warpsums.  Grows from cuda-blocksums.  The idea: the
 * lanes that hold one label add first, and one lane adds their total. */
#include "km_quads.cuh"

enum { BLOCK_THREADS = 256, BLOCKS_PER_SM = 4 };

struct rung_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    unsigned blocks;
};

static __global__ void km_pass(const uint8_t *rgb, unsigned long long n, uint8_t *labels, int k,
                               int first_pass, const float4 *prepped, unsigned long long *sums,
                               km_control *control)
{
    if (__ldcg(&control->done))
        return;
    __shared__ float4 centre[SB_KMEANS_MAX_K];
    __shared__ unsigned acc[4 * SB_KMEANS_MAX_K];   /* < 2^24 pixels a block: no overflow */
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        centre[c] = prepped[c];
        acc[4 * c] = acc[4 * c + 1] = acc[4 * c + 2] = acc[4 * c + 3] = 0;
    }
    __syncthreads();
    /* whole warps walk the pixels together, so every lane reaches km_warp_add */
    unsigned lane = threadIdx.x & 31;
    for (unsigned long long base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < n;
         base += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned long long i = base + lane;
        bool live = i < n;
        unsigned r = 0, g = 0, b = 0, label = 0;
        if (live) {
            r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
            label = km_nearest(centre, k, r, g, b);
            if (first_pass || labels[i] != label)
                atomicAdd(&control->changed, 1u);
            labels[i] = (uint8_t)label;
        }
        km_warp_add(acc, live, label, r, g, b, 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 4 * k; i += blockDim.x)
        if (acc[i])
            atomicAdd(&sums[i], (unsigned long long)acc[i]);
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = km_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    s->blocks = km_grid_blocks(&s->dev, (unsigned long long)s->dev.n, BLOCK_THREADS, BLOCKS_PER_SM);
    return SB_OK;
}

static sb_status rung_pass(rung_state *s, int first_pass, sb_error *err)
{
    km_device *d = &s->dev;
    km_pass<<<s->blocks, BLOCK_THREADS, 0, d->stream>>>(
        (const uint8_t *)d->rgb, (unsigned long long)d->n, (uint8_t *)d->labels, d->params.k, first_pass,
        d->prepped, d->sums, d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    km_finish_kernel<<<1, 1024, 0, d->stream>>>(d->params.k, !d->params.fixed, d->sums, d->centres, d->prepped,
                                               d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    return km_run_passes(&s->dev, [s](int first_pass, sb_error *e) { return rung_pass(s, first_pass, e); }, err);
}

SB_CUDA_RUNG("kmeans", "cuda-warpsums", "cuda-blocksums", "cuda-shared", 0,
             "warp aggregation: the lanes of one label add together first, one shared atomic per label per warp",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
