/* 8_lookback.cu - cuda-lookback.  A branch of cuda-pdl.  The idea: one kernel
 * instead of three, each tile learning its carries from the tiles before it
 * by decoupled look-back. */
#include "4_transposed.cuh"

#include <cuda/atomic>

enum {
    LB_WARPS = 4,                  /* warp tiles a block stacks: block tile 128 x 128 */
    LB_THREADS = LB_WARPS * 32
};

/* ---- flags: epoch * 2 + 1 when the values are inclusive ---------------------------- */

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

/* One chain of predecessors: predecessor k (k = 0 the nearest) keeps its
 * flag at flag[-(k+1) * flag_step] and its V values a lane at
 * agg / inc + [-(k+1) * step + lane * V].  `count` predecessors exist. */
template <class T>
struct chain {
    uint32_t *flag;
    T *agg, *inc;
    int count;
    size_t flag_step, step;
};

template <int V, class T>
__device__ __forceinline__ void load_values(const T *p, T (&v)[V])
{
#pragma unroll
    for (int k = 0; k < V; k++)
        v[k] = __ldcg(p + k);         /* L2: another SM wrote them */
}

/* The sum of the predecessors' values, lane by lane: walk back 32
 * predecessors at a time, wait until all 32 have posted something, add
 * aggregates up to the nearest inclusive (included) and stop there. */
template <int V, class T>
__device__ void look_back(const chain<T> &c, uint32_t epoch, int lane, T (&sum)[V])
{
#pragma unroll
    for (int k = 0; k < V; k++)
        sum[k] = 0;
    for (int done = 0; done < c.count; done += 32) {
        int mine = done + lane;                        /* the predecessor this lane watches */
        uint32_t f = epoch * 2 + 1;                    /* past the first: as if inclusive zero */
        if (mine < c.count)             /* spin, backing off, so the pollers leave L2 to the writers */
            for (unsigned pause = 32; (f = flag_acquire(c.flag - (size_t)(mine + 1) * c.flag_step)) >> 1 != epoch;
                 pause = min(2 * pause, 512u))
                __nanosleep(pause);
        unsigned inclusive = __ballot_sync(LANES_ALL, f & 1);
        __syncwarp();                                  /* each lane's acquire now orders every lane's loads below */
        int last = inclusive ? __ffs(inclusive) - 1 : 31;
        last = min(last, c.count - 1 - done);
        for (int k = 0; k <= last; k++) {
            size_t at = (size_t)(done + k + 1) * c.step;
            T v[V];
            load_values<V>(((inclusive >> k) & 1 ? c.inc : c.agg) - at + lane * V, v);
#pragma unroll
            for (int j = 0; j < V; j++)
                sum[j] += v[j];
        }
        if (inclusive)
            return;
    }
}

template <int V, class T>
__device__ __forceinline__ void store_values(T *p, const T (&v)[V])
{
#pragma unroll
    for (int k = 0; k < V; k++)
        __stcg(p + k, v[k]);
}

/* ---- the scratch: values for every warp tile's row chain and every block
 * tile's column chain, their flags, and the ticket counter ------------------------------ */

struct lookback_scratch {
    int tiles_x, strips, block_rows;   /* warp tiles across, warp tiles down, block tiles down */
    void *row_agg, *row_inc;           /* [strips][tiles_x][32]        T */
    void *col_agg, *col_inc;           /* [block_rows][tiles_x][128]   T */
    uint32_t *row_flag;                /* [strips][tiles_x] */
    uint32_t *col_flag;                /* [block_rows][tiles_x] */
    uint32_t *ticket;                  /* blocks take tiles in this order */
    uint32_t next_ticket;              /* the first ticket of the next launch */
    uint32_t epoch;                    /* of the last launch; 0: none yet */
};

/* The arguments of one launch. */
template <class T>
struct lookback_args {
    int tiles_x, strips, pw;
    T *row_agg, *row_inc, *col_agg, *col_inc;
    uint32_t *row_flag, *col_flag, *ticket;
    uint32_t first_ticket, epoch;
};

__device__ __forceinline__ uint32_t packed(uchar4 p)
{
    return p.x | (uint32_t)p.y << 8 | (uint32_t)p.z << 16 | (uint32_t)p.w << 24;
}

