/* 11_tally.cu - cuda-tally of the pipeline and grabcut-maxflow.  Grows from
 * cuda-settled.  The idea: the tiles say whether work is left, setting a flag
 * when one ends busy or pushes into its halo, instead of a counting pass a
 * sweep. */
#include "5_graph.cuh"
#include "10_settled.cuh"
#include "11_tally.cuh"
#include "gc_rounds.cuh"

#define TILE GC_TILE

/* ---- local rounds in one colour's tiles ---- */

template <int ROUNDS>
static __global__ void __launch_bounds__(TILE *TILE) tile_rounds(tile_net t, int cx, int cy, int *left)
{
    __shared__ gc_halo_plane hs, inflow;
    __shared__ gc_tile_residuals rs;
    gc_tile_node at;
    if (!gc_tile_enter(t, cx, cy, at))
        return;
    int32_t e, sink;
    gc_tile_load(t, at, hs, inflow, rs, e, sink);
    int busy = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int32_t h = hs[at.ty + 1][at.tx + 1], hq[SB_MF_DIRS];
        gc_ilp_heights(hs, at, hq);
        gc_halo_push(at, h, hq, rs, inflow, e, sink);
        __syncthreads();
        int active;
        int32_t nh = gc_ilp_relabel(at, h, hq, rs, inflow, e, sink, active);
        hs[at.ty + 1][at.tx + 1] = nh;     /* every read of hs[] this round came before the first barrier */
        if (!(busy = __syncthreads_or(active)))
            break;
    }
    gc_halo_store(t, at, hs, rs, e, sink);
    if (busy && threadIdx.x == 0)
        *left = 1;                         /* work left in this tile, or pushed into the halo's idle neighbours */
    gc_tile_settle<true>(t, at, inflow, left);
}

/* The four colours' launches, each flagging the sweep that left work in
 * its tiles. */
template <int ROUNDS>
void gc_tally_sweep(cudaStream_t s, const gc_loop &l, int sweep)
{
    dim3 colour_grid(sb_div_up(l.t.width, 2 * TILE), sb_div_up(l.t.height, 2 * TILE));
    for (int c = 0; c < 4; c++)
        tile_rounds<ROUNDS><<<colour_grid, TILE * TILE, 0, s>>>(l.t, c & 1, c >> 1, &l.f->count[sweep]);
}

/* The counts of rounds the ladder runs (cuda-longer's 16 too): a count
 * known when the kernel is compiled, as it was before it was lent. */
template void gc_tally_sweep<8>(cudaStream_t s, const gc_loop &l, int sweep);
template void gc_tally_sweep<16>(cudaStream_t s, const gc_loop &l, int sweep);

/* ---- the variants: these rounds after cuda-settled's relabel in cuda-graph's loop ---- */

static const gc_tile_kernels tally_kernels = { gc_settled_bfs_start, gc_settled_bfs, gc_tally_sweep<8>, nullptr, 8 };

GC_GRAPH_CUT(graph_cut, tally_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-tally", "cuda-settled", "cuda-shared", SB_GRAPH_LOOP,
             "no count pass: a tile that ends busy or pushes into its halo flags the sweep",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-tally", "cuda-settled", "cuda-shared", SB_GRAPH_LOOP,
             "no count pass: a tile that ends busy or pushes into its halo flags the sweep",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
