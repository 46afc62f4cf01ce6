/* integral_device.cu - buffers and plumbing shared by the CUDA integral
 * variants (see integral_device.cuh). */
#include "integral_device.cuh"

#include <cstdlib>
#include <cstring>

static int round_up(int v, int m) { return (v + m - 1) / m * m; }

sb_status integral_device_open(void **state, size_t state_size, integral_outputs outputs, const sb_image *in,
                               const void *params, void *output, const sb_exec *exec, sb_error *err)
{
    const char *who = exec->who;
    integral_device *d = (integral_device *)(*state = calloc(1, state_size));
    if (!d)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", who);
    d->who = who;
    d->width = in->width;
    d->height = in->height;
    d->pw = round_up(in->width, INTEGRAL_PAD_X);
    d->ph = round_up(in->height, INTEGRAL_PAD_Y);
    d->squares = ((const sb_integral_params *)params)->squares;
    d->poison = exec->poison;
    d->stream = (cudaStream_t)exec->stream;
    d->host_in = in;
    d->host_out = (sb_integral_out *)output;
    if (in->channels != 1)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs a grey input, got %d channels", who, in->channels);

    size_t n = (size_t)d->pw * (size_t)d->ph;
    SB_CUDA_TRY(cudaMalloc(&d->in, n), err, who);
    SB_CUDA_TRY(cudaMemsetAsync(d->in, 0, n, d->stream), err, who);   /* the padding, once */
    if (outputs == INTEGRAL_OWN_OUTPUTS)
        return SB_OK;

    SB_CUDA_TRY(cudaMalloc(&d->sum, n * sizeof *d->sum), err, who);
    if (d->poison)
        SB_CUDA_TRY(cudaMemsetAsync(d->sum, 0xA5, n * sizeof *d->sum, d->stream), err, who);
    if (d->squares) {
        SB_CUDA_TRY(cudaMalloc(&d->sq, n * sizeof *d->sq), err, who);
        if (d->poison)
            SB_CUDA_TRY(cudaMemsetAsync(d->sq, 0xA5, n * sizeof *d->sq, d->stream), err, who);
    }
    return SB_OK;
}

void integral_device_close(void *state)
{
    integral_device *d = (integral_device *)state;
    if (!d)
        return;
    cudaFree(d->in);
    cudaFree(d->sum);
    cudaFree(d->sq);
    free(d);
}

sb_status integral_cuda_upload(void *state, sb_error *err)
{
    integral_device *d = (integral_device *)state;
    const sb_image *in = d->host_in;
    SB_CUDA_TRY(cudaMemcpy2DAsync(d->in, (size_t)d->pw, in->data, in->stride, (size_t)in->width,
                                  (size_t)in->height, cudaMemcpyHostToDevice, d->stream),
                err, d->who);
    return SB_OK;
}

sb_status integral_cuda_fetch(void *state, sb_error *err)
{
    integral_device *d = (integral_device *)state;
    sb_integral_out *out = d->host_out;
    size_t w = (size_t)d->width, h = (size_t)d->height, pw = (size_t)d->pw;
    SB_CUDA_TRY(cudaMemcpy2DAsync(out->sum, w * sizeof *out->sum, d->sum, pw * sizeof *d->sum,
                                  w * sizeof *out->sum, h, cudaMemcpyDeviceToHost, d->stream),
                err, d->who);
    if (d->squares)
        SB_CUDA_TRY(cudaMemcpy2DAsync(out->sqsum, w * sizeof *out->sqsum, d->sq, pw * sizeof *d->sq,
                                      w * sizeof *out->sqsum, h, cudaMemcpyDeviceToHost, d->stream),
                    err, d->who);
    SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
    return SB_OK;
}

/* ---- the tile rungs' scratch ---- */

template <class T>
static sb_status tile_carries_alloc(tile_carries<T> *c, const integral_device *d, sb_error *err)
{
    c->pw = d->pw;
    c->ph = d->ph;
    c->tiles_x = d->pw / TILE_W;
    c->tiles_y = d->ph / TILE_H;
    SB_CUDA_TRY(cudaMalloc(&c->column, (size_t)c->tiles_y * c->pw * sizeof(T)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&c->row, (size_t)c->tiles_x * c->ph * sizeof(T)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&c->tile, (size_t)c->tiles_y * c->tiles_x * sizeof(T)), err, d->who);
    return SB_OK;
}

template <class T>
static void tile_carries_free(tile_carries<T> *c)
{
    cudaFree(c->column);
    cudaFree(c->row);
    cudaFree(c->tile);
}

sb_status tiled_scratch_init(tiled_scratch *s, const integral_device *d, sb_error *err)
{
    sb_status st = tile_carries_alloc(&s->sum, d, err);
    if (!st && d->squares)
        st = tile_carries_alloc(&s->sq, d, err);
    return st;
}

void tiled_scratch_release(tiled_scratch *s)
{
    tile_carries_free(&s->sum);
    tile_carries_free(&s->sq);
}

/* ---- the strip rungs' scratch ---- */

template <class T>
static sb_status strip_carries_alloc(strip_carries<T> *c, const integral_device *d, int strip_rows, sb_error *err)
{
    c->pw = d->pw;
    c->strips = d->ph / strip_rows;
    SB_CUDA_TRY(cudaMalloc(&c->column, (size_t)c->strips * c->pw * sizeof(T)), err, d->who);
    return SB_OK;
}

sb_status strip_scratch_init(strip_scratch *s, const integral_device *d, int strip_rows, sb_error *err)
{
    sb_status st = strip_carries_alloc(&s->sum, d, strip_rows, err);
    if (!st && d->squares)
        st = strip_carries_alloc(&s->sq, d, strip_rows, err);
    return st;
}

void strip_scratch_release(strip_scratch *s)
{
    cudaFree(s->sum.column);
    cudaFree(s->sq.column);
}
