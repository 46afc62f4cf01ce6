/* 7_ilp.cu - cuda-ilp of the pipeline and grabcut-maxflow.  Grows from
 * cuda-graph.  The idea: a node reads its neighbours' heights and residuals
 * into registers when a round starts, so its loads are in flight together,
 * not one wait after another. */
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

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-ilp", "cuda-graph", "cuda-shared", SB_GRAPH_LOOP,
             "a round's loads issued together: neighbours' heights and residuals in registers",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-ilp", "cuda-graph", "cuda-shared", SB_GRAPH_LOOP,
             "a round's loads issued together: neighbours' heights and residuals in registers",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
