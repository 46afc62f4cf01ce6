/* 6_pdl_tiles.cuh - cuda-pdl's three kernels and their launches
 * (6_pdl.cu), templated on how pixels are read: cuda-pdl reads them from
 * global memory (GlobalLoader), cuda-texture (7_texture.cu) through a
 * texture. */
#ifndef SEGBENCH_INTEGRAL_6_PDL_TILES_CUH
#define SEGBENCH_INTEGRAL_6_PDL_TILES_CUH

#include "6_pdl.cuh"

enum { SCAN_ROUND = 128 };   /* rows a round of the carries' scan (3_tilescan.cuh), as cuda-inflight */

#include "3_tilescan.cuh"
#include "4_transposed.cuh"

/* 1. Each warp reads its tile once and writes its 128 column totals, its
 * TILE_H row totals and its grand total. */
template <class Op, class Loader>
static __global__ void tile_totals(Loader load, tile_carries<typename Op::T> c)
{
    typedef typename Op::T T;
    int lane = threadIdx.x % 32;
    int tx = blockIdx.x * TILES_PER_BLOCK + threadIdx.x / 32, ty = blockIdx.y;
    let_next_kernel_start();                      /* carry_scan may be scheduled now */
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

/* One launch for all three scans: blocks [0, a) do the column totals,
 * [a, b) the tile totals, [b, end) the row totals. */
template <class T>
static __global__ void __launch_bounds__(1024) carry_scan(tile_carries<T> c)
{
    int a = (c.pw + 31) / 32, b = a + (c.tiles_x + 31) / 32;
    int blk = blockIdx.x;
    let_next_kernel_start();                      /* tile_sat may start fetching pixels */
    wait_for_previous_kernel();                   /* tile_totals' totals are all written */
    if (blk < a)
        exclusive_scan_down(c.column, c.tiles_y, c.pw, blk * 32);
    else if (blk < b)
        exclusive_scan_down(c.tile, c.tiles_y, c.tiles_x, (blk - a) * 32);
    else
        exclusive_scan_down(c.row, c.tiles_x, c.ph, (blk - b) * 32);
}

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
    wait_for_previous_kernel();                   /* the carries are ready */

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

/* The three launches for one table; the second and third may overlap the
 * one before where the GPU supports it (overlap). */
template <class Op, class Loader>
static sb_status tiled_table(integral_device *d, const Loader &load, tile_carries<typename Op::T> c,
                             typename Op::T *out, int overlap, sb_error *err)
{
    typedef typename Op::T T;
    dim3 tiles(sb_div_up(c.tiles_x, TILES_PER_BLOCK), c.tiles_y);
    int scan_blocks = sb_div_up(c.pw, 32) + sb_div_up(c.tiles_x, 32) + sb_div_up(c.ph, 32);
    tile_totals<Op><<<tiles, TILES_PER_BLOCK * 32, 0, d->stream>>>(load, c);
    SB_CUDA_LAUNCHED(err, d->who);

    cudaLaunchAttribute early = {};
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.stream = d->stream;
    cfg.attrs = &early;
    cfg.numAttrs = overlap ? 1 : 0;
    cfg.gridDim = dim3(scan_blocks);
    cfg.blockDim = dim3(1024);
    SB_CUDA_TRY(cudaLaunchKernelEx(&cfg, carry_scan<T>, c), err, d->who);
    cfg.gridDim = tiles;
    cfg.blockDim = dim3(TILES_PER_BLOCK * 32);
    SB_CUDA_TRY(cudaLaunchKernelEx(&cfg, tile_sat<Op, Loader>, load, c, out), err, d->who);
    return SB_OK;
}

#endif
