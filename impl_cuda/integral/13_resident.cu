/* 13_resident.cu - cuda-resident.  A branch of cuda-staged.  The idea: the
 * three kernels as three phases of one cooperative kernel, so each pixel is
 * read once and kept in shared memory across the grid barriers. */
#include "11_staged.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* Phase 2's scan, for the 32 columns col0.. of an [n][len] array m, in
 * place: m[i][j] becomes the sum of m[0..i-1][j].  The block's warps split
 * the rows into runs of up to SCAN_RUN; a round loads all its runs at
 * once, each warp sums its run, the run totals of each column are scanned
 * across the warps through shared memory, and each warp writes its run's
 * prefixes. */
enum { SCAN_RUN = 16 };

template <class T>
__device__ void scan_columns(T *m, int n, int len, int col0, int lane, int warp)
{
    __shared__ T run_total[STRIP_WARPS][33];      /* [run][column]; +1: no bank conflicts on the transpose */
    int col = col0 + lane;
    int run = min((int)SCAN_RUN, (n + STRIP_WARPS - 1) / STRIP_WARPS);   /* rows a warp */
    T carry[32 / STRIP_WARPS] = {};               /* column warp + j STRIP_WARPS summed above the round */
    for (int base = 0; base < n; base += STRIP_WARPS * run) {
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
        for (int j = 0; j < 32 / STRIP_WARPS; j++) {   /* each warp scans the runs of its columns */
            int column = warp + j * STRIP_WARPS;
            T t = lane < STRIP_WARPS ? run_total[lane][column] : T(0);
            T inclusive = warp_inclusive_scan(t, lane);
            if (lane < STRIP_WARPS)
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

/* The whole table.  kept: this block's strips' pixels, [strip k][row][group
 * of 16], when keep is set (dynamic shared memory). */
template <class Op>
static __global__ void __launch_bounds__(STRIP_THREADS) resident_sat(const uint8_t *in, strip_carries<typename Op::T> c,
                                                                      typename Op::T *out, int keep)
{
    typedef typename Op::T T;
    enum { ROWS = STRIP_ROWS + 1 };               /* row 0 here is U, row r + 1 the strip's row r */
    extern __shared__ uint4 kept[];
    __shared__ T part[ROWS][STRIP_WARPS], segment[ROWS];
    __shared__ row_stage<T> stage[STRIP_WARPS];
    cg::grid_group grid = cg::this_grid();
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int groups = c.pw / PIXELS;                   /* 16-pixel groups a row */

    /* Phase 1: read each strip once, keep it, write its column sums. */
    for (int s = blockIdx.x, k = 0; s < c.strips; s += gridDim.x, k++)
        for (int x0 = 0; x0 < c.pw; x0 += STRIP_SEGMENT) {
            int g = x0 / PIXELS + threadIdx.x;
            bool inside = g < groups;
            uint4 pixels[STRIP_ROWS];             /* all loads in flight before the first use */
#pragma unroll
            for (int r = 0; r < STRIP_ROWS; r++)
                pixels[r] = inside ? load16(in, c.pw, g * PIXELS, s * STRIP_ROWS + r) : make_uint4(0, 0, 0, 0);
            T col[PIXELS];
#pragma unroll
            for (int i = 0; i < PIXELS; i++) {
                col[i] = 0;
#pragma unroll
                for (int r = 0; r < STRIP_ROWS; r++)
                    col[i] += Op::of(pixel(pixels[r], i));
            }
            if (keep && inside)
#pragma unroll
                for (int r = 0; r < STRIP_ROWS; r++)
                    kept[(size_t)(k * STRIP_ROWS + r) * groups + g] = pixels[r];
            store_row_staged(stage[warp], col, c.column + (size_t)s * c.pw, x0 + warp * 32 * PIXELS, c.pw, lane);
        }
    grid.sync();                                  /* every strip's column sums are written */

    /* Phase 2: the column sums scanned down the strips: the carries U. */
    for (int col0 = blockIdx.x * 32; col0 < c.pw; col0 += gridDim.x * 32)
        scan_columns(c.column, c.strips, c.pw, col0, lane, warp);
    grid.sync();                                  /* every carry is ready */

    /* Phase 3: cuda-staged's strip_sat, a strip at a time. */
    for (int s = blockIdx.x, k = 0; s < c.strips; s += gridDim.x, k++) {
        int y0 = s * STRIP_ROWS;
        const T *above = c.column + (size_t)s * c.pw;
        T carry[ROWS];                            /* each row's sum left of the segment */
#pragma unroll
        for (int r = 0; r < ROWS; r++)
            carry[r] = 0;

        for (int x0 = 0; x0 < c.pw; x0 += STRIP_SEGMENT) {
            int x = x0 + threadIdx.x * PIXELS, g = x / PIXELS;
            bool inside = x < c.pw;               /* pw is a multiple of 16: all 16 or none */

            uint4 pixels[STRIP_ROWS];
#pragma unroll
            for (int r = 0; r < STRIP_ROWS; r++)
                pixels[r] = !inside ? make_uint4(0, 0, 0, 0)
                            : keep  ? kept[(size_t)(k * STRIP_ROWS + r) * groups + g]
                                    : load16(in, c.pw, x, y0 + r);
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
                store_row_staged(stage[warp], acc, out + (size_t)(y0 + r) * c.pw, x0 + warp * 32 * PIXELS, c.pw, lane);
                carry[r + 1] += segment[r + 1];
            }
            __syncthreads();                      /* part and segment are rewritten next segment */
        }
    }
}

/* The launch shape of one table: as many blocks as the GPU holds at once
 * (a cooperative launch needs them all resident), at most one a strip, and
 * the strips kept in shared memory when they fit. */
struct resident_shape {
    int blocks, keep;
    size_t kept_bytes;
};

template <class Op>
static sb_status resident_plan(resident_shape *shape, const integral_device *d, int strips, sb_error *err)
{
    int dev = 0, sms = 0, smem_max = 0, per_sm = 0;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), err, d->who);
    cudaFuncAttributes kernel;
    SB_CUDA_TRY(cudaFuncGetAttributes(&kernel, resident_sat<Op>), err, d->who);
    smem_max -= (int)kernel.sharedSizeBytes;      /* what a block may add to its static shared memory */
    SB_CUDA_TRY(cudaFuncSetAttribute(resident_sat<Op>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max),
                err, d->who);
    size_t strip_bytes = (size_t)STRIP_ROWS * d->pw;
    for (int per_block = 1; per_block <= 8; per_block++) {   /* the fewest strips a block that fit */
        size_t bytes = per_block * strip_bytes;
        int blocks = sb_div_up(strips, per_block);
        if (bytes > (size_t)smem_max)
            break;
        SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, resident_sat<Op>, STRIP_THREADS, bytes),
                    err, d->who);
        if (per_sm * sms >= blocks) {
            *shape = (resident_shape){ blocks, 1, bytes };
            return SB_OK;
        }
    }
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, resident_sat<Op>, STRIP_THREADS, 0), err,
                d->who);
    if (per_sm < 1)
        return sb_fail(err, SB_ERR_DEVICE, "%s: the kernel cannot run on this GPU (no block fits an SM)", d->who);
    *shape = (resident_shape){ per_sm * sms < strips ? per_sm * sms : strips, 0, 0 };
    return SB_OK;
}

