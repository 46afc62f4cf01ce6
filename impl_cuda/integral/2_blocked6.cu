/* 2_blocked6.cu - cuda-blocked6, the source's blocked six-kernel scan, kept
 * faithfully.  Grows from cuda-naive.  The idea: every thread a few pixels of
 * work, not a whole row or column, so the GPU is full. */
#include "integral_device.cuh"

enum { BLOCK_LEN = 4, THREADS = 128 };

/* 1. scan 4 consecutive pixels of row y; ends[y][b] = their total */
template <class Op>
static __global__ void row_blocks(const uint8_t *in, typename Op::T *out, typename Op::T *ends, int pitch,
                           int blocks_per_row, int rows)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (b >= blocks_per_row || y >= rows)
        return;
    size_t at = (size_t)y * pitch + (size_t)b * BLOCK_LEN;
    typename Op::T run = 0;
    for (int k = 0; k < BLOCK_LEN; k++) {
        run += Op::of(in[at + k]);
        out[at + k] = run;
    }
    ends[(size_t)y * blocks_per_row + b] = run;
}

/* 2. and 5. inclusive scan of each line's block totals, one thread a line */
template <class T>
static __global__ void scan_ends(T *ends, int lines, int per_line, size_t line_stride, size_t elem_stride)
{
    int line = blockIdx.x * blockDim.x + threadIdx.x;
    if (line >= lines)
        return;
    T run = 0;
    for (int b = 0; b < per_line; b++) {
        T *e = ends + (size_t)line * line_stride + (size_t)b * elem_stride;
        run += *e;
        *e = run;
    }
}

/* 3. add the total of the blocks to the left of block b */
template <class T>
static __global__ void row_carry(T *out, const T *ends, int pitch, int blocks_per_row, int rows)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (b == 0 || b >= blocks_per_row || y >= rows)
        return;
    T carry = ends[(size_t)y * blocks_per_row + b - 1];
    size_t at = (size_t)y * pitch + (size_t)b * BLOCK_LEN;
    for (int k = 0; k < BLOCK_LEN; k++)
        out[at + k] += carry;
}

/* 4. scan 4 consecutive rows of column x; ends[b][x] = their total */
template <class T>
static __global__ void column_blocks(T *out, T *ends, int pitch, int columns, int blocks_per_column)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (x >= columns || b >= blocks_per_column)
        return;
    T run = 0;
    for (int k = 0; k < BLOCK_LEN; k++) {
        size_t at = (size_t)(b * BLOCK_LEN + k) * pitch + x;
        run += out[at];
        out[at] = run;
    }
    ends[(size_t)b * columns + x] = run;
}

/* 6. add the total of the blocks above block b */
template <class T>
static __global__ void column_carry(T *out, const T *ends, int pitch, int columns, int blocks_per_column)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (b == 0 || x >= columns || b >= blocks_per_column)
        return;
    T carry = ends[(size_t)(b - 1) * columns + x];
    for (int k = 0; k < BLOCK_LEN; k++)
        out[(size_t)(b * BLOCK_LEN + k) * pitch + x] += carry;
}

struct rung_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    void *ends;            /* block totals, sized for the larger (u64) type */
};

template <class Op>
static sb_status rung_table(integral_device *d, void *block_ends, typename Op::T *out, sb_error *err)
{
    typedef typename Op::T T;
    T *ends = (T *)block_ends;
    int w4 = (d->width + BLOCK_LEN - 1) / BLOCK_LEN * BLOCK_LEN;    /* pad to a multiple of 4 */
    int h4 = (d->height + BLOCK_LEN - 1) / BLOCK_LEN * BLOCK_LEN;
    int per_row = w4 / BLOCK_LEN, per_column = h4 / BLOCK_LEN;
    cudaStream_t s = d->stream;

    row_blocks<Op><<<dim3(sb_div_up(per_row, THREADS), h4), THREADS, 0, s>>>(d->in, out, ends, d->pw,
                                                                             per_row, h4);
    SB_CUDA_LAUNCHED(err, d->who);
    scan_ends<T><<<sb_div_up(h4, THREADS), THREADS, 0, s>>>(ends, h4, per_row, per_row, 1);
    SB_CUDA_LAUNCHED(err, d->who);
    row_carry<T><<<dim3(sb_div_up(per_row, THREADS), h4), THREADS, 0, s>>>(out, ends, d->pw, per_row, h4);
    SB_CUDA_LAUNCHED(err, d->who);

    column_blocks<T><<<dim3(sb_div_up(w4, THREADS), per_column), THREADS, 0, s>>>(out, ends, d->pw, w4,
                                                                                  per_column);
    SB_CUDA_LAUNCHED(err, d->who);
    scan_ends<T><<<sb_div_up(w4, THREADS), THREADS, 0, s>>>(ends, w4, per_column, 1, w4);
    SB_CUDA_LAUNCHED(err, d->who);
    column_carry<T><<<dim3(sb_div_up(w4, THREADS), per_column), THREADS, 0, s>>>(out, ends, d->pw, w4,
                                                                                 per_column);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(rung_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    integral_device *d = &s->dev;
    /* one total per 4 pixels, in rows or in columns: pw*ph/4 covers both */
    SB_CUDA_TRY(cudaMalloc(&s->ends, (size_t)d->pw * d->ph / BLOCK_LEN * sizeof(uint64_t)), err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    integral_device *d = &s->dev;
    sb_status st = rung_table<SumOp>(d, s->ends, d->sum, err);
    if (!st && d->squares)
        st = rung_table<SquareOp>(d, s->ends, d->sq, err);
    return st;
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        cudaFree(s->ends);
    integral_device_close(s);
}

SB_CUDA_RUNG("integral", "cuda-blocked6", "cuda-naive", "cuda-global", 0,
             "blocks of rows and columns, each block's ends scanned apart: the source's six kernels, coalesced",
             rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
