/* 6_shared.cu - k-means, one kernel a pass (variant "cuda-shared").
 *
 * Against cuda-quad: the update of the centres runs in the block that
 * finishes last (km_last_block: a fence, then a ticket), so a pass is one
 * launch instead of two.  What it should buy: one launch gap and one
 * kernel's ramp-up and tail a pass -- a few microseconds each, against a
 * pass of tens.  The kernel is quad_pass.cuh's with OneLaunch = true.
 * What it bought on the H100 (fixed10, 3840x2160, 10 passes, run
 * 20261123T005616Z-820e): 0.720 -> 0.690 ms, 1.04x: 3 us a pass.
 */
#include "quad_pass.cuh"

#include <cstdlib>

struct shared_scratch {
    unsigned blocks;
};

static sb_status shared_setup(km_device *d, sb_error *err)
{
    shared_scratch *s = (shared_scratch *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->scratch = s;
    return km_quad_grid<GlobalLoader>(d, &s->blocks, err);
}

static sb_status shared_pass(km_device *d, int first_pass, sb_error *err)
{
    GlobalLoader load = { d->rgb };
    return km_quad_launch(d, load, ((shared_scratch *)d->scratch)->blocks, first_pass, err);
}

static void shared_teardown(km_device *d) { free(d->scratch); }

static const km_hooks shared_hooks = { shared_setup, shared_pass, shared_teardown };

static sb_status shared_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    return km_cuda_prepare(&shared_hooks, state, in, params, output, exec, err);
}

SB_VARIANT("kmeans", "cuda-shared", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-quad with the update in the block that finishes last: one launch a pass",
           shared_prepare, km_cuda_upload, km_cuda_run, km_cuda_fetch, km_cuda_release)
