/* 8_lastblock.cu - cuda-lastblock (formerly cuda-shared).  Grows from
 * cuda-blockcount.  The idea: the update runs in the block that finishes
 * last: one launch a pass. */
#include "7_blockcount.cuh"

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(GlobalLoader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
            int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_block_pass(load, quads, n, labels, k, first_pass, sums, prepped, control);
    if (km_last_block(control))
        km_finish_pass(k, converge, sums, centres, prepped, control);
}

KM_GRID_OPS(km_pass, false)

SB_CUDA_RUNG("kmeans", "cuda-lastblock", "cuda-blockcount", "cuda-shared", SB_LADDER_TOP,
             "the update in the block that finishes last (a fence, then a ticket): one launch a pass",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
