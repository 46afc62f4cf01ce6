/* 9_labels16.cu - cuda-labels16.  A branch of cuda-rows.  The idea:
 * cuda-rows' kernels, with the labels narrowed to 16 bits on the device so
 * the fetch moves half the bytes. */
#include "8_rows.cuh"

enum { LABELS16_MAX = 65536, NARROW_THREADS = 256 };

struct labels16_device {
    slic_device d;                   /* first: the shared state */
    uint16_t *labels16;              /* the labels, narrowed for the fetch */
};

/* Every label fits: the prepare and the fetch made sure. */
static __global__ void slic_narrow_labels(unsigned n, const int32_t *labels, uint16_t *labels16)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        labels16[i] = (uint16_t)labels[i];
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_slic_geometry g;
    sb_status st = sb_slic_geometry_init(&g, in->width, in->height, (const sb_slic_params *)params, err);
    if (st)
        return st;
    if (g.centres > LABELS16_MAX)      /* before connectivity, a label is a centre's number */
        return sb_fail(err, SB_ERR_LIMIT, "%s: %d centres, and 16-bit labels hold at most %d", exec->who,
                       g.centres, LABELS16_MAX);
    st = slic_device_open(state, sizeof(labels16_device), in, params, output, exec, err);
    if (st)
        return st;
    labels16_device *s = (labels16_device *)*state;
    SB_CUDA_TRY(cudaMalloc(&s->labels16, (size_t)s->d.n * sizeof(uint16_t)), err, s->d.who);
    if (exec->poison)
        SB_CUDA_TRY(cudaMemsetAsync(s->labels16, 0xA5, (size_t)s->d.n * sizeof(uint16_t), s->d.stream), err,
                    s->d.who);
    return slic_rows_allow_shared(&s->d, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    labels16_device *s = (labels16_device *)state;
    slic_device *d = &s->d;
    GlobalColour load = { d->colour };
    sb_status st = slic_run(d, [&](sb_error *e) { return slic_rows_iterate(d, load, e); }, err);
    if (st)
        return st;
    slic_narrow_labels<<<sb_div_up(d->n, NARROW_THREADS), NARROW_THREADS, 0, d->stream>>>(d->n, d->labels,
                                                                                        s->labels16);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* slic_cuda_fetch with the labels in 16 bits: half the bytes. */
static sb_status rung_fetch(void *state, sb_error *err)
{
    labels16_device *s = (labels16_device *)state;
    slic_device *d = &s->d;
    sb_slic_out *out = d->host_out;
    SB_CUDA_TRY(cudaMemcpyAsync(out->labels16, s->labels16, (size_t)d->n * sizeof(uint16_t), cudaMemcpyDeviceToHost,
                                d->stream),
                err, d->who);
    sb_status st = slic_fetch_centres(d, err);
    if (st)
        return st;
    if (out->superpixels > LABELS16_MAX)  /* connectivity numbers pieces afresh: more pieces than centres */
        return sb_fail(err, SB_ERR_LIMIT, "%s: %d superpixels, and 16-bit labels hold at most %d", d->who,
                       out->superpixels, LABELS16_MAX);
    return SB_OK;
}

static void rung_release(void *state)
{
    labels16_device *s = (labels16_device *)state;
    if (s)
        cudaFree(s->labels16);
    slic_device_close(state);
}

SB_CUDA_RUNG("slic", "cuda-labels16", "cuda-rows", "cuda-shared", SB_NARROW,
             "the labels cross the bus in 16 bits, the smallest type that holds them: half the fetch",
             rung_prepare, slic_cuda_upload, rung_run, rung_fetch, rung_release)
