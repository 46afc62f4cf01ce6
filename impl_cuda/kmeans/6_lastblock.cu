/* 6_lastblock.cu - k-means, one kernel a pass (variant "cuda-lastblock";
 * it was "cuda-shared").
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
    return km_quad_grid<GlobalLoader>(&s->dev, &s->blocks, err);
}

static sb_status rung_pass(rung_state *s, int first_pass, sb_error *err)
{
    GlobalLoader load = { s->dev.rgb };
    return km_quad_launch(&s->dev, load, s->blocks, first_pass, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    return km_run_passes(&s->dev, [s](int first_pass, sb_error *e) { return rung_pass(s, first_pass, e); }, err);
}

SB_VARIANT("kmeans", "cuda-lastblock", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-quad with the update in the block that finishes last: one launch a pass",
           rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
SB_RUNG("kmeans", "cuda-lastblock", "cuda-quad",
        "the update in the block that finishes last (a fence, then a ticket): one launch a pass")
