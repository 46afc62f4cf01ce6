/* 14_ticket.cu - cuda-ticket.  A branch of cuda-staged.  The idea: one pass,
 * strips taken by ticket, each learning the column sums above it by decoupled
 * look-back. */
#include "11_staged.cuh"

#include <cuda/atomic>

enum {
    SLICE = 32 * PIXELS,                      /* columns a warp: the width of one look-back chain */
    LOOKBACK = 4                              /* strips before it a warp watches at once (at most 32) */
};

/* ---- the chains: a flag per strip and slice, epoch * 2 (+1 when inclusive) ---------- */

/* What one launch needs to find its strip and its predecessors' sums. */
template <class T>
struct ticket_args {
    int strips, slices, pw;        /* strips down, warp slices across, the row pitch */
    T *agg;                        /* [strips][pw] each strip's column sums */
    T *inc;                        /* [strips][pw] the column sums down to each strip's bottom row */
    uint32_t *flag;                /* [strips][slices] */
    uint32_t *ticket;              /* blocks take strips in this order */
    uint32_t first_ticket, epoch;
};

__device__ __forceinline__ uint32_t flag_acquire(const uint32_t *flag)
{
    return cuda::atomic_ref<const uint32_t, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
}

/* Every lane has written its values; make them visible, then raise the flag. */
__device__ __forceinline__ void flag_publish(uint32_t *flag, uint32_t value, int lane)
{
    __threadfence();
    __syncwarp();
    if (lane == 0)
        cuda::atomic_ref<uint32_t, cuda::thread_scope_device>(*flag).store(value, cuda::memory_order_release);
}

/* A lane's 16 column sums to and from the chains, through L2 (another SM
 * reads or wrote them). */
template <class T>
__device__ __forceinline__ void put16(T *p, const T (&v)[PIXELS])
{
#pragma unroll
    for (int i = 0; i < PIXELS * (int)sizeof(T) / 16; i++) {
        uint4 q;
        memcpy(&q, reinterpret_cast<const char *>(v) + 16 * i, 16);
        __stcg(reinterpret_cast<uint4 *>(p) + i, q);
    }
}
/* Add the column sums of n strips, lane by lane: strip `first`, then the
 * n - 1 strips above it, from inc for the last when last_inclusive, from
 * agg otherwise.  GROUP strips' loads are in flight before the first add. */
template <class T>
__device__ __forceinline__ void add_strips(const ticket_args<T> &a, int first, int n, bool last_inclusive, int x,
                                           T (&sum)[PIXELS])
{
    enum { CHUNKS = PIXELS * (int)sizeof(T) / 16, GROUP = 4 * (int)sizeof(uint32_t) / (int)sizeof(T) };
    for (int k = 0; k < n; k += GROUP) {
        uint4 q[GROUP][CHUNKS];
#pragma unroll
        for (int g = 0; g < GROUP; g++) {
            int j = k + g;
            const T *values = (j == n - 1 && last_inclusive ? a.inc : a.agg) + (size_t)(first - j) * a.pw + x;
#pragma unroll
            for (int c = 0; c < CHUNKS; c++)
                q[g][c] = j < n ? __ldcg(reinterpret_cast<const uint4 *>(values) + c) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int g = 0; g < GROUP; g++) {
            T v[PIXELS];
            memcpy(v, q[g], sizeof v);
#pragma unroll
            for (int i = 0; i < PIXELS; i++)
                sum[i] += v[i];
        }
    }
}

/* U for this lane's 16 columns: the sums of the strips before strip s.
 * Lane k watches strip base - 1 - k (k < LOOKBACK), base = s at first,
 * until every one of them has posted.  If one is inclusive, the warp adds
 * the nearer ones' aggregates and the nearest inclusive, and is done; if
 * none is, it adds the window's aggregates and watches the next window. */