template <class Op>
static sb_status resident_table(integral_device *d, const resident_shape &shape, strip_carries<typename Op::T> c,
                                typename Op::T *out, sb_error *err)
{
    cudaLaunchAttribute together = {};
    together.id = cudaLaunchAttributeCooperative;     /* all blocks resident: grid.sync is allowed */
    together.val.cooperative = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.stream = d->stream;
    cfg.attrs = &together;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(shape.blocks);
    cfg.blockDim = dim3(STRIP_THREADS);
    cfg.dynamicSmemBytes = shape.kept_bytes;
    SB_CUDA_TRY(cudaLaunchKernelEx(&cfg, resident_sat<Op>, (const uint8_t *)d->in, c, out, shape.keep), err,
                d->who);
    return SB_OK;
}

/* ---- the variant ------------------------------------------------------------------- */

struct rung_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    strip_scratch carries;
    resident_shape sum_shape, sq_shape;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(rung_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    st = strip_scratch_init(&s->carries, &s->dev, STRIP_ROWS, err);
    if (!st)
        st = resident_plan<SumOp>(&s->sum_shape, &s->dev, s->carries.sum.strips, err);
    if (!st && s->dev.squares)
        st = resident_plan<SquareOp>(&s->sq_shape, &s->dev, s->carries.sq.strips, err);
    return st;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    integral_device *d = &s->dev;
    sb_status st = resident_table<SumOp>(d, s->sum_shape, s->carries.sum, d->sum, err);
    if (!st && d->squares)
        st = resident_table<SquareOp>(d, s->sq_shape, s->carries.sq, d->sq, err);
    return st;
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        strip_scratch_release(&s->carries);
    integral_device_close(s);
}

SB_CUDA_RUNG("integral", "cuda-resident", "cuda-staged", "cuda-shared", 0,
             "one kernel, grid-wide barriers for kernel boundaries: each pixel read once, kept in shared memory",
             rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
