/* 11_staged.cu - cuda-wide whose sums leave through shared memory
 * (variant "cuda-staged").
 *
 * Grows from cuda-wide.  The idea: coalesce the stores through shared
 * memory.  A warp's row of sums (32 lanes x 16) goes into a per-warp stage
 * as 16-byte chunks, each lane its own 16 sums, and comes out chunk lane,
 * lane + 32, ..., so every store instruction writes 512 contiguous bytes,
 * as cuda-strips' 4-pixel threads did, while the loads and scans stay
 * cuda-wide's.  The chunks sit at swizzled places in the stage (chunk c
 * at c ^ ((c / 8) % 8)) so that neither the writes (a lane's chunks are
 * neighbours) nor the reads (the lanes' chunks are) fall on one bank.
 *
 * The strips, the carries and the scans are cuda-strips' (9_strips.cu
 * explains them).
 *
 */
#include "integral_device.cuh"

enum {
    STRIP_ROWS = 8,                           /* rows a strip; divides INTEGRAL_PAD_Y */
    STRIP_THREADS = 256,                      /* a block: one strip, 16 pixels a thread */
    STRIP_WARPS = STRIP_THREADS / 32,
    PIXELS = 16,                              /* a thread's pixels of a row: one 16-byte load */
    STRIP_SEGMENT = STRIP_THREADS * PIXELS    /* pixels of a row scanned at once */
};
static_assert(INTEGRAL_PAD_X % PIXELS == 0, "a thread's pixels are all inside the padded row or all out");

/* 16 pixels of a row at once, and pixel i of them. */
__device__ __forceinline__ uint4 load16(const uint8_t *in, int pitch, int x, int y)
{
    return __ldg(reinterpret_cast<const uint4 *>(in + (size_t)y * pitch + x));
}
__device__ __forceinline__ uint32_t pixel(const uint4 &q, int i)
{
    uint32_t w = i < 4 ? q.x : i < 8 ? q.y : i < 12 ? q.z : q.w;   /* i is a constant after unrolling */
    return (w >> (8 * (i % 4))) & 0xff;
}

/* The values of a 16-pixel group summed, in four byte dot products
 * (dp4a): the row totals need no unpacked pixels. */
__device__ __forceinline__ uint32_t total16(SumOp, const uint4 &q)
{
    const uint32_t ones = 0x01010101u;
    return __dp4a(q.x, ones, __dp4a(q.y, ones, __dp4a(q.z, ones, __dp4a(q.w, ones, 0u))));
}
__device__ __forceinline__ uint32_t total16(SquareOp, const uint4 &q)   /* at most 16 x 255^2 */
{
    return __dp4a(q.x, q.x, __dp4a(q.y, q.y, __dp4a(q.z, q.z, __dp4a(q.w, q.w, 0u))));
}

/* Four sums from consecutive addresses. */
__device__ __forceinline__ void load4(const uint32_t *p, uint32_t v[4])
{
    uint4 q = *reinterpret_cast<const uint4 *>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}
__device__ __forceinline__ void load4(const uint64_t *p, uint64_t v[4])
{
    ulonglong2 a = reinterpret_cast<const ulonglong2 *>(p)[0], b = reinterpret_cast<const ulonglong2 *>(p)[1];
    v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
}
/* A warp's row of sums (32 lanes x 16) leaves through shared memory: each
 * lane puts its 16 sums in as 16-byte chunks, then takes out chunks lane,
 * lane + 32, ..., so each store instruction writes 512 contiguous bytes.
 * Chunk c sits at c ^ ((c / 8) % 8): the 8 lanes of a quarter-warp phase
 * then touch 8 different bank groups both ways. */
template <class T>
struct row_stage {
    enum { CHUNKS = 32 * PIXELS * (int)sizeof(T) / 16, PER_LANE = CHUNKS / 32 };
    uint4 chunk[CHUNKS];
    static __device__ __forceinline__ int at(int c) { return c ^ ((c >> 3) & 7); }
};

template <class T>
__device__ __forceinline__ void store_row_staged(row_stage<T> &st, const T (&acc)[PIXELS], T *row, int x_warp,
                                                 int pw, int lane)
{
    enum { PER_LANE = row_stage<T>::PER_LANE, PER_CHUNK = 16 / (int)sizeof(T) };
#pragma unroll
    for (int j = 0; j < PER_LANE; j++) {
        uint4 v;
        memcpy(&v, &acc[j * PER_CHUNK], 16);
        st.chunk[row_stage<T>::at(lane * PER_LANE + j)] = v;
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        int x = x_warp + c * PER_CHUNK;
        if (x < pw)
            __stcs(reinterpret_cast<uint4 *>(row + x), st.chunk[row_stage<T>::at(c)]);
    }
    __syncwarp();                                 /* the stage is free for the next row */
}
static_assert(INTEGRAL_PAD_Y % STRIP_ROWS == 0, "strips tile the padded height");

/* The two halves of programmatic dependent launch (no-ops before sm_90,
 * where the launches are in plain stream order). */
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

/* The block-wide part of scanning ROWS rows at once.  On entry each warp's
 * lane 31 has stored its warp's total of row r in part[r][warp]; on return
 * part[r][w] holds the total of row r over warps before w, and
 * segment[r] the total of row r over the whole block. */
