/* 5_fourpixels.cu - cuda-fourpixels.  Grows from cuda-warpsums.  The idea: a
 * quad of 4 pixels a thread, read as 3 words. */
#include "km_quads.cuh"

enum { BLOCK_THREADS = 256 };

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(GlobalLoader load, unsigned quads, unsigned long long n, uint32_t *label_words, int k, int first_pass,
            int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    uint8_t *labels = (uint8_t *)label_words;     /* the labels still go out byte by byte */
    km_shared_sums(prepped, k, sums, [&](const float4 *centre, unsigned *acc) {
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

            km_add_pixels()(acc, live, inside, lab, rgb);
        }
    });
}

KM_GRID_OPS(km_pass, true)

SB_CUDA_RUNG("kmeans", "cuda-fourpixels", "cuda-warpsums", "cuda-shared", 0,
             "4 pixels a thread: 3 words in, one centre read for 4 pixels; the labels still go out byte by byte",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
