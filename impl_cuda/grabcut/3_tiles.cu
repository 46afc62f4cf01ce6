/* 3_tiles.cu - GrabCut's max-flow in shared-memory tiles (variant
 * "cuda-tiles" of grabcut-maxflow and the pipeline; it was "cuda-shared").
 *
 * Against cuda-global: only the cut differs; the per-pixel steps are the
 * same (gc_device.cu).  What a tile buys: a block loads a 16x16 tile -- its nodes' residuals,
 * excess and heights, and its neighbours' heights (the halo) -- and runs
 * up to TILE_ROUNDS push/relabel rounds in shared memory, with
 * __syncthreads() between phases instead of a grid-wide barrier, before
 * writing back.  Excess travels up to TILE_ROUNDS steps a launch.
 *
 * Why it stays correct: tiles run in four colours by (tile x % 2, tile y
 * % 2), one colour a launch, so no two running tiles touch: a halo node
 * belongs to a tile that is idle now, its height is constant for the
 * launch (relabels inside the tile read it safely), and pushes into it
 * only add to its excess and to its one reverse residual, each written by
 * exactly one node of exactly one running tile.
 *
 * The global relabel is tiled too: a block relaxes distances inside its
 * tile until they settle (Bellman-Ford in shared memory), whole-grid
 * launches repeat until no tile changes anything; a launch after a quiet
 * one returns at once, so launches are enqueued in batches and the flag
 * is read once a batch.  "Rounds" for this variant count sweeps (four
 * colour launches each), which is not comparable to cuda-global's rounds.
 */
#include "tile_cut.cuh"

/* Every cut from zero flow. */
static sb_status tiles_solve(gc_dev *d, int it, sb_error *err)
{
    sb_status st = tiles_start(d, it, err);
    return st ? st : tiles_loop(d, it, err);
}

static const gc_cut tiles_cut = { tiles_prepare, tiles_solve, tiles_release, 0 };

/* ---- the variants ---- */

GC_CUDA_OPS(maxflow_shared, GC_MAXFLOW, tiles_cut)
GC_CUDA_OPS(pipeline_shared, GC_PIPELINE, tiles_cut)

SB_VARIANT("grabcut-maxflow", "cuda-tiles", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "16x16 tiles in four colours, 8 push/relabel rounds a launch in shared memory; tiled BFS relabel",
           maxflow_shared_prepare, maxflow_shared_upload, maxflow_shared_run, maxflow_shared_fetch, maxflow_shared_release)
SB_VARIANT("grabcut", "cuda-tiles", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "the cuda-global steps with the tiled cut",
           pipeline_shared_prepare, pipeline_shared_upload, pipeline_shared_run, pipeline_shared_fetch, pipeline_shared_release)
SB_RUNG("grabcut-maxflow", "cuda-tiles", "cuda-global",
        "16x16 tiles in four colours: push/relabel rounds in shared memory between block barriers, not grid barriers")
SB_RUNG("grabcut", "cuda-tiles", "cuda-global", "the tiled cut (grabcut-maxflow's cuda-tiles) in the pipeline")