template <int ROWS, class T>
__device__ __forceinline__ void block_scan_rows(T (&part)[ROWS][STRIP_WARPS], T (&segment)[ROWS], int lane,
                                                int warp)
{
    __syncthreads();                              /* every warp's totals are in */
    for (int r = warp; r < ROWS; r += STRIP_WARPS) {
        T v = lane < STRIP_WARPS ? part[r][lane] : T(0);   /* a lane a warp */
        T inclusive = warp_inclusive_scan(v, lane);
        if (lane < STRIP_WARPS)
            part[r][lane] = inclusive - v;
        if (lane == 31)
            segment[r] = inclusive;
    }
    __syncthreads();
}
static_assert(STRIP_WARPS <= 32, "block_scan_rows gives each warp total a lane");

/* 3. A block per strip: row -1 (the carries U) and the strip's rows, one
 * segment of the row at a time. */
template <class Op>
static __global__ void __launch_bounds__(STRIP_THREADS) strip_sat(const uint8_t *in, strip_carries<typename Op::T> c,
                                                                   typename Op::T *out)
{
    typedef typename Op::T T;
    enum { ROWS = STRIP_ROWS + 1 };               /* row 0 here is U, row r + 1 the strip's row r */
    __shared__ T part[ROWS][STRIP_WARPS], segment[ROWS];
    __shared__ row_stage<T> stage[STRIP_WARPS];
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
#pragma unroll
        for (int i = 0; i < PIXELS; i += 4) {
            u[i] = u[i + 1] = u[i + 2] = u[i + 3] = 0;
            if (inside)
                load4(above + x + i, u + i);
        }

        /* Each row's prefix within this thread's 16 pixels, then across the warp. */
        T before[ROWS];                           /* the row summed over the warp's lanes before this one */
        T total = 0;
#pragma unroll
        for (int i = 0; i < PIXELS; i++)
            total += u[i];
        T inclusive = warp_inclusive_scan(total, lane);
        before[0] = inclusive - total;
        if (lane == 31)
            part[0][warp] = inclusive;
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; r++) {
            total = total16(Op(), pixels[r]);
            inclusive = warp_inclusive_scan(total, lane);
            before[r + 1] = inclusive - total;
            if (lane == 31)
                part[r + 1][warp] = inclusive;
        }
        block_scan_rows(part, segment, lane, warp);

        /* Row -1 starts the running column sums: S(x, y0 - 1). */
        T left = carry[0] + part[0][warp] + before[0];
        T acc[PIXELS];
        acc[0] = left + u[0];
#pragma unroll
        for (int i = 1; i < PIXELS; i++)
            acc[i] = acc[i - 1] + u[i];
        carry[0] += segment[0];
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; r++) {
            T run = carry[r + 1] + part[r + 1][warp] + before[r + 1];   /* the row left of pixel 0 */
#pragma unroll
            for (int i = 0; i < PIXELS; i++) {
                run += Op::of(pixel(pixels[r], i));
                acc[i] += run;
            }
            store_row_staged(stage[warp], acc, out + (size_t)(y0 + r) * c.pw, x0 + warp * 32 * PIXELS, c.pw, lane);
            carry[r + 1] += segment[r + 1];
        }
        __syncthreads();                          /* part and segment are rewritten next segment */
    }
}

/* The three launches for one table; the second and third may overlap the
 * one before where the GPU supports it (overlap). */
template <class Op, class Loader>
static sb_status strip_table(integral_device *d, const Loader &load, strip_carries<typename Op::T> c,
                             typename Op::T *out, int overlap, sb_error *err)
{
    typedef typename Op::T T;
    dim3 totals(sb_div_up(c.pw / 4, TOTALS_THREADS), c.strips);
    strip_totals<Op><<<totals, TOTALS_THREADS, 0, d->stream>>>(load, c);
    SB_CUDA_LAUNCHED(err, d->who);

    cudaLaunchAttribute early = {};
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.stream = d->stream;
    cfg.attrs = &early;
    cfg.numAttrs = overlap ? 1 : 0;
    cfg.gridDim = dim3(sb_div_up(c.pw, 32));
    cfg.blockDim = dim3(SCAN_WARPS * 32);
    SB_CUDA_TRY(cudaLaunchKernelEx(&cfg, carry_scan<T>, c), err, d->who);
    cfg.gridDim = dim3(c.strips);
    cfg.blockDim = dim3(STRIP_THREADS);
    SB_CUDA_TRY(cudaLaunchKernelEx(&cfg, strip_sat<Op>, (const uint8_t *)d->in, c, out), err, d->who);
    return SB_OK;
}

/* ---- the variant ------------------------------------------------------------------- */

struct rung_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    strip_scratch carries;
    int overlap;           /* programmatic dependent launch (compute capability 9.0+) */
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(rung_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    int major = 0, dev = 0;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, s->dev.who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), err, s->dev.who);
    s->overlap = major >= 9;
    return strip_scratch_init(&s->carries, &s->dev, STRIP_ROWS, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    integral_device *d = &s->dev;
    GlobalLoader load = { d->in, d->pw };
    sb_status st = strip_table<SumOp>(d, load, s->carries.sum, d->sum, s->overlap, err);
    if (!st && d->squares)
        st = strip_table<SquareOp>(d, load, s->carries.sq, d->sq, s->overlap, err);
    return st;
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        strip_scratch_release(&s->carries);
    integral_device_close(s);
}

SB_VARIANT("integral", "cuda-staged", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-wide with its stores staged in shared memory",
           rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
SB_RUNG("integral", "cuda-staged", "cuda-wide",
        "each warp's row of sums through shared memory: 512 contiguous bytes a store")
