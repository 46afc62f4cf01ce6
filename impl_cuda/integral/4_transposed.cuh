/* 4_transposed.cuh - what cuda-transposed (4_transposed.cu) lends the
 * tile rungs after it and cuda-lookback: a warp's TILE_H row totals at
 * once, by halving exchanges instead of one warp sum a row. */
#ifndef SEGBENCH_INTEGRAL_4_TRANSPOSED_CUH
#define SEGBENCH_INTEGRAL_4_TRANSPOSED_CUH

#include "integral_device.cuh"

/* The TILE_H row totals of a tile at once.  On entry each lane holds its
 * part of every row's total in v[0..N-1]; on return lane r holds total
 * r mod N.  Each halving step keeps, in every lane, the half of the array
 * its lane bit selects and adds the partner's copy of that half: 31
 * shuffles for N = 32, where N warp sums take 5 N (160). */
template <int D, int N, class T>
__device__ __forceinline__ void warp_sums_step(T (&v)[N], int lane)
{
    if constexpr (D >= N) {                   /* fewer totals than lanes: fold */
#pragma unroll
        for (int i = 0; i < N; i++)
            v[i] += __shfl_xor_sync(LANES_ALL, v[i], D);
    } else {                                  /* halve */
        bool upper = (lane & D) != 0;
#pragma unroll
        for (int i = 0; i < D; i++) {
            T keep = upper ? v[i + D] : v[i], give = upper ? v[i] : v[i + D];
            v[i] = keep + __shfl_xor_sync(LANES_ALL, give, D);
        }
    }
    if constexpr (D > 1)
        warp_sums_step<D / 2>(v, lane);
}

template <int N, class T>
__device__ __forceinline__ T warp_sums_transposed(T (&v)[N], int lane)
{
    warp_sums_step<16>(v, lane);
    return v[0];
}

#endif
