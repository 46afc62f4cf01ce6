/* 5_quad.cu - k-means with 4 pixels a thread (variant "cuda-quad").
 *
 * Against cuda-warpsums: each thread takes a quad of 4 pixels, 3 aligned
 * words of the packed image, and writes one word of 4 labels; one read of
 * each centre serves the 4 pixels; changed labels are counted 4 at a time
 * and once per warp; a quad of one label joins the warp's sums as one
 * value.  The kernel is quad_pass.cuh's with OneLaunch = false, so the
 * update is still a second launch, as in cuda-warpsums.
 * What it should buy: fewer instructions per pixel -- the kernel is bound
 * by instruction issue once the atomics are aggregated.
 * What it bought on the H100 (fixed10, 3840x2160, 10 passes, run
 * 20261123T005616Z-820e): 1.17 -> 0.720 ms, 1.63x.
 */
#include "quad_pass.cuh"

struct rung_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    unsigned blocks;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = km_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    return km_quad_grid<GlobalLoader, false>(&s->dev, &s->blocks, err);
}

static sb_status rung_pass(rung_state *s, int first_pass, sb_error *err)
{
    km_device *d = &s->dev;
    GlobalLoader load = { d->rgb };
    sb_status st = km_quad_launch<GlobalLoader, false>(d, load, s->blocks, first_pass, err);
    if (st)
        return st;
    km_finish_kernel<<<1, 1024, 0, d->stream>>>(d->params.k, !d->params.fixed, d->sums, d->centres, d->prepped,
                                               d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    return km_run_passes(&s->dev, [s](int first_pass, sb_error *e) { return rung_pass(s, first_pass, e); }, err);
}

SB_VARIANT("kmeans", "cuda-quad", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-warpsums with 4 pixels a thread: word loads, one centre read for 4 pixels",
           rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
SB_RUNG("kmeans", "cuda-quad", "cuda-warpsums",
        "4 pixels a thread: word loads, one centre read for 4 pixels, a quad of one label added as one value")
