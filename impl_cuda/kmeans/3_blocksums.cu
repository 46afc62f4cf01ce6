/* 3_blocksums.cu - cuda-blocksums.  Grows from cuda-global.  The idea: a
 * block's sums and the centres in shared memory. */
#include "3_blocksums.cuh"

static __global__ void km_pass(const uint8_t *rgb, unsigned long long n, uint8_t *labels, int k,
                               int first_pass, const float4 *prepped, unsigned long long *sums,
                               km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_shared_sums(prepped, k, sums, [&](const float4 *centre, unsigned *acc) {
        for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += (unsigned long long)gridDim.x * blockDim.x) {
            unsigned r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
            unsigned label = km_nearest(centre, k, r, g, b);
            if (first_pass || labels[i] != label)
                atomicAdd(&control->changed, 1u);
            labels[i] = (uint8_t)label;
            atomicAdd(&acc[4 * label], r);
            atomicAdd(&acc[4 * label + 1], g);
            atomicAdd(&acc[4 * label + 2], b);
            atomicAdd(&acc[4 * label + 3], 1u);
        }
    });
}

static sb_status rung_run(void *state, sb_error *err) { return blocksums_run(state, km_pass, err); }

SB_CUDA_RUNG("kmeans", "cuda-blocksums", "cuda-global", "cuda-shared", 0,
             "each block's sums and the centres in shared memory: shared atomics a pixel, one flush a block",
             blocksums_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
