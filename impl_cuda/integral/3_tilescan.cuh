/* 3_tilescan.cuh - what cuda-tilescan (3_tilescan.cu) lends the tile
 * rungs after it: the scan down the columns of the carries by warp
 * shuffles.  The includer sets SCAN_ROUND first, the rows a round: 32,
 * cuda-inflight's 128. */
#ifndef SEGBENCH_INTEGRAL_3_TILESCAN_CUH
#define SEGBENCH_INTEGRAL_3_TILESCAN_CUH

#include "integral_device.cuh"

/* In place, for every column j of an [n][len] array m: m[i][j] becomes
 * the sum of m[0..i-1][j], for the 32 columns from col0, SCAN_ROUND rows
 * a round through shared memory: each warp loads rows (coalesced), then
 * each warp scans one column (a transposed read), then all are stored. */
template <class T>
__device__ void exclusive_scan_down(T *m, int n, int len, int col0)
{
    __shared__ T tile[SCAN_ROUND][33];            /* +1: no bank conflicts on the transpose */
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int col = col0 + lane;
    T carry = 0;                                  /* running total of column col0 + warp */
    for (int base = 0; base < n; base += SCAN_ROUND) {
#pragma unroll
        for (int k = 0; k < SCAN_ROUND; k += 32) {
            int i = base + k + warp;
            tile[k + warp][lane] = (i < n && col < len) ? m[(size_t)i * len + col] : 0;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SCAN_ROUND; k += 32) {
            T v = tile[k + lane][warp];
            T inclusive = warp_inclusive_scan(v, lane);
            tile[k + lane][warp] = carry + inclusive - v;
            carry += __shfl_sync(LANES_ALL, inclusive, 31);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SCAN_ROUND; k += 32) {
            int i = base + k + warp;
            if (i < n && col < len)
                m[(size_t)i * len + col] = tile[k + warp][lane];
        }
    }
}

#endif
