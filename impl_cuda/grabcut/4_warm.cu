/* 4_warm.cu - GrabCut's tiled cut, warm-started (variant "cuda-warm" of
 * the pipeline).
 *
 * Grows from cuda-tiles.  The idea: where a cut starts.  GrabCut's iterations
 * change the t-links a little and the n-links not at all (they depend on
 * the image and beta only), so the flow the last cut found is most of the
 * next one.  The first cut starts from zero flow, as before; every later
 * one keeps the residual network the cut before left -- the flow on every
 * n-link, the excess stuck on the source side -- and repairs it node by
 * node where the t-link changed (gc_warm_start's tile_rewarm: maxflow.h's
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
 * The grabcut-maxflow step is one cut from zero flow, so there this rung
 * is cuda-tiles with the repair carried along, never run (its times are
 * cuda-tiles'): the step its ladder takes to cuda-graph, which keeps the
 * repair.
 *
 */
#include "3_tiles.cuh"
#include "4_warm.cuh"

/* A warm start's repair: node p's excess and sink residual
 * moved from the t-links the flow was for to the new ones. */
static __global__ void tile_rewarm(tile_net t, int32_t *last_term, const int32_t *term)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= t.n)
        return;
    sb_mf_rewarm(&t.excess[p], &t.sink[p], last_term[p], term[p]);
    last_term[p] = term[p];
}

sb_status gc_warm_start(gc_dev *d, int it, int32_t *last_term, gc_loop_flags *f, sb_error *err)
{
    (void)f;
    if (it > 0 && last_term) {
        tile_rewarm<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(gc_tile_net(d), last_term, d->term);
        SB_CUDA_LAUNCHED(err, d->who);
        return SB_OK;
    }
    sb_status st = gc_tiles_init(d, err);
    if (!st && last_term && gc_dev_cuts(d) > 1)
        SB_CUDA_TRY(cudaMemcpyAsync(last_term, d->term, sizeof(int32_t) * (size_t)d->n, cudaMemcpyDeviceToDevice,
                                    d->stream),
                    err, d->who);
    return st;
}

/* ---- the variants: cuda-tiles' loop, from a warm start ---- */

static sb_status warm_prepare(gc_dev *d, sb_error *err) { return gc_host_loop_prepare(d, 1, err); }

/* The first cut from zero flow, the later ones from the last one's. */
static sb_status warm_solve(gc_dev *d, int it, sb_error *err)
{
    sb_status st = gc_warm_start(d, it, ((gc_host_loop_state *)d->cut_state)->last_term, nullptr, err);
    return st ? st : gc_host_loop_run(d, it, err);
}

static const gc_cut warm_cut = { warm_prepare, warm_solve, gc_host_loop_release, 1 };

GC_CUDA_OPS(maxflow_warm, GC_MAXFLOW, warm_cut, gc_block_sums)
GC_CUDA_OPS(pipeline_warm, GC_PIPELINE, warm_cut, gc_block_sums)

SB_VARIANT("grabcut-maxflow", "cuda-warm", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tiles carrying the warm start along: a single cut starts from zero flow, so it never runs",
           maxflow_warm_prepare, maxflow_warm_upload, maxflow_warm_run, maxflow_warm_fetch, maxflow_warm_release)
SB_VARIANT("grabcut", "cuda-warm", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tiles with cuts 2-5 warm-started: the last cut's flow kept, t-link residuals repaired",
           pipeline_warm_prepare, pipeline_warm_upload, pipeline_warm_run, pipeline_warm_fetch, pipeline_warm_release)
SB_RUNG("grabcut-maxflow", "cuda-warm", "cuda-tiles",
        "the warm start carried along: a single cut starts from zero flow, as in cuda-tiles (a step for cuda-graph)")
SB_RUNG("grabcut", "cuda-warm", "cuda-tiles", "cuts 2-5 warm-started: the last cut's flow kept, only t-link residuals repaired")
