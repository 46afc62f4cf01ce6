/* cuda_check.cuh - turning CUDA errors into sb_error values.
 *
 *     SB_CUDA_TRY(cudaMalloc(&p, n), err, "integral/cuda-shared");
 *
 * returns from the calling function with SB_ERR_DEVICE and a message that
 * names the variant, the call and CUDA's own description.  Nothing exits
 * the process.
 */
#ifndef SEGBENCH_CUDA_CHECK_CUH
#define SEGBENCH_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "segbench/error.h"

/* An allocation the GPU cannot satisfy is its own status: the harness skips
 * that row (saying why) instead of calling it a failure. */
static inline sb_status sb_cuda_fail(sb_error *err, cudaError_t e, const char *who, const char *call)
{
    return sb_fail(err, e == cudaErrorMemoryAllocation ? SB_ERR_DEVICE_MEMORY : SB_ERR_DEVICE, "%s: %s failed: %s (%s)", who, call, cudaGetErrorString(e),
                   cudaGetErrorName(e));
}

#define SB_CUDA_TRY(call, err, who)                                   \
    do {                                                              \
        cudaError_t sb_cuda_e_ = (call);                              \
        if (sb_cuda_e_ != cudaSuccess)                                \
            return sb_cuda_fail((err), sb_cuda_e_, (who), #call);     \
    } while (0)

/* After a kernel launch: reports bad launch configurations at once. */
#define SB_CUDA_LAUNCHED(err, who) SB_CUDA_TRY(cudaGetLastError(), err, who)

static inline unsigned sb_div_up(unsigned long long n, unsigned long long d)
{
    return (unsigned)((n + d - 1) / d);
}

#endif
