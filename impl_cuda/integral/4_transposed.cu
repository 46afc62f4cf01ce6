/* 4_transposed.cu - tiled integral image whose row totals are one
 * transposed warp reduction (variant "cuda-transposed").
 *
 * Grows from cuda-tilescan.  The idea: tile_totals needs 32 separate
 * sums over the warp, one a row.  Done one at a time they cost 5
 * shuffles each, 160 a tile, and the shuffles, not the bytes, bound the
 * kernel.  Kept as an array of 32 partial sums a lane and reduced all at
 * once, each shuffle halves the array still to be summed: 16 + 8 + 4 + 2
 * + 1 = 31 shuffles, and lane r ends holding row r's total, just where it
 * is stored from.  What it bought on the H100 is in the report's lessons
 * page (segbench lesson integral/cuda-transposed).
 *
 * The tiles, the carries and the scans are cuda-tilescan's (3_tilescan.cu
 * explains them).
 *
 */
#include "integral_device.cuh"

enum { TILES_PER_BLOCK = 4 };     /* one warp each */

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

/* 2. In place, for every column j of an [n][len] array m: m[i][j] becomes
 * the sum of m[0..i-1][j].  A block of 32 warps takes 32 columns and walks
 * down them 32 rows a round through shared memory: each warp loads one
 * row (coalesced), then each warp scans one column (a transposed read),
 * then all are stored. */
enum { SCAN_ROUND = 32 };

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
static __global__ void tile_sat(Loader load, tile_carries<typename Op::T> c, typename Op::T *out)
{
    typedef typename Op::T T;
    int lane = threadIdx.x % 32;
    int tx = blockIdx.x * TILES_PER_BLOCK + threadIdx.x / 32, ty = blockIdx.y;
    if (tx >= c.tiles_x)
        return;
    int x = tx * TILE_W + lane * 4, y0 = ty * TILE_H;

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
        uchar4 p = load(x, y0 + r);
        T s0 = Op::of(p.x), s1 = s0 + Op::of(p.y), s2 = s1 + Op::of(p.z), s3 = s2 + Op::of(p.w);
        T left = __shfl_sync(LANES_ALL, left_of_tile, r) + warp_inclusive_scan(s3, lane) - s3;
        acc[0] += left + s0;
        acc[1] += left + s1;
        acc[2] += left + s2;
        acc[3] += left + s3;
        store4(out + (size_t)(y0 + r) * c.pw + x, acc);
    }
}

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

/* ---- the variant ------------------------------------------------------------------- */

struct rung_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    tiled_scratch carries;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(rung_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    return tiled_scratch_init(&s->carries, &s->dev, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    integral_device *d = &s->dev;
    GlobalLoader load = { d->in, d->pw };
    sb_status st = tiled_table<SumOp>(d, load, s->carries.sum, d->sum, err);
    if (!st && d->squares)
        st = tiled_table<SquareOp>(d, load, s->carries.sq, d->sq, err);
    return st;
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        tiled_scratch_release(&s->carries);
    integral_device_close(s);
}

SB_VARIANT("integral", "cuda-transposed", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tilescan with each tile's 32 row totals in one transposed warp reduction",
           rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
SB_RUNG("integral", "cuda-transposed", "cuda-tilescan",
        "a tile's 32 row totals in one transposed warp reduction: 31 shuffles instead of 160")
