/* 10_wide_sat.cuh - cuda-wide's row scan (10_wide.cu), lent to cuda-staged:
 * the kernel whole, but for where a row of sums goes, which each rung
 * supplies as Rows::store(acc, row, x0, x, inside, pw, lane, warp) -- the
 * thread's 16 sums at columns x.. of the row starting at row, its warp's
 * segment starting at column x0 + warp * 32 * PIXELS. */
#ifndef SEGBENCH_INTEGRAL_10_WIDE_SAT_CUH
#define SEGBENCH_INTEGRAL_10_WIDE_SAT_CUH

#include "9_strips.cuh"
#include "10_wide.cuh"

/* 3. A block per strip: row -1 (the carries U) and the strip's rows, one
 * segment of the row at a time, each row's sums leaving by Rows::store. */
template <class Op, class Rows>
static __global__ void __launch_bounds__(STRIP_THREADS) strip_sat(const uint8_t *in, strip_carries<typename Op::T> c,
                                                                   typename Op::T *out)
{
    typedef typename Op::T T;
    enum { ROWS = STRIP_ROWS + 1 };               /* row 0 here is U, row r + 1 the strip's row r */
    __shared__ T part[ROWS][STRIP_WARPS], segment[ROWS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int s = blockIdx.x, y0 = s * STRIP_ROWS;
    const T *above = c.column + (size_t)s * c.pw;

    T carry[ROWS];                                /* each row's sum left of the segment */
#pragma unroll
    for (int r = 0; r < ROWS; r++)
        carry[r] = 0;

    for (int x0 = 0; x0 < c.pw; x0 += STRIP_SEGMENT) {
        int x = x0 + threadIdx.x * PIXELS;
        bool inside = x < c.pw;                   /* pw is a multiple of 16: all 16 or none */

        uint4 pixels[STRIP_ROWS];                 /* all loads in flight before the first use */
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; r++)
            pixels[r] = inside ? load16(in, c.pw, x, y0 + r) : make_uint4(0, 0, 0, 0);
        if (x0 == 0)
            wait_for_previous_kernel();           /* the carries are ready */
        T u[PIXELS];
        strip_row_above(above, x, inside, u);
        T before[STRIP_ROWS + 1], acc[PIXELS];
        strip_prefixes<Op>(pixels, u, carry, part, segment, lane, warp, before, acc);
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; r++) {
            T run = carry[r + 1] + part[r + 1][warp] + before[r + 1];   /* the row left of pixel 0 */
#pragma unroll
            for (int i = 0; i < PIXELS; i++) {
                run += Op::of(pixel(pixels[r], i));
                acc[i] += run;
            }
            Rows::store(acc, out + (size_t)(y0 + r) * c.pw, x0, x, inside, c.pw, lane, warp);
            carry[r + 1] += segment[r + 1];
        }
        __syncthreads();                          /* part and segment are rewritten next segment */
    }
}

/* cuda-strips' first two launches, then this strip_sat, which may overlap
 * the scan where the GPU supports it (overlap). */
template <class Op, class Rows>
static sb_status strip_table(integral_device *d, strip_carries<typename Op::T> c, typename Op::T *out, int overlap,
                             sb_error *err)
{
    sb_status st = strip_carries_scan<Op>(d, c, overlap, err);
    if (st)
        return st;
    pdl_launch l;
    pdl_launch_init(&l, d->stream, overlap, dim3(c.strips), dim3(STRIP_THREADS));
    SB_CUDA_TRY(cudaLaunchKernelEx(&l.cfg, strip_sat<Op, Rows>, (const uint8_t *)d->in, c, out), err, d->who);
    return SB_OK;
}

/* A variant's run: both tables, if the stage has two. */
template <class Rows>
static sb_status strip_rows_run(void *state, sb_error *err)
{
    strip_state *s = (strip_state *)state;
    integral_device *d = &s->dev;
    sb_status st = strip_table<SumOp, Rows>(d, s->carries.sum, d->sum, s->overlap, err);
    if (!st && d->squares)
        st = strip_table<SquareOp, Rows>(d, s->carries.sq, d->sq, s->overlap, err);
    return st;
}

#endif