template <class Op, class Loader>
static __global__ void __launch_bounds__(LB_THREADS) lookback_sat(Loader load, lookback_args<typename Op::T> a,
                                                            typename Op::T *out)
{
    typedef typename Op::T T;
    __shared__ uint32_t my_ticket;
    __shared__ T below[LB_WARPS][TILE_W];     /* D of each warp tile, by column */
    __shared__ T above[TILE_W];               /* P of the block tile */
    __shared__ uint32_t pixels[LB_WARPS][TILE_H][32];   /* four packed bytes a lane a row, kept for step 5 */
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (threadIdx.x == 0)
        my_ticket = atomicAdd(a.ticket, 1u) - a.first_ticket;
    __syncthreads();
    int bx = (int)(my_ticket % (unsigned)a.tiles_x), by = (int)(my_ticket / (unsigned)a.tiles_x);
    int strip = by * LB_WARPS + warp, x = bx * TILE_W + lane * 4, y0 = strip * TILE_H;
    bool active = strip < a.strips;           /* the last block tile may hang below the image */

    /* 1. This warp tile's pixels, its row totals posted as an aggregate. */
    T col[4] = { 0, 0, 0, 0 }, A = 0, D[4] = { 0, 0, 0, 0 };
    if (active) {
        uint32_t mine[TILE_H];                /* all loads in flight before the first use */
#pragma unroll
        for (int r = 0; r < TILE_H; r++)
            mine[r] = packed(load(x, y0 + r));
        T row[TILE_H];
#pragma unroll
        for (int r = 0; r < TILE_H; r++) {
            uint32_t p = mine[r];
            pixels[warp][r][lane] = p;
            T v0 = Op::of(p & 255), v1 = Op::of(p >> 8 & 255), v2 = Op::of(p >> 16 & 255), v3 = Op::of(p >> 24);
            col[0] += v0;
            col[1] += v1;
            col[2] += v2;
            col[3] += v3;
            row[r] = v0 + v1 + v2 + v3;
        }
        T row_total = warp_sums_transposed(row, lane);          /* lane r: row r */
        size_t here = (size_t)strip * a.tiles_x + bx;
        chain<T> left = { a.row_flag + here, a.row_agg + here * 32, a.row_inc + here * 32, bx, 1, 32 };
        if (bx > 0) {
            __stcg(a.row_agg + here * 32 + lane, row_total);
            flag_publish(a.row_flag + here, a.epoch * 2, lane);
        }

        /* 2. A, from the tiles to the left; then post the inclusive. */
        T left_sum[1];
        look_back<1>(left, a.epoch, lane, left_sum);
        A = left_sum[0];
        __stcg(a.row_inc + here * 32 + lane, A + row_total);
        flag_publish(a.row_flag + here, a.epoch * 2 + 1, lane);

        /* 3. D(x): the rows' left parts, plus the column totals summed
         * along the tile up to x. */
        T H = warp_sum(A);
        T c1 = col[0] + col[1], c2 = c1 + col[2], c3 = c2 + col[3];
        T before = H + warp_inclusive_scan(c3, lane) - c3;
        D[0] = before + col[0];
        D[1] = before + c1;
        D[2] = before + c2;
        D[3] = before + c3;
    }
#pragma unroll
    for (int k = 0; k < 4; k++)
        below[warp][lane * 4 + k] = D[k];
    __syncthreads();

    /* 4. The first warp: the block's D posted as an aggregate, P from the
     * block tiles above, then S at the block's bottom row as inclusive. */
    if (warp == 0) {
        T sum[4] = { 0, 0, 0, 0 };
#pragma unroll
        for (int w = 0; w < LB_WARPS; w++)
#pragma unroll
            for (int k = 0; k < 4; k++)
                sum[k] += below[w][lane * 4 + k];
        size_t here = (size_t)by * a.tiles_x + bx;
        chain<T> up = { a.col_flag + here, a.col_agg + here * TILE_W, a.col_inc + here * TILE_W, by,
                        (size_t)a.tiles_x, (size_t)a.tiles_x * TILE_W };
        if (by > 0) {
            store_values<4>(a.col_agg + here * TILE_W + lane * 4, sum);
            flag_publish(a.col_flag + here, a.epoch * 2, lane);
        }
        T P[4];
        look_back<4>(up, a.epoch, lane, P);
        T bottom[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            above[lane * 4 + k] = P[k];
            bottom[k] = P[k] + sum[k];
        }
        store_values<4>(a.col_inc + here * TILE_W + lane * 4, bottom);
        flag_publish(a.col_flag + here, a.epoch * 2 + 1, lane);
    }
    __syncthreads();
    if (!active)
        return;

    /* 5. Every warp: its P is the block's plus the warp tiles above it in
     * the block; then walk the rows and write each sum once. */
    T acc[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        acc[k] = above[lane * 4 + k];
        for (int w = 0; w < warp; w++)
            acc[k] += below[w][lane * 4 + k];
    }
#pragma unroll
    for (int r = 0; r < TILE_H; r++) {
        uint32_t p = pixels[warp][r][lane];
        T s0 = Op::of(p & 255), s1 = s0 + Op::of(p >> 8 & 255), s2 = s1 + Op::of(p >> 16 & 255),
          s3 = s2 + Op::of(p >> 24);
        T left = __shfl_sync(LANES_ALL, A, r) + warp_inclusive_scan(s3, lane) - s3;
        acc[0] += left + s0;
        acc[1] += left + s1;
        acc[2] += left + s2;
        acc[3] += left + s3;
        store4(out + (size_t)(y0 + r) * a.pw + x, acc);
    }
}

