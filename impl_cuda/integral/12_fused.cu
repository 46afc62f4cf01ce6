/* 12_fused.cu - cuda-fused.  Grows from cuda-staged.  The idea: both tables
 * of the "sqsum" stage from one pass over the strips, not one pipeline a
 * table. */
#include "11_staged.cuh"
#include "12_fused.cuh"

#include <type_traits>

/* 1. Each thread sums 4 columns down one strip, values and (SQUARES)
 * squares from the same loads: a grid of (columns / 4) threads by strips. */
enum { TOTALS_THREADS = 256 };

template <bool SQUARES, class Loader>
static __global__ void strip_totals(Loader load, strip_carries<uint32_t> c, strip_carries<uint64_t> q)
{
    let_next_kernel_start();                      /* carry_scan may be scheduled now */
    int x = (blockIdx.x * TOTALS_THREADS + threadIdx.x) * 4, s = blockIdx.y;
    if (x >= c.pw)
        return;
    uint32_t col[4] = { 0, 0, 0, 0 };
    uint64_t sq[4] = { 0, 0, 0, 0 };
#pragma unroll
    for (int r = 0; r < STRIP_ROWS; r++) {
        uchar4 p = load(x, s * STRIP_ROWS + r);
        col[0] += SumOp::of(p.x);
        col[1] += SumOp::of(p.y);
        col[2] += SumOp::of(p.z);
        col[3] += SumOp::of(p.w);
        if (SQUARES) {
            sq[0] += SquareOp::of(p.x);
            sq[1] += SquareOp::of(p.y);
            sq[2] += SquareOp::of(p.z);
            sq[3] += SquareOp::of(p.w);
        }
    }
    store4(c.column + (size_t)s * c.pw + x, col);
    if (SQUARES)
        store4(q.column + (size_t)s * q.pw + x, sq);
}

/* 2. The carries, both tables' (scan_down, 9_strips.cuh). */
/* Both tables' scans in one launch: blocks of row 1 of the grid scan the
 * squares. */
template <bool SQUARES>
static __global__ void __launch_bounds__(SCAN_WARPS * 32) carry_scans(strip_carries<uint32_t> c,
                                                                       strip_carries<uint64_t> q)
{
    let_next_kernel_start();                      /* strip_sat may start fetching pixels */
    wait_for_previous_kernel();                   /* strip_totals' sums are all written */
    if (!SQUARES || blockIdx.y == 0)
        scan_down(c);
    else
        scan_down(q);
}

/* 3. A block per strip: row -1 (the carries U) and the strip's rows, one
 * segment of the row at a time.  One table's part of a segment, from the
 * pixels the block holds: */
template <class Op>
struct strip_table_state {
    typedef typename Op::T T;
    enum { ROWS = STRIP_ROWS + 1 };               /* row 0 here is U, row r + 1 the strip's row r */
    const T *above;                               /* the strip's carries U */
    T *out;
    T carry[ROWS];                                /* each row's sum left of the segment */
};

template <class Op>
__device__ __forceinline__ void sat_segment(strip_table_state<Op> &t, const uint4 (&pixels)[STRIP_ROWS],
                                            row_stage<typename Op::T> &stage, int x0, int x, bool inside, int pw,
                                            int y0, int lane, int warp)
{
    typedef typename Op::T T;
    enum { ROWS = strip_table_state<Op>::ROWS };
    __shared__ T part[ROWS][STRIP_WARPS], segment[ROWS];

    T u[PIXELS];
    strip_row_above(t.above, x, inside, u);
    T before[ROWS], acc[PIXELS];
    strip_prefixes<Op>(pixels, u, t.carry, part, segment, lane, warp, before, acc);
#pragma unroll
    for (int r = 0; r < STRIP_ROWS; r++) {
        T run = t.carry[r + 1] + part[r + 1][warp] + before[r + 1];   /* the row left of pixel 0 */
#pragma unroll
        for (int i = 0; i < PIXELS; i++) {
            run += Op::of(pixel(pixels[r], i));
            acc[i] += run;
        }
        store_row_staged(stage, acc, t.out + (size_t)(y0 + r) * pw, x0 + warp * 32 * PIXELS, pw, lane);
        t.carry[r + 1] += segment[r + 1];
    }
    __syncthreads();                              /* part and segment are rewritten next segment */
}

