/* 5_fourpixels.cu - cuda-fourpixels.  Grows from cuda-warpsums.  The idea: a
 * quad of 4 pixels a thread, read as 3 words. */
#include "km_quads.cuh"

enum { BLOCK_THREADS = 256 };

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(GlobalLoader load, unsigned quads, unsigned long long n, uint8_t *labels, int k, int first_pass,
            int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    __shared__ float4 centre[SB_KMEANS_MAX_K];
    __shared__ unsigned acc[4 * SB_KMEANS_MAX_K];   /* per block: < 2^24 pixels, so no overflow */
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        centre[c] = prepped[c];
        acc[4 * c] = acc[4 * c + 1] = acc[4 * c + 2] = acc[4 * c + 3] = 0;
    }
    __syncthreads();

    unsigned lane = threadIdx.x & 31, stride = gridDim.x * blockDim.x;
    /* whole warps walk the quads together, so every lane reaches km_warp_add */
    for (unsigned base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < quads; base += stride) {
        unsigned q = base + lane;
        bool live = q < quads;
        uint3 w = live ? load(q) : make_uint3(0, 0, 0);
        const uint32_t word[3] = { w.x, w.y, w.z };
        unsigned rgb[4][3], lab[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int ch = 0; ch < 3; ch++) {
                int byte = 3 * j + ch;
                rgb[j][ch] = (word[byte / 4] >> (8 * (byte % 4))) & 0xffu;
            }
        km_nearest4(centre, k, rgb, lab);

        /* pixels of this quad inside the image (the last quad may be short) */
        unsigned long long first_px = 4ull * q;
        unsigned inside = !live ? 0u : n - first_px >= 4 ? 4u : (unsigned)(n - first_px);
        unsigned changed = 0;
        for (unsigned j = 0; j < inside; j++) {
            if (first_pass || labels[first_px + j] != lab[j])
                changed++;
            labels[first_px + j] = (uint8_t)lab[j];
        }
        if (changed)
            atomicAdd(&control->changed, changed);

        /* Sums: pixel by pixel, each as cuda-warpsums adds one. */
#pragma unroll
        for (int j = 0; j < 4; j++)
            km_warp_add(acc, (unsigned)j < inside, lab[j], rgb[j][0], rgb[j][1], rgb[j][2], 1u);
    }

    __syncthreads();
    for (int i = threadIdx.x; i < 4 * k; i += blockDim.x)
        if (acc[i])
            atomicAdd(&sums[i], (unsigned long long)acc[i]);
}

struct rung_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    unsigned blocks;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = km_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    km_device *d = &s->dev;
    /* blocks: as many as fit on the GPU at this kernel's occupancy */
    int per_sm = 0;
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, km_pass, BLOCK_THREADS, 0), err, d->who);
    s->blocks = km_grid_blocks(d, d->quads, BLOCK_THREADS, (unsigned)per_sm);
    return SB_OK;
}

static sb_status rung_pass(rung_state *s, int first_pass, sb_error *err)
{
    km_device *d = &s->dev;
    GlobalLoader load = { d->rgb };
    km_pass<<<s->blocks, BLOCK_THREADS, 0, d->stream>>>(load, d->quads, (unsigned long long)d->n,
                                                        (uint8_t *)d->labels, d->params.k, first_pass,
                                                        !d->params.fixed, d->sums, d->centres, d->prepped,
                                                        d->control);
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

SB_CUDA_RUNG("kmeans", "cuda-fourpixels", "cuda-warpsums", "cuda-shared", 0,
             "4 pixels a thread: 3 words in, one centre read for 4 pixels; the labels still go out byte by byte",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
