/* 3_tilescan.cu - cuda-tilescan.  Grows from cuda-smemscan.  The idea: the
 * tiles' scans with warp shuffles instead of shared memory. */
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

SB_CUDA_RUNG("integral", "cuda-tilescan", "cuda-smemscan", "cuda-shared", 0,
             "warp shuffles instead of shared memory for a warp's sums, scans and broadcasts: register to register",
             tile_prepare, integral_cuda_upload, tile_run, integral_cuda_fetch, tile_release)
