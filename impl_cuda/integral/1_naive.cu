/* 1_naive.cu - integral image, one thread a row, then one a column
 * (cuda-naive, the root). */
#include "integral_device.cuh"

template <class Op>
static __global__ void naive_rows(const uint8_t *in, typename Op::T *out, int pitch, int width, int height)
{
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= height)
        return;
    typename Op::T run = 0;
    for (int x = 0; x < width; x++) {
        run += Op::of(in[(size_t)y * pitch + x]);
        out[(size_t)y * pitch + x] = run;
    }
}

template <class T>
static __global__ void naive_columns(T *out, int pitch, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width)
        return;
    T run = 0;
    for (int y = 0; y < height; y++) {
        run += out[(size_t)y * pitch + x];
        out[(size_t)y * pitch + x] = run;
    }
}

template <class Op>
static sb_status rung_table(integral_device *d, typename Op::T *out, sb_error *err)
{
    const int threads = 128;
    naive_rows<Op><<<sb_div_up(d->height, threads), threads, 0, d->stream>>>(d->in, out, d->pw,
                                                                              d->width, d->height);
    SB_CUDA_LAUNCHED(err, d->who);
    naive_columns<<<sb_div_up(d->width, threads), threads, 0, d->stream>>>(out, d->pw, d->width,
                                                                           d->height);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return integral_device_open(state, sizeof(integral_device), INTEGRAL_SHARED_OUTPUTS, in, params, output,
                                exec, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    integral_device *d = (integral_device *)state;
    sb_status st = rung_table<SumOp>(d, d->sum, err);
    if (!st && d->squares)
        st = rung_table<SquareOp>(d, d->sq, err);
    return st;
}

SB_CUDA_RUNG("integral", "cuda-naive", NULL, "cuda-global", 0,
             "the root: one thread a row, then one thread a column, straight through global memory",
             rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, integral_device_close)
