/* 2_smemscan.cuh - what cuda-smemscan (2_smemscan.cu) lends the tile
 * rungs up to cuda-inflight: the three kernels' launches in stream order,
 * one warp a 128 x 32 tile, and the rung around them (state, prepare,
 * run, release).  Each rung defines the kernels declared here --
 * tile_totals and tile_sat, and the exclusive_scan_down that carry_scan
 * runs -- or takes them from the header of the rung that brought them. */
#ifndef SEGBENCH_INTEGRAL_2_SMEMSCAN_CUH
#define SEGBENCH_INTEGRAL_2_SMEMSCAN_CUH

#include "integral_device.cuh"

/* 1. Each warp reads its tile once and writes its column totals, row
 * totals and grand total. */
template <class Op, class Loader>
static __global__ void tile_totals(Loader load, tile_carries<typename Op::T> c);

/* 2. The carries scanned down their columns. */
template <class T>
__device__ void exclusive_scan_down(T *m, int n, int len, int col0);

/* One launch for all three scans: blocks [0, a) do the column totals,
 * [a, b) the tile totals, [b, end) the row totals. */
template <class T>
static __global__ void __launch_bounds__(1024) carry_scan(tile_carries<T> c)
{
    int a = (c.pw + 31) / 32, b = a + (c.tiles_x + 31) / 32;
    int blk = blockIdx.x;
    if (blk < a)
        exclusive_scan_down(c.column, c.tiles_y, c.pw, blk * 32);
    else if (blk < b)
        exclusive_scan_down(c.tile, c.tiles_y, c.tiles_x, (blk - a) * 32);
    else
        exclusive_scan_down(c.row, c.tiles_x, c.ph, (blk - b) * 32);
}

/* 3. Each warp rereads its tile and writes its final sums once. */
template <class Op, class Loader>
static __global__ void tile_sat(Loader load, tile_carries<typename Op::T> c, typename Op::T *out);

/* The three launches for one table, in stream order. */
template <class Op, class Loader>
static sb_status tiled_table(integral_device *d, const Loader &load, tile_carries<typename Op::T> c,
                             typename Op::T *out, sb_error *err)
{
    typedef typename Op::T T;
    dim3 tiles(sb_div_up(c.tiles_x, TILES_PER_BLOCK), c.tiles_y);
    int scan_blocks = sb_div_up(c.pw, 32) + sb_div_up(c.tiles_x, 32) + sb_div_up(c.ph, 32);
    tile_totals<Op><<<tiles, TILES_PER_BLOCK * 32, 0, d->stream>>>(load, c);
    SB_CUDA_LAUNCHED(err, d->who);
    carry_scan<T><<<scan_blocks, 1024, 0, d->stream>>>(c);
    SB_CUDA_LAUNCHED(err, d->who);
    tile_sat<Op><<<tiles, TILES_PER_BLOCK * 32, 0, d->stream>>>(load, c, out);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

struct tile_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    tiled_scratch carries;
};

static inline sb_status tile_prepare(void **state, const sb_image *in, const void *params, void *output,
                                      const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(tile_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    if (st)
        return st;
    tile_state *s = (tile_state *)*state;
    return tiled_scratch_init(&s->carries, &s->dev, err);
}

static inline sb_status tile_run(void *state, sb_error *err)
{
    tile_state *s = (tile_state *)state;
    integral_device *d = &s->dev;
    GlobalLoader load = { d->in, d->pw };
    sb_status st = tiled_table<SumOp>(d, load, s->carries.sum, d->sum, err);
    if (!st && d->squares)
        st = tiled_table<SquareOp>(d, load, s->carries.sq, d->sq, err);
    return st;
}

static inline void tile_release(void *state)
{
    tile_state *s = (tile_state *)state;
    if (s)
        tiled_scratch_release(&s->carries);
    integral_device_close(s);
}

#endif
