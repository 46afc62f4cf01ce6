/* 10_settled.cu - cuda-settled of the pipeline and grabcut-maxflow.  Grows
 * from cuda-inplace.  The idea: a global relabel launch runs only the tiles
 * whose halo changed; a settled tile cannot change. */
#include "5_graph.cuh"
#include "9_inplace.cuh"
#include "10_settled.cuh"

#define TILE GC_TILE

/* ---- the global relabel ---- */

static bfs_tiles settled_tiles(const gc_loop &l)
{
    bfs_tiles bt = { l.bfs_stamp, (long)sb_div_up(l.t.width, TILE) * sb_div_up(l.t.height, TILE), &l.f->bfs_base };
    return bt;
}

static __global__ void tile_bfs_init(tile_net t, int *changed, bfs_tiles bt)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p < t.n)
        t.h[p] = t.sink[p] > 0 ? 1 : SB_MF_INF;
    if (p < bt.count)
        bt.stamp[p] = *bt.base;                 /* as if changed just before launch 1: it runs every tile */
    if (p == 0)
        changed[0] = 1;
}

/* Launch `slot`: skipped when launch slot - 1 changed nothing, and in a
 * tile when neither it nor a neighbour changed anything since. */
static __global__ void __launch_bounds__(TILE *TILE) tile_bfs(tile_net t, int *changed, bfs_tiles bt, int slot)
{
    gc_settled_tile_bfs<TILE>(t, changed, bt, slot);
}

void gc_settled_bfs_start(cudaStream_t s, const gc_loop &l)
{
    tile_bfs_init<<<gc_blocks(l.d), GC_BLOCK, 0, s>>>(l.t, l.f->bfs, settled_tiles(l));
}

void gc_settled_bfs(cudaStream_t s, const gc_loop &l, int slot)
{
    dim3 grid(sb_div_up(l.t.width, TILE), sb_div_up(l.t.height, TILE));
    tile_bfs<<<grid, TILE * TILE, 0, s>>>(l.t, l.f->bfs, settled_tiles(l), slot);
}

/* ---- the variants: this relabel and cuda-inplace's rounds in cuda-graph's loop ---- */

static const gc_tile_kernels settled_kernels = { gc_settled_bfs_start, gc_settled_bfs, gc_inplace_sweep, nullptr, 8 };

GC_GRAPH_CUT(graph_cut, settled_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-settled", "cuda-inplace", "cuda-shared", SB_GRAPH_LOOP,
             "the global relabel skips settled tiles: a tile runs when it or a neighbour changed",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-settled", "cuda-inplace", "cuda-shared", SB_GRAPH_LOOP,
             "the global relabel skips settled tiles: a tile runs when it or a neighbour changed",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
