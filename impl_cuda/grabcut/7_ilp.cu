/* 7_ilp.cu - GrabCut's tiled cut with each round's loads issued
 * together (variant "cuda-ilp" of grabcut-maxflow and the pipeline).
 *
 * Grows from cuda-graph.  The idea: latency, hidden inside one thread.
 * Late in a cut a launch's time is the few tiles that still hold work,
 * each a handful of active nodes: nothing else runs, so a round takes as
 * long as the longest chain of waits of one thread.  cuda-graph's push
 * loop reads a neighbour's height, then (if it is one lower) the residual
 * toward it, then goes on to the next direction: up to sixteen shared
 * loads, each waited for before the next is issued, and the relabel as
 * many again.  Here a node reads its eight neighbours' heights into
 * registers when the round starts (they stay put until it ends) and its
 * eight residuals before each phase, every load unrolled and issued at
 * once, so each phase waits about one load's latency; the decisions that
 * follow are on registers.  An edge out of the image has no capacity
 * (maxflow.h: 0 at the border), so the loops need no bounds test.  The
 * pushes, their order and the relabels are cuda-graph's: the same sweeps,
 * the same cut.
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
    int tx = at.tx, ty = at.ty;
    int32_t e, sink;
    gc_tile_load(t, at, hs, inflow, rs, e, sink);
    for (int round = 0; round < TILE_ROUNDS; round++) {
        int32_t h = hs[ty + 1][tx + 1], hq[SB_MF_DIRS];
        gc_ilp_heights(hs, at, hq);
        /* phase A: push (maxflow.h's sb_mf_push, on the shared copy) */
        if (at.inside && e > 0 && h < SB_MF_INF) {
            int32_t c[SB_MF_DIRS];             /* the residuals toward the neighbours */
#pragma unroll
            for (int k = 0; k < SB_MF_DIRS; k++)
                c[k] = rs[k][ty][tx];
            if (h == 1 && sink > 0) {
                int32_t d = e < sink ? e : sink;
                sink -= d;
                e -= d;
            }
#pragma unroll
            for (int k = 0; k < SB_MF_DIRS; k++) {
                if (e <= 0 || hq[k] != h - 1 || c[k] <= 0)
                    continue;
                int qx = at.x + sb_mf_dx(k), qy = at.y + sb_mf_dy(k);
                int lx = tx + 1 + sb_mf_dx(k), ly = ty + 1 + sb_mf_dy(k);
                int32_t d = e < c[k] ? e : c[k];
                rs[k][ty][tx] = c[k] - d;
                if (lx >= 1 && lx <= TILE && ly >= 1 && ly <= TILE)
                    rs[k ^ 4][ly - 1][lx - 1] += d;              /* a tile node: its shared copy */
                else
                    t.r[(size_t)(k ^ 4) * t.n + (long)qy * t.width + qx] += d;   /* a halo node, idle tile */
                atomicAdd(&inflow[ly][lx], d);
                e -= d;
            }
        }
        __syncthreads();
        /* phase B: gather and relabel against this round's heights */
        int active;
        int32_t nh = gc_ilp_relabel(at, h, hq, rs, inflow, e, sink, active);
        hn[ty][tx] = nh;
        __syncthreads();
        hs[ty + 1][tx + 1] = hn[ty][tx];
        if (!__syncthreads_or(active))
            break;
    }
    gc_tiles_store(t, at, hs, rs, e, sink);
    gc_tile_settle(t, at, inflow);
}

/* ---- the variants: cuda-ilp's rounds in cuda-graph's loop ---- */

static const gc_tile_kernels ilp_kernels = { gc_tiles_bfs_start, gc_tiles_bfs, gc_colour_sweep<tile_rounds>, nullptr, 8 };

GC_GRAPH_CUT(graph_cut, ilp_kernels)

GC_CUDA_OPS(maxflow_ilp, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline_ilp, GC_PIPELINE, graph_cut, gc_block_sums)

SB_VARIANT("grabcut-maxflow", "cuda-ilp", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "cuda-graph's cut with each round's loads issued together: heights and residuals in registers",
           maxflow_ilp_prepare, maxflow_ilp_upload, maxflow_ilp_run, maxflow_ilp_fetch, maxflow_ilp_release)
SB_VARIANT("grabcut", "cuda-ilp", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "cuda-graph with each round's loads issued together: one wait a phase, decisions on registers",
           pipeline_ilp_prepare, pipeline_ilp_upload, pipeline_ilp_run, pipeline_ilp_fetch, pipeline_ilp_release)
SB_RUNG("grabcut-maxflow", "cuda-ilp", "cuda-graph", "a round's loads issued together: neighbours' heights and residuals in registers")
SB_RUNG("grabcut", "cuda-ilp", "cuda-graph", "a round's loads issued together: neighbours' heights and residuals in registers")
