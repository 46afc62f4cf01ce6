/* 8_halo.cu - cuda-halo of the pipeline and grabcut-maxflow.  Grows from
 * cuda-ilp.  The idea: no global memory inside the rounds: the pushes into
 * the halo are settled once, at write-back, from what the border edges lost.
 */
#include "3_tiles.cuh"
#include "5_graph.cuh"
#include "gc_rounds.cuh"

#define TILE GC_TILE
#define TILE_ROUNDS 8

/* ---- local rounds in one colour's tiles ---- */

static __global__ void __launch_bounds__(TILE *TILE) tile_rounds(tile_net t, int cx, int cy)
{
    __shared__ gc_halo_plane hs, inflow;
    __shared__ int32_t hn[TILE][TILE];
    __shared__ gc_tile_residuals rs;
    gc_tile_node at;
    if (!gc_tile_enter(t, cx, cy, at))
        return;
    int32_t e, sink;
    gc_tile_load(t, at, hs, inflow, rs, e, sink);
    for (int round = 0; round < TILE_ROUNDS; round++) {
        int32_t h = hs[at.ty + 1][at.tx + 1], hq[SB_MF_DIRS];
        gc_ilp_heights(hs, at, hq);
        gc_halo_push(at, h, hq, rs, inflow, e, sink);
        __syncthreads();
        int active;
        int32_t nh = gc_ilp_relabel(at, h, hq, rs, inflow, e, sink, active);
        hn[at.ty][at.tx] = nh;
        __syncthreads();
        hs[at.ty + 1][at.tx + 1] = hn[at.ty][at.tx];
        if (!__syncthreads_or(active))
            break;
    }
    gc_halo_store(t, at, hs, rs, e, sink);
    gc_tile_settle(t, at, inflow);
}

/* ---- the variants: cuda-halo's rounds in cuda-graph's loop ---- */

static const gc_tile_kernels halo_kernels = { gc_tiles_bfs_start, gc_tiles_bfs, gc_colour_sweep<tile_rounds>, nullptr, 8 };

GC_GRAPH_CUT(graph_cut, halo_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-halo", "cuda-ilp", "cuda-shared", SB_GRAPH_LOOP,
             "no global memory in the rounds: the halo's residuals settled once a launch",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-halo", "cuda-ilp", "cuda-shared", SB_GRAPH_LOOP,
             "no global memory in the rounds: the halo's residuals settled once a launch",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
