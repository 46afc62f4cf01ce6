/* 4_transposed_totals.cuh - cuda-transposed's first kernel (4_transposed.cu),
 * which cuda-inflight keeps: each warp's tile totals, its row totals by
 * one transposed warp reduction. */
#ifndef SEGBENCH_INTEGRAL_4_TRANSPOSED_TOTALS_CUH
#define SEGBENCH_INTEGRAL_4_TRANSPOSED_TOTALS_CUH

#include "2_smemscan.cuh"
#include "4_transposed.cuh"

/* 1. Each warp reads its tile once and writes its 128 column totals, its
 * TILE_H row totals and its grand total. */
template <class Op, class Loader>
static __global__ void tile_totals(Loader load, tile_carries<typename Op::T> c)
{
    typedef typename Op::T T;
    int lane = threadIdx.x % 32;
    int tx = blockIdx.x * TILES_PER_BLOCK + threadIdx.x / 32, ty = blockIdx.y;
    if (tx >= c.tiles_x)
        return;                                   /* whole warps only */
    int x = tx * TILE_W + lane * 4, y0 = ty * TILE_H;

    T col[4] = { 0, 0, 0, 0 }, row[TILE_H];
#pragma unroll
    for (int r = 0; r < TILE_H; r++) {
        uchar4 p = load(x, y0 + r);
        T a = Op::of(p.x), b = Op::of(p.y), d = Op::of(p.z), e = Op::of(p.w);
        col[0] += a;
        col[1] += b;
        col[2] += d;
        col[3] += e;
        row[r] = a + b + d + e;                   /* this lane's part of row r */
    }
    T my_row_total = warp_sums_transposed(row, lane);   /* lane r: row r mod TILE_H */
    store4(c.column + (size_t)ty * c.pw + x, col);
    if (lane < TILE_H)
        c.row[(size_t)tx * c.ph + y0 + lane] = my_row_total;
    T tile_total = warp_sum(lane < TILE_H ? my_row_total : T(0));
    if (lane == 0)
        c.tile[(size_t)ty * c.tiles_x + tx] = tile_total;
}

#endif
