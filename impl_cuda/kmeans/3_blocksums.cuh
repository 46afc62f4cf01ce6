/* 3_blocksums.cuh - what cuda-blocksums (3_blocksums.cu) lends the rungs
 * after it: a block's share of a pass with the centres and its sums in
 * shared memory (km_shared_sums: each rung brings its own walk over the
 * pixels), and its host side, a grid of BLOCKS_PER_SM blocks an SM over
 * the pixels, a pass and the update as two launches. */
#ifndef SEGBENCH_KM_3_BLOCKSUMS_CUH
#define SEGBENCH_KM_3_BLOCKSUMS_CUH

#include "kmeans_device.cuh"

/* The centres staged and the block's sums zeroed in shared memory, then
 * walk(centre, acc) -- the rung's loop over its pixels -- then each
 * nonzero sum added to the pass's global ones.  Every thread calls it. */
template <class Walk>
__device__ __forceinline__ void km_shared_sums(const float4 *prepped, int k, unsigned long long *sums, Walk walk)
{
    __shared__ float4 centre[SB_KMEANS_MAX_K];
    __shared__ unsigned acc[4 * SB_KMEANS_MAX_K];   /* per block: < 2^24 pixels, so no overflow */
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        centre[c] = prepped[c];
        acc[4 * c] = acc[4 * c + 1] = acc[4 * c + 2] = acc[4 * c + 3] = 0;
    }
    __syncthreads();
    walk(centre, acc);
    __syncthreads();
    for (int i = threadIdx.x; i < 4 * k; i += blockDim.x)
        if (acc[i])
            atomicAdd(&sums[i], (unsigned long long)acc[i]);
}

/* ---- the host side: a pass over the pixels, then the update ------------------------------ */

enum { BLOCKSUMS_THREADS = 256, BLOCKSUMS_PER_SM = 4 };

struct blocksums_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    unsigned blocks;
};

static inline sb_status blocksums_prepare(void **state, const sb_image *in, const void *params, void *output,
                                          const sb_exec *exec, sb_error *err)
{
    sb_status st = km_device_open(state, sizeof(blocksums_state), in, params, output, exec, err);
    if (st)
        return st;
    blocksums_state *s = (blocksums_state *)*state;
    s->blocks = km_grid_blocks(&s->dev, (unsigned long long)s->dev.n, BLOCKSUMS_THREADS, BLOCKSUMS_PER_SM);
    return SB_OK;
}

/* A run whose every pass is `pass` over the pixels, then km_finish_kernel. */
template <class Kernel>
static sb_status blocksums_run(void *state, Kernel pass, sb_error *err)
{
    blocksums_state *s = (blocksums_state *)state;
    km_device *d = &s->dev;
    return km_run_passes(d, [s, d, pass](int first_pass, sb_error *e) {
        pass<<<s->blocks, BLOCKSUMS_THREADS, 0, d->stream>>>((const uint8_t *)d->rgb, (unsigned long long)d->n,
                                                             (uint8_t *)d->labels, d->params.k, first_pass,
                                                             d->prepped, d->sums, d->control);
        SB_CUDA_LAUNCHED(e, d->who);
        km_finish_kernel<<<1, 1024, 0, d->stream>>>(d->params.k, !d->params.fixed, d->sums, d->centres,
                                                   d->prepped, d->control);
        SB_CUDA_LAUNCHED(e, d->who);
        return SB_OK;
    }, err);
}

#endif
