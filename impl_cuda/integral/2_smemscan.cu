/* 2_smemscan.cu - cuda-smemscan.  Grows from cuda-blocked6.  The idea: 128 x
 * 32 tiles instead of whole-table passes, every sum written once, a warp's
 * scans through shared memory. */
#include "2_smemscan.cuh"

/* ---- a warp's sums through shared memory ------------------------------------------ */

/* The row of shared memory that belongs to this thread's warp (a block
 * has at most 32 warps). */
template <class T>
__device__ __forceinline__ T *warp_row()
{
    __shared__ T row[32][32];
    return row[threadIdx.x / 32];
}

/* The sum over all 32 lanes (a butterfly: every lane gets it). */
template <class T>
__device__ __forceinline__ T smem_sum(T v)
{
    T *row = warp_row<T>();
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        row[lane] = v;
        __syncwarp();
        v += row[lane ^ d];
        __syncwarp();                             /* the row is rewritten next step */
    }
    return v;
}

/* Lane i gets the sum of lanes 0..i. */
template <class T>
__device__ __forceinline__ T smem_scan(T v, int lane)
{
    T *row = warp_row<T>();
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        row[lane] = v;
        __syncwarp();
        if (lane >= d)
            v += row[lane - d];
        __syncwarp();
    }
    return v;
}

/* Every lane gets lane src's v. */
template <class T>
__device__ __forceinline__ T smem_broadcast(T v, int src)
{
    T *row = warp_row<T>();
    row[threadIdx.x % 32] = v;
    __syncwarp();
    T got = row[src];
    __syncwarp();
    return got;
}

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
        T row_total = smem_sum(a + b + d + e);    /* every lane gets it */
        if (lane == r)
            my_row_total = row_total;
    }
    store4(c.column + (size_t)ty * c.pw + x, col);
    if (lane < TILE_H)
        c.row[(size_t)tx * c.ph + y0 + lane] = my_row_total;
    T tile_total = smem_sum(lane < TILE_H ? my_row_total : T(0));
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
            T inclusive = smem_scan(v, lane);
            tile[k + lane][warp] = carry + inclusive - v;
            carry += smem_broadcast(inclusive, 31);
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
    corner = smem_sum(corner);
    const T *u = c.column + (size_t)ty * c.pw + x;
    T u0 = u[0], u1 = u0 + u[1], u2 = u1 + u[2], u3 = u2 + u[3];
    T before = corner + smem_scan(u3, lane) - u3;
    T acc[4] = { before + u0, before + u1, before + u2, before + u3 };

    T left_of_tile = lane < TILE_H ? c.row[(size_t)tx * c.ph + y0 + lane] : 0;   /* L of row y0 + lane */
#pragma unroll
    for (int r = 0; r < TILE_H; r++) {
        uchar4 p = load(x, y0 + r);
        T s0 = Op::of(p.x), s1 = s0 + Op::of(p.y), s2 = s1 + Op::of(p.z), s3 = s2 + Op::of(p.w);
        T left = smem_broadcast(left_of_tile, r) + smem_scan(s3, lane) - s3;
        acc[0] += left + s0;
        acc[1] += left + s1;
        acc[2] += left + s2;
        acc[3] += left + s3;
        store4(out + (size_t)(y0 + r) * c.pw + x, acc);
    }
}

/* ---- the variant ------------------------------------------------------------------- */

SB_CUDA_RUNG("integral", "cuda-smemscan", "cuda-blocked6", "cuda-shared", 0,
             "tiles instead of whole-table passes: the image read twice, one carry scan, every sum written once",
             tile_prepare, integral_cuda_upload, tile_run, integral_cuda_fetch, tile_release)
