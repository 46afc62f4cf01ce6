/* 6_pdl.cu - cuda-pdl (formerly cuda-shared).  Grows from cuda-inflight.  The
 * idea: programmatic dependent launch (sm_90+) lets a kernel start while the
 * one before it drains. */
#include "6_pdl_tiles.cuh"

/* ---- the variant ------------------------------------------------------------------- */

struct rung_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    tiled_scratch carries;
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
    return tiled_scratch_init(&s->carries, &s->dev, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    integral_device *d = &s->dev;
    GlobalLoader load = { d->in, d->pw };
    sb_status st = tiled_table<SumOp>(d, load, s->carries.sum, d->sum, s->overlap, err);
    if (!st && d->squares)
        st = tiled_table<SquareOp>(d, load, s->carries.sq, d->sq, s->overlap, err);
    return st;
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        tiled_scratch_release(&s->carries);
    integral_device_close(s);
}

SB_CUDA_RUNG("integral", "cuda-pdl", "cuda-inflight", "cuda-shared", 0,
             "programmatic dependent launch: each kernel starts while the one before drains",
             rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
