/* warp.cuh - sums and scans over the lanes of a warp: the helpers several
 * ladders use and none of them teaches, each written once here.
 *
 * sb_warp_sum: the sum of a value over the lanes of a mask, on every GPU
 * the build targets.  sm_80 and newer add in one instruction (__reduce_add_sync, REDUX in
 * SASS).  Older GPUs (Turing, sm_75) have no such instruction: there the
 * lanes of the mask read each other's value with one shuffle per lane of
 * the mask.  Every lane of `mask` must call it with the same mask, as with
 * any *_sync intrinsic; each gets the same total.
 */
#ifndef SEGBENCH_WARP_CUH
#define SEGBENCH_WARP_CUH

#define LANES_ALL 0xffffffffu

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

/* The sum over all 32 lanes, of any integer width (a butterfly: every lane
 * gets it). */
template <class T>
__device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_xor_sync(LANES_ALL, v, d);
    return v;
}

/* Lane i gets the sum of lanes 0..i. */
template <class T>
__device__ __forceinline__ T warp_inclusive_scan(T v, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        T n = __shfl_up_sync(LANES_ALL, v, d);
        if (lane >= d)
            v += n;
    }
    return v;
}

#endif
