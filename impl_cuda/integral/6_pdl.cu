/* 6_pdl.cu - tiled integral image whose kernels overlap by programmatic
 * dependent launch (variant "cuda-pdl"; it was "cuda-shared").
 *
 * Grows from cuda-inflight.  The idea: a kernel launched with programmatic
 * stream serialization (Hopper, sm_90+) may start while the one before it
 * is still running; it must wait (griddepcontrol.wait) before touching
 * what that kernel writes, and the kernel before lets it start early
 * (griddepcontrol.launch_dependents).  Here it hides two launch gaps and
 * lets tile_sat fetch its pixels while carry_scan is still running.  On
 * older GPUs the launches fall back to plain stream order.  What it
 * bought: segbench lesson integral/cuda-pdl, and the A/B of NOTES.md.
 *
 * The tiles, the carries and the scans are cuda-inflight's (5_inflight.cu
 * explains them).  The kernels are in 6_pdl_tiles.cuh, because
 * cuda-texture runs them with another loader; the two halves of the
 * launch are in 6_pdl.cuh, because every rung after this one uses them.
 *
 */
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

SB_VARIANT("integral", "cuda-pdl", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-inflight with its three kernels overlapped by programmatic dependent launch",
           rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
SB_RUNG("integral", "cuda-pdl", "cuda-inflight",
        "programmatic dependent launch: each kernel starts while the one before drains")
