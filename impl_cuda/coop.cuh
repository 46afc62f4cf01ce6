/* coop.cuh - the blocks of a cooperative kernel: a kernel that waits for
 * its whole grid (grid.sync) must have every block resident at once, so
 * its grid is at most what the device holds of it, and its launch is
 * cudaLaunchCooperativeKernel. */
#ifndef SEGBENCH_COOP_CUH
#define SEGBENCH_COOP_CUH

#include "cuda_check.cuh"

/* *blocks = the smaller of `wanted` and how many blocks of `threads`
 * threads and `smem` bytes of dynamic shared memory the device holds at
 * once; refused where the device cannot launch cooperatively. */
template <class Kernel>
static sb_status sb_coop_blocks(Kernel *kernel, int threads, size_t smem, long wanted, int *blocks, const char *who,
                                sb_error *err)
{
    int dev, coop = 0, sms = 0, per_sm = 0;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev), err, who);
    if (!coop)
        return sb_fail(err, SB_ERR_UNAVAILABLE, "%s: the device cannot launch cooperative kernels", who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err, who);
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem), err, who);
    long most = (long)per_sm * sms;
    *blocks = (int)(wanted < most ? wanted : most);
    if (*blocks < 1)
        return sb_fail(err, SB_ERR_DEVICE, "%s: the cooperative kernel cannot be resident", who);
    return SB_OK;
}

#endif
