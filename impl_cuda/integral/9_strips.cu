/* 9_strips.cu - cuda-strips.  Grows from cuda-pdl.  The idea: strips of whole
 * rows instead of 128 x 32 tiles: reduce, scan the carries, then scan each
 * row. */
#include "9_strips.cuh"

enum { STRIP_SEGMENT = STRIP_THREADS * 4 };   /* pixels of a row scanned at once: 4 a thread */

/* 1. Each thread sums 4 columns down one strip: a grid of (columns / 4)
 * threads by strips. */
enum { TOTALS_THREADS = 256 };

template <class Op, class Loader>
static __global__ void strip_totals(Loader load, strip_carries<typename Op::T> c)
{
    typedef typename Op::T T;
    let_next_kernel_start();                      /* carry_scan may be scheduled now */
    int x = (blockIdx.x * TOTALS_THREADS + threadIdx.x) * 4, s = blockIdx.y;
    if (x >= c.pw)
        return;
    T col[4] = { 0, 0, 0, 0 };
#pragma unroll
    for (int r = 0; r < STRIP_ROWS; r++) {
        uchar4 p = load(x, s * STRIP_ROWS + r);
        col[0] += Op::of(p.x);
        col[1] += Op::of(p.y);
        col[2] += Op::of(p.z);
        col[3] += Op::of(p.w);
    }
    store4(c.column + (size_t)s * c.pw + x, col);
}

/* 2. The carries: each strip's column totals scanned down the strips
 * (scan_down, 9_strips.cuh). */
template <class T>
static __global__ void __launch_bounds__(SCAN_WARPS * 32) carry_scan(strip_carries<T> c)
{
    let_next_kernel_start();                      /* strip_sat may start fetching pixels */
    wait_for_previous_kernel();                   /* strip_totals' sums are all written */
    scan_down(c);
}

/* 3. A block per strip: row -1 (the carries U) and the strip's rows, one
 * segment of the row at a time. */
template <class Op, class Loader>
static __global__ void __launch_bounds__(STRIP_THREADS) strip_sat(Loader load, strip_carries<typename Op::T> c,
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
        int x = x0 + threadIdx.x * 4;
        bool inside = x < c.pw;                   /* pw is a multiple of 4: all 4 or none */

        uchar4 pixels[STRIP_ROWS];                /* all loads in flight before the first use */
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; r++)
            pixels[r] = inside ? load(x, y0 + r) : make_uchar4(0, 0, 0, 0);
        if (x0 == 0)
            wait_for_previous_kernel();           /* the carries are ready */
        T u[4] = { 0, 0, 0, 0 };
        if (inside)
#pragma unroll
            for (int i = 0; i < 4; i++)
                u[i] = above[x + i];

        /* Each row's prefix within this thread's 4 pixels, then across the warp. */
        T before[ROWS];                           /* the row summed over the warp's lanes before this one */
        T total = u[0] + u[1] + u[2] + u[3];
        T inclusive = warp_inclusive_scan(total, lane);
        before[0] = inclusive - total;
        if (lane == 31)
            part[0][warp] = inclusive;
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; r++) {
            uchar4 p = pixels[r];
            total = Op::of(p.x) + Op::of(p.y) + Op::of(p.z) + Op::of(p.w);
            inclusive = warp_inclusive_scan(total, lane);
            before[r + 1] = inclusive - total;
            if (lane == 31)
                part[r + 1][warp] = inclusive;
        }
        block_scan_rows(part, segment, lane, warp);

        /* Row -1 starts the running column sums: S(x, y0 - 1). */
        T left = carry[0] + part[0][warp] + before[0];
        T acc[4];
        acc[0] = left + u[0];
        acc[1] = acc[0] + u[1];
        acc[2] = acc[1] + u[2];
        acc[3] = acc[2] + u[3];
        carry[0] += segment[0];
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; r++) {
            uchar4 p = pixels[r];
            T s0 = Op::of(p.x), s1 = s0 + Op::of(p.y), s2 = s1 + Op::of(p.z), s3 = s2 + Op::of(p.w);
            left = carry[r + 1] + part[r + 1][warp] + before[r + 1];
            acc[0] += left + s0;
            acc[1] += left + s1;
            acc[2] += left + s2;
            acc[3] += left + s3;
            if (inside)
                store4(out + (size_t)(y0 + r) * c.pw + x, acc);
            carry[r + 1] += segment[r + 1];
        }
        __syncthreads();                          /* part and segment are rewritten next segment */
    }
}

template <class Op>
sb_status strip_carries_scan(integral_device *d, strip_carries<typename Op::T> c, int overlap, sb_error *err)
{
    typedef typename Op::T T;
    GlobalLoader load = { d->in, d->pw };
    dim3 totals(sb_div_up(c.pw / 4, TOTALS_THREADS), c.strips);
    strip_totals<Op><<<totals, TOTALS_THREADS, 0, d->stream>>>(load, c);
    SB_CUDA_LAUNCHED(err, d->who);
    pdl_launch l;
    pdl_launch_init(&l, d->stream, overlap, dim3(sb_div_up(c.pw, 32)), dim3(SCAN_WARPS * 32));
    SB_CUDA_TRY(cudaLaunchKernelEx(&l.cfg, carry_scan<T>, c), err, d->who);
    return SB_OK;
}
template sb_status strip_carries_scan<SumOp>(integral_device *, strip_carries<uint32_t>, int, sb_error *);
template sb_status strip_carries_scan<SquareOp>(integral_device *, strip_carries<uint64_t>, int, sb_error *);

/* The three launches for one table; the third may overlap the one before
 * where the GPU supports it (overlap). */
template <class Op>
static sb_status strip_table(integral_device *d, strip_carries<typename Op::T> c, typename Op::T *out, int overlap,
                             sb_error *err)
{
    sb_status st = strip_carries_scan<Op>(d, c, overlap, err);
    if (st)
        return st;
    pdl_launch l;
    pdl_launch_init(&l, d->stream, overlap, dim3(c.strips), dim3(STRIP_THREADS));
    GlobalLoader load = { d->in, d->pw };
    SB_CUDA_TRY(cudaLaunchKernelEx(&l.cfg, strip_sat<Op, GlobalLoader>, load, c, out), err, d->who);
    return SB_OK;
}

/* ---- the variant ------------------------------------------------------------------- */


sb_status strip_init(strip_state *s, sb_error *err)
{
    int major = 0, dev = 0;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, s->dev.who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), err, s->dev.who);
    s->overlap = major >= 9;
    return strip_scratch_init(&s->carries, &s->dev, STRIP_ROWS, err);
}

sb_status strip_prepare(void **state, const sb_image *in, const void *params, void *output, const sb_exec *exec,
                        sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(strip_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    return st ? st : strip_init((strip_state *)*state, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    strip_state *s = (strip_state *)state;
    integral_device *d = &s->dev;
    sb_status st = strip_table<SumOp>(d, s->carries.sum, d->sum, s->overlap, err);
    if (!st && d->squares)
        st = strip_table<SquareOp>(d, s->carries.sq, d->sq, s->overlap, err);
    return st;
}

void strip_release(void *state)
{
    strip_state *s = (strip_state *)state;
    if (s)
        strip_scratch_release(&s->carries);
    integral_device_close(s);
}

SB_CUDA_RUNG("integral", "cuda-strips", "cuda-pdl", "cuda-shared", 0,
             "full-width strips instead of tiles: only the carry from above, no row carries",
             strip_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, strip_release)
