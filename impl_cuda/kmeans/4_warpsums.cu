/* 4_warpsums.cu - cuda-warpsums.  Grows from cuda-blocksums.  The idea: the
 * lanes that hold one label add first, and one lane adds their total. */
#include "3_blocksums.cuh"
#include "km_quads.cuh"

static __global__ void km_pass(const uint8_t *rgb, unsigned long long n, uint8_t *labels, int k,
                               int first_pass, const float4 *prepped, unsigned long long *sums,
                               km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_shared_sums(prepped, k, sums, [&](const float4 *centre, unsigned *acc) {
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
    });
}

static sb_status rung_run(void *state, sb_error *err) { return blocksums_run(state, km_pass, err); }

SB_CUDA_RUNG("kmeans", "cuda-warpsums", "cuda-blocksums", "cuda-shared", 0,
             "warp aggregation: the lanes of one label add together first, one shared atomic per label per warp",
             blocksums_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
