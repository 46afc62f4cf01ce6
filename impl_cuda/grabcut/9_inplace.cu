/* 9_inplace.cu - cuda-inplace of the pipeline and grabcut-maxflow.  Grows
 * from cuda-halo.  The idea: two barriers a round, not three: a node writes
 * its new height straight into the shared heights, as the round read its
 * neighbours' before the first barrier. */
#include "3_tiles.cuh"
#include "5_graph.cuh"
#include "9_inplace.cuh"
#include "gc_rounds.cuh"

#define TILE GC_TILE
#define TILE_ROUNDS 8

/* ---- local rounds in one colour's tiles ---- */

static __global__ void __launch_bounds__(TILE *TILE) tile_rounds(tile_net t, int cx, int cy)
{
    __shared__ gc_halo_plane hs, inflow;
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
        hs[at.ty + 1][at.tx + 1] = nh;     /* every read of hs[] this round came before the first barrier */
        if (!__syncthreads_or(active))
            break;
    }
    gc_halo_store(t, at, hs, rs, e, sink);
    gc_tile_settle(t, at, inflow);
}

/* The four colours' launches, then the active nodes counted. */
void gc_inplace_sweep(cudaStream_t s, const gc_loop &l, int sweep) { gc_colour_sweep<tile_rounds>(s, l, sweep); }

/* ---- the variants: cuda-inplace's rounds in cuda-graph's loop ---- */

static const gc_tile_kernels inplace_kernels = { gc_tiles_bfs_start, gc_tiles_bfs, gc_inplace_sweep, nullptr, 8 };

GC_GRAPH_CUT(graph_cut, inplace_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-inplace", "cuda-halo", "cuda-shared", SB_GRAPH_LOOP,
             "two barriers a round: new heights written in place, no staging array",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-inplace", "cuda-halo", "cuda-shared", SB_GRAPH_LOOP,
             "two barriers a round: new heights written in place, no staging array",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
