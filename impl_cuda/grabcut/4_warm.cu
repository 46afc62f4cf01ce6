/* 4_warm.cu - cuda-warm of the pipeline.  Grows from cuda-tiles.  The idea: a
 * later cut starts from the residual network the cut before left, repaired
 * where the t-links changed, since GrabCut's iterations change them a little.
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

GC_CUDA_OPS(maxflow, GC_MAXFLOW, warm_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, warm_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-warm", "cuda-tiles", "cuda-shared", 0,
             "the warm start carried along: a single cut starts from zero flow, as in cuda-tiles (a step for cuda-graph)",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-warm", "cuda-tiles", "cuda-shared", 0,
             "cuts 2-5 warm-started: the last cut's flow kept, only t-link residuals repaired",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