template <class T>
__device__ void look_back(const ticket_args<T> &a, int s, int slice, int x, bool inside, int lane, T (&u)[PIXELS])
{
#pragma unroll
    for (int i = 0; i < PIXELS; i++)
        u[i] = 0;
    for (int base = s; base > 0;) {               /* strips base.. are counted */
        int window = min((int)LOOKBACK, base);
        /* a lane past the window watches nothing (and points at no strip before 0) */
        const uint32_t *watched = lane < window ? a.flag + (size_t)(base - 1 - lane) * a.slices + slice : a.flag;
        unsigned inclusive;
        for (unsigned pause = 32;; pause = min(2 * pause, 512u)) {   /* back off: leave L2 to the writers */
            uint32_t f = lane < window ? flag_acquire(watched) : 0;
            unsigned posted = __ballot_sync(LANES_ALL, f >> 1 == a.epoch);
            inclusive = __ballot_sync(LANES_ALL, f == a.epoch * 2 + 1);
            unsigned upto = inclusive ? (inclusive & (0u - inclusive)) * 2 - 1   /* the nearest and all nearer */
                                      : (window == 32 ? ~0u : (1u << window) - 1);
            if ((posted & upto) == upto)
                break;
            __nanosleep(pause);
        }
        __syncwarp();                             /* each lane's acquire now orders every lane's loads below */
        int n = inclusive ? __ffs(inclusive) : window;
        if (inside)
            add_strips(a, base - 1, n, inclusive != 0, x, u);
        if (inclusive)
            return;
        base -= window;
    }
}

/* This warp's link of the chain: post the strip's column sums, learn U
 * from the strips before, post U plus the strip's sums. */
template <class T>
__device__ __forceinline__ void column_carries(const ticket_args<T> &a, int s, int slice, int x, bool inside,
                                               int lane, const T (&col)[PIXELS], T (&u)[PIXELS])
{
    uint32_t *mine = a.flag + (size_t)s * a.slices + slice;
    size_t at = (size_t)s * a.pw + x;
    if (s > 0) {                                  /* the first strip goes straight to inclusive */
        if (inside)
            put16(a.agg + at, col);
        flag_publish(mine, a.epoch * 2, lane);
    }
    look_back(a, s, slice, x, inside, lane, u);
    T below[PIXELS];
#pragma unroll
    for (int i = 0; i < PIXELS; i++)
        below[i] = u[i] + col[i];
    if (inside)
        put16(a.inc + at, below);
    flag_publish(mine, a.epoch * 2 + 1, lane);
}

/* A block per strip, the strip taken by ticket: row -1 (the carries U,
 * from the look-back) and the strip's rows, one segment of the row at a
 * time.  Two blocks an SM (at most 128 registers a thread), so that nearly
 * all of a 4K image's strips run at once. */
template <class Op>
static __global__ void __launch_bounds__(STRIP_THREADS, 2) ticket_sat(const uint8_t *in, ticket_args<typename Op::T> a,
                                                                    typename Op::T *out)
{
    typedef typename Op::T T;
    enum { ROWS = STRIP_ROWS + 1 };               /* row 0 here is U, row r + 1 the strip's row r */
    __shared__ T part[ROWS][STRIP_WARPS], segment[ROWS];
    __shared__ row_stage<T> stage[STRIP_WARPS];
    __shared__ uint32_t my_ticket;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (threadIdx.x == 0)
        my_ticket = atomicAdd(a.ticket, 1u) - a.first_ticket;
    __syncthreads();
    int s = (int)my_ticket, y0 = s * STRIP_ROWS;

    T carry[ROWS];                                /* each row's sum left of the segment */
#pragma unroll
    for (int r = 0; r < ROWS; r++)
        carry[r] = 0;

    for (int x0 = 0; x0 < a.pw; x0 += STRIP_SEGMENT) {
        int x = x0 + threadIdx.x * PIXELS;
        bool inside = x < a.pw;                   /* pw is a multiple of 16: all 16 or none */

        uint4 pixels[STRIP_ROWS];                 /* all loads in flight before the first use */
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; r++)
            pixels[r] = inside ? load16(in, a.pw, x, y0 + r) : make_uint4(0, 0, 0, 0);

        /* The strip's column sums, posted; U learnt from the strips before. */
        T col[PIXELS];
#pragma unroll
        for (int i = 0; i < PIXELS; i++) {
            col[i] = 0;
#pragma unroll
            for (int r = 0; r < STRIP_ROWS; r++)
                col[i] += Op::of(pixel(pixels[r], i));
        }
        T u[PIXELS];
        if (x0 + warp * SLICE < a.pw)             /* the warp has columns in this segment */
            column_carries(a, s, x0 / SLICE + warp, x, inside, lane, col, u);
        else
#pragma unroll
            for (int i = 0; i < PIXELS; i++)
                u[i] = 0;

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
            store_row_staged(stage[warp], acc, out + (size_t)(y0 + r) * a.pw, x0 + warp * 32 * PIXELS, a.pw, lane);
            carry[r + 1] += segment[r + 1];
        }
        __syncthreads();                          /* part and segment are rewritten next segment */
    }
}

