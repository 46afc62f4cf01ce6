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

/* 2. In place, for every column j of an [n][len] array m: m[i][j] becomes
 * the sum of m[0..i-1][j].  A block takes 32 columns (a lane each) and
 * its SCAN_WARPS warps split the rows into runs of up to SCAN_RUN rows, so
 * all of a round's loads are in flight at once: each warp sums its run,
 * the run totals of each column are scanned across the warps through
 * shared memory (a transposed read), and each warp writes its run's
 * prefixes.  A round covers SCAN_WARPS x SCAN_RUN rows; taller arrays take
 * more. */
enum { SCAN_WARPS = 16, SCAN_RUN = 24 };

template <class T>
static __global__ void __launch_bounds__(SCAN_WARPS * 32) carry_scan(strip_carries<T> c)
{
    __shared__ T run_total[SCAN_WARPS][33];       /* [run][column]; +1: no bank conflicts on the transpose */
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int col = blockIdx.x * 32 + lane, n = c.strips, len = c.pw;
    int run = min((int)SCAN_RUN, (n + SCAN_WARPS - 1) / SCAN_WARPS);   /* rows a warp */
    T *m = c.column;
    let_next_kernel_start();                      /* strip_sat may start fetching pixels */
    wait_for_previous_kernel();                   /* strip_totals' sums are all written */
    T carry[32 / SCAN_WARPS] = {};                /* column warp + j SCAN_WARPS summed above the round */
    for (int base = 0; base < n; base += SCAN_WARPS * run) {
        int first = base + warp * run;
        T v[SCAN_RUN], sum = 0;
#pragma unroll
        for (int k = 0; k < SCAN_RUN; k++) {
            int i = first + k;
            v[k] = (k < run && i < n && col < len) ? m[(size_t)i * len + col] : 0;
            sum += v[k];
        }
        run_total[warp][lane] = sum;
        __syncthreads();
#pragma unroll
        for (int j = 0; j < 32 / SCAN_WARPS; j++) {   /* each warp scans the runs of its columns */
            int column = warp + j * SCAN_WARPS;
            T t = lane < SCAN_WARPS ? run_total[lane][column] : T(0);
            T inclusive = warp_inclusive_scan(t, lane);
            if (lane < SCAN_WARPS)
                run_total[lane][column] = carry[j] + inclusive - t;
            carry[j] += __shfl_sync(LANES_ALL, inclusive, 31);
        }
        __syncthreads();
        T above = run_total[warp][lane];          /* column col summed over the runs before this one */
#pragma unroll
        for (int k = 0; k < SCAN_RUN; k++) {
            int i = first + k;
            if (k < run && i < n && col < len)
                m[(size_t)i * len + col] = above;
            above += v[k];
        }
        __syncthreads();                          /* run_total is rewritten next round */
    }
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
