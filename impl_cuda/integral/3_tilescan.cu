/* 3_tilescan.cu - tiled integral image: warp-shuffle scans over 128 x 32
 * tiles, every sum written once (variant "cuda-tilescan").
 *
 * Grows from cuda-smemscan.  The idea: warp shuffles.  cuda-smemscan
 * (2_smemscan.cu explains the tiles, the carries and the three kernels)
 * passes a warp's values between its lanes through a row of shared
 * memory: each lane stores, the warp waits at __syncwarp, each lane loads.
 * A shuffle (__shfl_xor_sync, __shfl_up_sync, __shfl_sync) moves a value
 * from one lane's register to another's in one instruction: no store, no
 * load, no wait.  So every row total is a warp_sum, every row prefix a
 * warp_inclusive_scan (warp.cuh), and the row carries a __shfl_sync from
 * the lane that holds them -- no shared memory and no __syncthreads in the
 * two big kernels.
 *
 * Each kernel is still written the plain way: a row total is one warp sum
 * (5 shuffles a row), the carry scan and tile_sat load a row and use it
 * before loading the next.  The next rungs change those one at a time
 * (4_transposed.cu: the row totals; 5_inflight.cu: the loads).  The scan
 * down the carries is in 3_tilescan.cuh and tile_sat in
 * 3_tilescan_sat.cuh, because the rungs after this one keep them.
 *
 */
#include "2_smemscan.cuh"

enum { SCAN_ROUND = 32 };   /* rows a round of the carries' scan (3_tilescan.cuh) */

#include "3_tilescan.cuh"
#include "3_tilescan_sat.cuh"

/* 1. Each warp reads its tile once and writes its 128 column totals, its
 * TILE_H row totals and its grand total.  Row r's total is one warp sum,
 * kept by lane r. */
template <class Op, class Loader>
static __global__ void tile_totals(Loader load, tile_carries<typename Op::T> c)
{
    typedef typename Op::T T;
    int lane = threadIdx.x % 32;
    int tx = blockIdx.x * TILES_PER_BLOCK + threadIdx.x / 32, ty = blockIdx.y;
    if (tx >= c.tiles_x)
        return;                                   /* whole warps only */
    int x = tx * TILE_W + lane * 4, y0 = ty * TILE_H;

    T col[4] = { 0, 0, 0, 0 }, my_row_total = 0;
#pragma unroll
    for (int r = 0; r < TILE_H; r++) {
        uchar4 p = load(x, y0 + r);
        T a = Op::of(p.x), b = Op::of(p.y), d = Op::of(p.z), e = Op::of(p.w);
        col[0] += a;
        col[1] += b;
        col[2] += d;
        col[3] += e;
        T row_total = warp_sum(a + b + d + e);    /* every lane gets it */
        if (lane == r)
            my_row_total = row_total;
    }
    store4(c.column + (size_t)ty * c.pw + x, col);
    if (lane < TILE_H)
        c.row[(size_t)tx * c.ph + y0 + lane] = my_row_total;
    T tile_total = warp_sum(lane < TILE_H ? my_row_total : T(0));
    if (lane == 0)
        c.tile[(size_t)ty * c.tiles_x + tx] = tile_total;
}

/* ---- the variant ------------------------------------------------------------------- */

SB_VARIANT("integral", "cuda-tilescan", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "128x32 tiles scanned by warp shuffles: totals, carry scan, one write per sum",
           tile_prepare, integral_cuda_upload, tile_run, integral_cuda_fetch, tile_release)
SB_RUNG("integral", "cuda-tilescan", "cuda-smemscan",
        "warp shuffles instead of shared memory for a warp's sums, scans and broadcasts: register to register")