/* ---- the host side ------------------------------------------------------------------ */

static sb_status lookback_scratch_init(lookback_scratch *s, const integral_device *d, sb_error *err)
{
    s->tiles_x = d->pw / TILE_W;
    s->strips = d->ph / TILE_H;
    s->block_rows = sb_div_up(s->strips, LB_WARPS);
    size_t rows = (size_t)s->strips * s->tiles_x, blocks = (size_t)s->block_rows * s->tiles_x;
    size_t widest = sizeof(uint64_t);         /* the values are sized for the square sums */
    SB_CUDA_TRY(cudaMalloc(&s->row_agg, rows * 32 * widest), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->row_inc, rows * 32 * widest), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->col_agg, blocks * TILE_W * widest), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->col_inc, blocks * TILE_W * widest), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->row_flag, rows * sizeof(uint32_t)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->col_flag, blocks * sizeof(uint32_t)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->ticket, sizeof(uint32_t)), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->row_flag, 0, rows * sizeof(uint32_t), d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->col_flag, 0, blocks * sizeof(uint32_t), d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->ticket, 0, sizeof(uint32_t), d->stream), err, d->who);
    return SB_OK;
}

static void lookback_scratch_release(lookback_scratch *s)
{
    cudaFree(s->row_agg);
    cudaFree(s->row_inc);
    cudaFree(s->col_agg);
    cudaFree(s->col_inc);
    cudaFree(s->row_flag);
    cudaFree(s->col_flag);
    cudaFree(s->ticket);
}

/* One table: a new epoch (flags of older launches then read as "not yet"),
 * tickets continuing where the last launch stopped. */
template <class Op, class Loader>
static sb_status lookback_table(integral_device *d, lookback_scratch *s, const Loader &load, typename Op::T *out,
                                sb_error *err)
{
    typedef typename Op::T T;
    unsigned blocks = (unsigned)(s->tiles_x * s->block_rows);
    if (s->epoch >= (1u << 30)) {             /* flags would wrap: start again from zero */
        size_t rows = (size_t)s->strips * s->tiles_x, cols = (size_t)s->block_rows * s->tiles_x;
        SB_CUDA_TRY(cudaMemsetAsync(s->row_flag, 0, rows * sizeof(uint32_t), d->stream), err, d->who);
        SB_CUDA_TRY(cudaMemsetAsync(s->col_flag, 0, cols * sizeof(uint32_t), d->stream), err, d->who);
        s->epoch = 0;
    }
    lookback_args<T> a = { s->tiles_x, s->strips, d->pw, (T *)s->row_agg, (T *)s->row_inc, (T *)s->col_agg,
                           (T *)s->col_inc, s->row_flag, s->col_flag, s->ticket, s->next_ticket, ++s->epoch };
    s->next_ticket += blocks;
    lookback_sat<Op><<<blocks, LB_THREADS, 0, d->stream>>>(load, a, out);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the variant ------------------------------------------------------------------- */

struct rung_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    lookback_scratch chains;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(rung_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    return lookback_scratch_init(&s->chains, &s->dev, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    GlobalLoader load = { s->dev.in, s->dev.pw };
    sb_status st = lookback_table<SumOp>(&s->dev, &s->chains, load, s->dev.sum, err);
    if (!st && s->dev.squares)
        st = lookback_table<SquareOp>(&s->dev, &s->chains, load, s->dev.sq, err);
    return st;
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        lookback_scratch_release(&s->chains);
    integral_device_close(s);
}

SB_CUDA_RUNG("integral", "cuda-lookback", "cuda-pdl", "cuda-shared", 0,
             "one pass: carries by decoupled look-back instead of a grid-wide carry scan (a branch that loses)",
             rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
