/* 5_inflight.cu - cuda-inflight (formerly cuda-tiles).  Grows from
 * cuda-transposed.  The idea: memory-level parallelism: every load of a tile
 * issued before its first use. */
#include "2_smemscan.cuh"

/* rows a round of the carries' scan (3_tilescan.cuh): 128, all loaded at once, four loads in
 * flight a thread, where cuda-transposed took 32 */
enum { SCAN_ROUND = 128 };

#include "3_tilescan.cuh"
#include "4_transposed_totals.cuh"

/* 3. Each warp rereads its tile and writes its final sums once. */
template <class Op, class Loader>
static __global__ void tile_sat(Loader load, tile_carries<typename Op::T> c, typename Op::T *out)
{
    typedef typename Op::T T;
    int lane = threadIdx.x % 32;
    int tx = blockIdx.x * TILES_PER_BLOCK + threadIdx.x / 32, ty = blockIdx.y;
    if (tx >= c.tiles_x)
        return;
    int x = tx * TILE_W + lane * 4, y0 = ty * TILE_H;

    uchar4 pixels[TILE_H];                        /* all loads in flight before the first use */
#pragma unroll
    for (int r = 0; r < TILE_H; r++)
        pixels[r] = load(x, y0 + r);

    /* The integral row just above the tile, at this lane's 4 columns. */
    T corner = 0;
    for (int t = lane; t < tx; t += 32)
        corner += c.tile[(size_t)ty * c.tiles_x + t];
    corner = warp_sum(corner);
    const T *u = c.column + (size_t)ty * c.pw + x;
    T u0 = u[0], u1 = u0 + u[1], u2 = u1 + u[2], u3 = u2 + u[3];
    T before = corner + warp_inclusive_scan(u3, lane) - u3;
    T acc[4] = { before + u0, before + u1, before + u2, before + u3 };

    T left_of_tile = lane < TILE_H ? c.row[(size_t)tx * c.ph + y0 + lane] : 0;   /* L of row y0 + lane */
#pragma unroll
    for (int r = 0; r < TILE_H; r++) {
        uchar4 p = pixels[r];
        T s0 = Op::of(p.x), s1 = s0 + Op::of(p.y), s2 = s1 + Op::of(p.z), s3 = s2 + Op::of(p.w);
        T left = __shfl_sync(LANES_ALL, left_of_tile, r) + warp_inclusive_scan(s3, lane) - s3;
        acc[0] += left + s0;
        acc[1] += left + s1;
        acc[2] += left + s2;
        acc[3] += left + s3;
        store4(out + (size_t)(y0 + r) * c.pw + x, acc);
    }
}

/* ---- the variant ------------------------------------------------------------------- */

SB_CUDA_RUNG("integral", "cuda-inflight", "cuda-transposed", "cuda-shared", 0,
             "every load in flight before its first use: 128 rows a carry-scan round, a tile's 32 rows in registers",
             tile_prepare, integral_cuda_upload, tile_run, integral_cuda_fetch, tile_release)
