/* 15_bfs32.cu - cuda-bfs32 of the pipeline and grabcut-maxflow.  A branch of
 * cuda-warpsums.  The idea: the global relabel in 32x32 tiles, which carry
 * distances twice as far a launch, so a relabel needs about half the
 * launches. */
#include "../grabcut-models/3_warpsums.cuh"
#include "5_graph.cuh"
#include "10_settled.cuh"
#include "11_tally.cuh"

#define BFS_TILE 32                      /* the relabel's tiles */

/* ---- the global relabel's launches, in 32x32 tiles ---- */

/* Launch `slot`: skipped when launch slot - 1 changed nothing, and in a
 * tile when neither it nor a neighbour changed anything since. */
static __global__ void __launch_bounds__(BFS_TILE *BFS_TILE) tile_bfs(tile_net t, int *changed, bfs_tiles bt, int slot)
{
    gc_settled_tile_bfs<BFS_TILE>(t, changed, bt, slot);
}

static void bfs32(cudaStream_t s, const gc_loop &l, int slot)
{
    dim3 grid(sb_div_up(l.t.width, BFS_TILE), sb_div_up(l.t.height, BFS_TILE));
    bfs_tiles bt = { l.bfs_stamp, (long)grid.x * grid.y, &l.f->bfs_base };
    tile_bfs<<<grid, BFS_TILE * BFS_TILE, 0, s>>>(l.t, l.f->bfs, bt, slot);
}

/* ---- the variants: cuda-longer's kernels, but the relabel's launches ---- */

/* The relabel starts as cuda-settled's does: it stamps every 16x16 tile's
 * entry, more than there are 32x32 tiles (the stamps are allocated for
 * 16x16 ones), so every tile here is stamped too. */
static const gc_tile_kernels bfs32_kernels = { gc_settled_bfs_start, bfs32, gc_tally_sweep<16>, nullptr, 4 };

GC_GRAPH_CUT(graph_cut, bfs32_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_warp_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_warp_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-bfs32", "cuda-warpsums", "cuda-shared", SB_GRAPH_LOOP,
             "the global relabel in 32x32 tiles: distances carried twice as far a launch, half the launches",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-bfs32", "cuda-warpsums", "cuda-shared", SB_GRAPH_LOOP,
             "the global relabel in 32x32 tiles: distances carried twice as far a launch, half the launches",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
