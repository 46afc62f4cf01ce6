/* 7_blockcount.cu - cuda-blockcount.  Grows from cuda-quadsums.  The idea:
 * changed labels counted per warp and block, one global atomic a block. */
#include "7_blockcount.cuh"

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(GlobalLoader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
            int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_block_pass(load, quads, n, labels, k, first_pass, sums, prepped, control);
}

KM_GRID_OPS(km_pass, true)

SB_CUDA_RUNG("kmeans", "cuda-blockcount", "cuda-quadsums", "cuda-shared", 0,
             "changed labels counted per warp, then per block: one global atomic a block, not one a quad",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
