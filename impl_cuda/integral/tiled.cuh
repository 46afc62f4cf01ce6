/* tiled.cuh - the tiled summed-area table used by cuda-shared and
 * cuda-texture.  The two variants differ only in how a kernel reads four
 * pixels (the Loader): this file is the algorithm, their .cu files are the
 * lesson about memory paths.
 *
 * Why tiles.  The integral image needs each output once (4 bytes) and
 * each pixel once (1 byte): 5 bytes a pixel.  Scanning rows and then
 * columns through global memory rewrites the whole table (13+ bytes).
 * Instead (after Nehab et al. 2011, "GPU-efficient recursive filtering and
 * summed-area tables", Algorithm SAT), cut the image into tiles, and
 *   1. tile_totals: read the image once and keep only each tile's column
 *      totals, row totals and grand total -- about 1/32 of the output;
 *   2. carry_scan:  prefix-sum those totals across tiles (small);
 *   3. tile_sat:    read the image again (mostly from L2: it is 1/4 of the
 *      output's size) and write each tile's final sums once, starting from
 *      the carries.
 * Traffic: 2 bytes read + 4 written a pixel, plus ~3 % for the totals.
 *
 * One warp owns one tile of 128 x 32 pixels: lane i holds columns
 * 4i..4i+3, the warp walks the 32 rows, and every horizontal sum is a
 * warp shuffle scan -- no shared memory and no __syncthreads in the two
 * big kernels.  For a pixel (x, y) in the tile whose top-left is (x0, y0):
 *
 *   S(x, y) = S(x, y0-1) + sum over rows y0..y of [ L(y') + rowprefix(x, y') ]
 *   S(x, y0-1) = corner + sum over x0..x of U(x')
 *
 * where L(y') is row y' summed left of the tile, U(x') column x' summed
 * above the tile, and corner = S(x0-1, y0-1) = the sum of the tile totals
 * above-left.  carry_scan turns the totals into exactly these: per row,
 * the exclusive prefix over tiles to the left (L); per column, over tiles
 * above (U); per tile, the tile totals above (V, summed along the row of
 * tiles for the corner).
 */
#ifndef SEGBENCH_INTEGRAL_TILED_CUH
#define SEGBENCH_INTEGRAL_TILED_CUH

#include "integral_device.cuh"

enum {
    TILE_W = 128,             /* 32 lanes x 4 pixels */
    TILE_H = 32,              /* rows a warp walks (16 measured the same at 4K) */
    TILES_PER_BLOCK = 4       /* one warp each */
};
static_assert((int)TILE_W == (int)INTEGRAL_PAD_X && INTEGRAL_PAD_Y % TILE_H == 0, "buffers are padded to whole tiles");

#define LANES_ALL 0xffffffffu

template <class T>
__device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_xor_sync(LANES_ALL, v, d);
    return v;
}

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

/* N separate warp sums at once: on entry each lane holds its part of N
 * totals in v[0..N-1]; on return lane r holds total r mod N.  Each halving
 * step keeps, in every lane, the half of the array its lane bit selects
 * and adds the partner's copy of that half: 31 shuffles for N = 32, where
 * N warp_sum calls would take 5 N. */
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

/* Four sums to consecutive addresses in one 16-byte store (two for u64). */
__device__ __forceinline__ void store4(uint32_t *p, const uint32_t v[4])
{
    *reinterpret_cast<uint4 *>(p) = make_uint4(v[0], v[1], v[2], v[3]);
}
__device__ __forceinline__ void store4(uint64_t *p, const uint64_t v[4])
{
    reinterpret_cast<ulonglong2 *>(p)[0] = make_ulonglong2(v[0], v[1]);
    reinterpret_cast<ulonglong2 *>(p)[1] = make_ulonglong2(v[2], v[3]);
}

/* Programmatic dependent launch (Hopper, sm_90+): a kernel launched with
 * programmatic stream serialization may start while the one before it is
 * still running; it must wait (griddepcontrol.wait) before touching what
 * that kernel writes, and the kernel before lets it start early
 * (griddepcontrol.launch_dependents).  Here it hides two launch gaps and
 * lets tile_sat fetch its pixels while carry_scan is still running. */
__device__ __forceinline__ void wait_for_previous_kernel()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void let_next_kernel_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

/* Where the tile totals live: after carry_scan, the same arrays hold the
 * exclusive prefixes U, L and V. */
template <class T>
struct tile_carries {
    T *column;     /* [tiles_y][pw]       column totals per tile  -> U */
    T *row;        /* [tiles_x][ph]       row totals per tile     -> L */
    T *tile;       /* [tiles_y][tiles_x]  tile totals             -> V */
    int tiles_x, tiles_y, pw, ph;
};

/* 1. Each warp reads its tile once and writes its 128 column totals, its
 * TILE_H row totals and its grand total. */
template <class Op, class Loader>
__global__ void tile_totals(Loader load, tile_carries<typename Op::T> c)
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

/* 2. In place, for every column j of an [n][len] array m: m[i][j] becomes
 * the sum of m[0..i-1][j].  A block of 32 warps takes 32 columns and walks
 * down them 128 rows a round through shared memory: all 128 rows are
 * loaded at once (coalesced, four loads in flight per thread), then each
 * warp scans one column (a transposed read), then all are stored. */
enum { SCAN_ROUND = 128 };

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
__global__ void __launch_bounds__(1024) carry_scan(tile_carries<T> c)
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
__global__ void tile_sat(Loader load, tile_carries<typename Op::T> c, typename Op::T *out)
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

/* Scratch for one table: the three carry arrays. */
template <class T>
static sb_status tile_carries_alloc(tile_carries<T> *c, const integral_device *d, sb_error *err)
{
    c->pw = d->pw;
    c->ph = d->ph;
    c->tiles_x = d->pw / TILE_W;
    c->tiles_y = d->ph / TILE_H;
    SB_CUDA_TRY(cudaMalloc(&c->column, (size_t)c->tiles_y * c->pw * sizeof(T)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&c->row, (size_t)c->tiles_x * c->ph * sizeof(T)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&c->tile, (size_t)c->tiles_y * c->tiles_x * sizeof(T)), err, d->who);
    return SB_OK;
}

template <class T>
static void tile_carries_free(tile_carries<T> *c)
{
    cudaFree(c->column);
    cudaFree(c->row);
    cudaFree(c->tile);
}

struct tiled_scratch {
    int overlap;                  /* programmatic dependent launch (compute capability 9.0+) */
    tile_carries<uint32_t> sum;
    tile_carries<uint64_t> sq;
};

/* The three launches for one table; the second and third may overlap the
 * one before (programmatic dependent launch) where the GPU supports it. */
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

static sb_status tiled_scratch_init(tiled_scratch *s, const integral_device *d, sb_error *err)
{
    int major = 0, dev = 0;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), err, d->who);
    s->overlap = major >= 9;
    sb_status st = tile_carries_alloc(&s->sum, d, err);
    if (!st && d->squares)
        st = tile_carries_alloc(&s->sq, d, err);
    return st;
}

static void tiled_scratch_release(tiled_scratch *s)
{
    tile_carries_free(&s->sum);
    tile_carries_free(&s->sq);
}

/* Both tables with one loader. */
template <class Loader>
static sb_status tiled_run(integral_device *d, const tiled_scratch *s, const Loader &load, sb_error *err)
{
    sb_status st = tiled_table<SumOp>(d, load, s->sum, d->sum, s->overlap, err);
    if (!st && d->squares)
        st = tiled_table<SquareOp>(d, load, s->sq, d->sq, s->overlap, err);
    return st;
}

#endif
