/* 8_halo.cu - GrabCut's tiled cut with the halo settled once a launch
 * (variant "cuda-halo" of grabcut-maxflow and the pipeline).
 *
 * Grows from cuda-ilp.  The idea: no global memory inside the rounds.  A
 * push from a border node into the halo adds to the halo node's reverse
 * residual, which lives in global memory (the halo node is another
 * tile's); cuda-ilp does that read-modify-write in the round, and the
 * round's barrier waits for it: a trip to L2 in every round in which a
 * border node pushes out.  But a halo node pushes nothing back during the
 * launch (its tile is idle), so what went out along a border node's edge
 * is exactly what that edge's residual lost between the load and the
 * write-back.  Here the rounds only touch the shared copies, and the
 * write-back settles each halo node's reverse residual once, from the
 * residual's old value still in global memory: one trip a launch instead
 * of one a round.  The same pushes, the same sweeps, the same cut.
 *
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

GC_CUDA_OPS(maxflow_halo, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline_halo, GC_PIPELINE, graph_cut, gc_block_sums)

SB_VARIANT("grabcut-maxflow", "cuda-halo", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "cuda-ilp's cut with no global memory in the rounds: the halo's residuals settled once a launch",
           maxflow_halo_prepare, maxflow_halo_upload, maxflow_halo_run, maxflow_halo_fetch, maxflow_halo_release)
SB_VARIANT("grabcut", "cuda-halo", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "cuda-ilp with the halo's residuals settled once a launch, not in every round",
           pipeline_halo_prepare, pipeline_halo_upload, pipeline_halo_run, pipeline_halo_fetch, pipeline_halo_release)
SB_RUNG("grabcut-maxflow", "cuda-halo", "cuda-ilp", "no global memory in the rounds: the halo's residuals settled once a launch")
SB_RUNG("grabcut", "cuda-halo", "cuda-ilp", "no global memory in the rounds: the halo's residuals settled once a launch")