template <bool SQUARES>
static __global__ void __launch_bounds__(STRIP_THREADS) strip_sat(const uint8_t *in, strip_carries<uint32_t> c,
                                                                   uint32_t *out, strip_carries<uint64_t> q,
                                                                   uint64_t *out_sq)
{
    typedef typename std::conditional<SQUARES, uint64_t, uint32_t>::type Widest;
    __shared__ row_stage<Widest> stage[STRIP_WARPS];     /* the sums' stage shares the squares' */
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int s = blockIdx.x, y0 = s * STRIP_ROWS;
    row_stage<uint32_t> &sum_stage = *reinterpret_cast<row_stage<uint32_t> *>(&stage[warp]);
    strip_table_state<SumOp> sums = { c.column + (size_t)s * c.pw, out, {} };
    strip_table_state<SquareOp> squares = { SQUARES ? q.column + (size_t)s * q.pw : NULL, out_sq, {} };

    for (int x0 = 0; x0 < c.pw; x0 += STRIP_SEGMENT) {
        int x = x0 + threadIdx.x * PIXELS;
        bool inside = x < c.pw;                   /* pw is a multiple of 16: all 16 or none */

        uint4 pixels[STRIP_ROWS];                 /* all loads in flight before the first use */
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; r++)
            pixels[r] = inside ? load16(in, c.pw, x, y0 + r) : make_uint4(0, 0, 0, 0);
        if (x0 == 0)
            wait_for_previous_kernel();           /* the carries are ready */
        sat_segment(sums, pixels, sum_stage, x0, x, inside, c.pw, y0, lane, warp);
        if (SQUARES)
            sat_segment(squares, pixels, *reinterpret_cast<row_stage<uint64_t> *>(&stage[warp]), x0, x, inside, c.pw, y0, lane, warp);
    }
}

/* The three launches for both tables (or the sums alone); the second and
 * third may overlap the one before where the GPU supports it (overlap). */
template <bool SQUARES, class Loader>
static sb_status strip_tables(integral_device *d, const Loader &load, strip_carries<uint32_t> c,
                              strip_carries<uint64_t> q, int overlap, sb_error *err)
{
    dim3 totals(sb_div_up(c.pw / 4, TOTALS_THREADS), c.strips);
    strip_totals<SQUARES><<<totals, TOTALS_THREADS, 0, d->stream>>>(load, c, q);
    SB_CUDA_LAUNCHED(err, d->who);

    cudaLaunchAttribute early = {};
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.stream = d->stream;
    cfg.attrs = &early;
    cfg.numAttrs = overlap ? 1 : 0;
    cfg.gridDim = dim3(sb_div_up(c.pw, 32), SQUARES ? 2 : 1);
    cfg.blockDim = dim3(SCAN_WARPS * 32);
    SB_CUDA_TRY(cudaLaunchKernelEx(&cfg, carry_scans<SQUARES>, c, q), err, d->who);
    cfg.gridDim = dim3(c.strips);
    cfg.blockDim = dim3(STRIP_THREADS);
    SB_CUDA_TRY(cudaLaunchKernelEx(&cfg, strip_sat<SQUARES>, (const uint8_t *)d->in, c, d->sum, q, d->sq), err,
                d->who);
    return SB_OK;
}

/* ---- the variant ------------------------------------------------------------------- */

sb_status fused_run(void *state, sb_error *err)
{
    strip_state *s = (strip_state *)state;
    integral_device *d = &s->dev;
    GlobalLoader load = { d->in, d->pw };
    if (d->squares)
        return strip_tables<true>(d, load, s->carries.sum, s->carries.sq, s->overlap, err);
    return strip_tables<false>(d, load, s->carries.sum, s->carries.sq, s->overlap, err);
}

SB_CUDA_RUNG("integral", "cuda-fused", "cuda-staged", "cuda-shared", SB_LADDER_TOP,
             "both tables from one load of each pixel: one pipeline for sqsum, not two",
             strip_prepare, integral_cuda_upload, fused_run, integral_cuda_fetch, strip_release)
