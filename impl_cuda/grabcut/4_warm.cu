/* 4_warm.cu - GrabCut's tiled cut, warm-started (variant "cuda-warm" of
 * the pipeline).
 *
 * Against cuda-tiles: only where a cut starts.  GrabCut's iterations
 * change the t-links a little and the n-links not at all (they depend on
 * the image and beta only), so the flow the last cut found is most of the
 * next one.  The first cut starts from zero flow, as before; every later
 * one keeps the residual network the cut before left -- the flow on every
 * n-link, the excess stuck on the source side -- and repairs it node by
 * node where the t-link changed (tiles_start's tile_rewarm: maxflow.h's
 * sb_mf_rewarm, Kohli and Torr's repair for dynamic graph cuts).  The heights are not
 * kept: the loop's first global relabel sets them from the repaired
 * network, as it does for a cold start.
 *
 * Why the answer is still exact: the repaired network is a valid preflow
 * of the new graph with some d >= 0 added to both terminal capacities of
 * a node, which adds d to every cut; so the maximum preflow found from it
 * has the new graph's minimum cuts and canonical cut, and its flow less
 * the d's is the new graph's flow, which sb_mf_sink_flow's sum counts.
 * tests/test_grabcut.c runs the host's rounds from stale flows against
 * brute force and Edmonds-Karp; test_gpu checks every iteration's flow
 * and the final mask of this rung against the serial reference.
 *
 * Pipeline only: the grabcut-maxflow step is one cut from zero flow,
 * which is cuda-tiles'.
 */
#include "tile_cut.cuh"

static sb_status warm_prepare(gc_dev *d, sb_error *err)
{
    sb_status st = tiles_prepare(d, err);
    if (st)
        return st;
    tiles_state *s = (tiles_state *)d->cut_state;
    SB_CUDA_TRY(cudaMalloc(&s->last_term, sizeof(int32_t) * (size_t)d->n), err, d->who);
    return SB_OK;
}

/* The first cut from zero flow, the later ones from the last one's. */
static sb_status warm_solve(gc_dev *d, int it, sb_error *err)
{
    sb_status st = tiles_start(d, it, err);
    return st ? st : tiles_loop(d, it, err);
}

static const gc_cut warm_cut = { warm_prepare, warm_solve, tiles_release, 1 };

GC_CUDA_OPS(pipeline_warm, GC_PIPELINE, warm_cut)

SB_VARIANT("grabcut", "cuda-warm", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tiles with cuts 2-5 warm-started: the last cut's flow kept, t-link residuals repaired",
           pipeline_warm_prepare, pipeline_warm_upload, pipeline_warm_run, pipeline_warm_fetch, pipeline_warm_release)
SB_RUNG("grabcut", "cuda-warm", "cuda-tiles", "cuts 2-5 warm-started: the last cut's flow kept, only t-link residuals repaired")