/* ---- the host side ------------------------------------------------------------------ */

/* The chains' values (sized for the squares' 64-bit sums), flags and ticket. */
struct ticket_scratch {
    int strips, slices;
    void *agg, *inc;
    uint32_t *flag, *ticket;
    uint32_t next_ticket;              /* the first ticket of the next launch */
    uint32_t epoch;                    /* of the last launch; 0: none yet */
};

static sb_status ticket_scratch_init(ticket_scratch *s, const integral_device *d, sb_error *err)
{
    s->strips = d->ph / STRIP_ROWS;
    s->slices = sb_div_up(d->pw, SLICE);
    size_t values = (size_t)s->strips * d->pw * sizeof(uint64_t), flags = (size_t)s->strips * s->slices;
    SB_CUDA_TRY(cudaMalloc(&s->agg, values), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->inc, values), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->flag, flags * sizeof(uint32_t)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->ticket, sizeof(uint32_t)), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->flag, 0, flags * sizeof(uint32_t), d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->ticket, 0, sizeof(uint32_t), d->stream), err, d->who);
    return SB_OK;
}

static void ticket_scratch_release(ticket_scratch *s)
{
    cudaFree(s->agg);
    cudaFree(s->inc);
    cudaFree(s->flag);
    cudaFree(s->ticket);
}

/* One launch a table: a new epoch (flags of older launches then read as
 * "not yet"), tickets continuing where the last launch stopped. */
template <class Op>
static sb_status ticket_table(integral_device *d, ticket_scratch *s, typename Op::T *out, sb_error *err)
{
    typedef typename Op::T T;
    if (s->epoch >= (1u << 30)) {             /* flags would wrap: start again from zero */
        SB_CUDA_TRY(cudaMemsetAsync(s->flag, 0, (size_t)s->strips * s->slices * sizeof(uint32_t), d->stream), err,
                    d->who);
        s->epoch = 0;
    }
    ticket_args<T> a = { s->strips, s->slices, d->pw, (T *)s->agg, (T *)s->inc, s->flag, s->ticket,
                         s->next_ticket, ++s->epoch };
    s->next_ticket += (uint32_t)s->strips;
    ticket_sat<Op><<<s->strips, STRIP_THREADS, 0, d->stream>>>(d->in, a, out);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the variant ------------------------------------------------------------------- */

struct rung_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    ticket_scratch chains;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(rung_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    return ticket_scratch_init(&s->chains, &s->dev, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    sb_status st = ticket_table<SumOp>(&s->dev, &s->chains, s->dev.sum, err);
    if (!st && s->dev.squares)
        st = ticket_table<SquareOp>(&s->dev, &s->chains, s->dev.sq, err);
    return st;
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        ticket_scratch_release(&s->chains);
    integral_device_close(s);
}

SB_CUDA_RUNG("integral", "cuda-ticket", "cuda-staged", "cuda-shared", 0,
             "one pass: each strip's column carries by vector look-back over the strips before it",
             rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
