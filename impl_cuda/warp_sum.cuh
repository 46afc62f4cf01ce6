/* warp_sum.cuh - the sum of a value over the lanes of a warp mask, on every
 * GPU the build targets.
 *
 * sm_80 and newer add in one instruction (__reduce_add_sync, REDUX in
 * SASS).  Older GPUs (Turing, sm_75) have no such instruction: there the
 * lanes of the mask read each other's value with one shuffle per lane of
 * the mask.  Every lane of `mask` must call it with the same mask, as with
 * any *_sync intrinsic; each gets the same total.
 */
#ifndef SEGBENCH_WARP_SUM_CUH
#define SEGBENCH_WARP_SUM_CUH

__device__ __forceinline__ unsigned sb_warp_sum(unsigned mask, unsigned v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(mask, v);
#else
    unsigned total = 0;
    for (unsigned m = mask; m; m &= m - 1)
        total += __shfl_sync(mask, v, __ffs(m) - 1);
    return total;
#endif
}

#endif
