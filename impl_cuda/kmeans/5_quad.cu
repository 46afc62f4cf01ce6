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

#include <cstdlib>

struct quad_scratch {
    unsigned blocks;
};

static sb_status quad_setup(km_device *d, sb_error *err)
{
    quad_scratch *s = (quad_scratch *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->scratch = s;
    return km_quad_grid<GlobalLoader, false>(d, &s->blocks, err);
}

static sb_status quad_pass(km_device *d, int first_pass, sb_error *err)
{
    GlobalLoader load = { d->rgb };
    sb_status st = km_quad_launch<GlobalLoader, false>(d, load, ((quad_scratch *)d->scratch)->blocks, first_pass,
                                                       err);
    if (st)
        return st;
    km_finish_kernel<<<1, 1024, 0, d->stream>>>(d->params.k, !d->params.fixed, d->sums, d->centres, d->prepped,
                                               d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static void quad_teardown(km_device *d) { free(d->scratch); }

static const km_hooks quad_hooks = { quad_setup, quad_pass, quad_teardown };

static sb_status quad_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return km_cuda_prepare(&quad_hooks, state, in, params, output, exec, err);
}

SB_VARIANT("kmeans", "cuda-quad", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-warpsums with 4 pixels a thread: word loads, one centre read for 4 pixels",
           quad_prepare, km_cuda_upload, km_cuda_run, km_cuda_fetch, km_cuda_release)
