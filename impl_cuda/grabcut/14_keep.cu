/* 14_keep.cu - cuda-keep of the pipeline and grabcut-maxflow.  A branch of
 * cuda-warpsums.  The idea: a warm cut's first global relabel starts from the
 * heights the last cut left and runs only where they must come down. */
#include "../grabcut-models/3_warpsums.cuh"
#include "5_graph.cuh"
#include "10_settled.cuh"
#include "11_tally.cuh"

#define TILE GC_TILE

/* ---- a warm cut's first relabel, from the heights there are ---- */

/* When each tile last changed a height: launch `slot` of a batch is
 * number *base + slot (cuda-settled's stamps). */
struct keep_tiles {
    int *stamp;                                 /* a tile-shaped init stamps every tile: no count */
    const int *base;
};

/* Before a global relabel: from nothing (1 where the sink's residual is
 * left, else SB_MF_INF; every tile stamped as changed), or, when *keep is
 * set (a warm cut's first), from the heights there are: only a node that
 * gained sink residual comes down to 1, and only its tile is stamped. */
static __global__ void __launch_bounds__(TILE *TILE) tile_bfs_init(tile_net t, int *changed, keep_tiles bt, const int *keep)
{
    int x = blockIdx.x * TILE + threadIdx.x % TILE, y = blockIdx.y * TILE + threadIdx.x / TILE;
    long p = (long)y * t.width + x;
    int kept = *keep, lowered = 0;
    if (x < t.width && y < t.height) {
        int32_t h = t.sink[p] > 0 ? 1 : SB_MF_INF;
        if (!kept)
            t.h[p] = h;
        else if (h == 1 && t.h[p] != 1) {
            t.h[p] = 1;
            lowered = 1;
        }
    }
    lowered = __syncthreads_or(lowered);
    if (threadIdx.x == 0)       /* launch 1 runs a tile stamped *base and its neighbours */
        bt.stamp[(long)blockIdx.y * gridDim.x + blockIdx.x] = !kept || lowered ? *bt.base : *bt.base - 1;
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
        changed[0] = 1;
}

static void keep_bfs_start(cudaStream_t s, const gc_loop &l)
{
    dim3 grid(sb_div_up(l.t.width, TILE), sb_div_up(l.t.height, TILE));
    keep_tiles bt = { l.bfs_stamp, &l.f->bfs_base };
    tile_bfs_init<<<grid, TILE * TILE, 0, s>>>(l.t, l.f->bfs, bt, &l.f->keep);
}

/* ---- where a cut starts: cuda-warm's, saying whether heights are kept ---- */

static __global__ void tile_init(tile_net t, const int32_t *term, const int32_t *n0, const int32_t *n1, const int32_t *n2,
                          const int32_t *n3, int *keep)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p == 0)
        *keep = 0;                              /* a cold cut's heights come from nothing */
    if (p >= t.n)
        return;
    const int32_t *const nl[4] = { n0, n1, n2, n3 };
    gc_node_init(t.width, t.height, t.n, t.r, t.excess, t.sink, p, term, nl);
}

/* A warm start's repair: node p's excess and sink residual
 * moved from the t-links the flow was for to the new ones; the heights
 * are kept for the first global relabel. */
static __global__ void tile_rewarm(tile_net t, int32_t *last_term, const int32_t *term, int *keep)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p == 0)
        *keep = 1;
    if (p >= t.n)
        return;
    sb_mf_rewarm(&t.excess[p], &t.sink[p], last_term[p], term[p]);
    last_term[p] = term[p];
}

/* gc_warm_start with *keep set as the cut's first relabel must read it:
 * 0 for a cold cut, 1 for a warm one. */
static sb_status keep_start(gc_dev *d, int it, int32_t *last_term, gc_loop_flags *f, sb_error *err)
{
    tile_net t = gc_tile_net(d);
    if (it > 0) {
        tile_rewarm<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(t, last_term, d->term, &f->keep);
        SB_CUDA_LAUNCHED(err, d->who);
        return SB_OK;
    }
    tile_init<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(t, d->term, d->nlink[0], d->nlink[1], d->nlink[2], d->nlink[3],
                                                        &f->keep);
    SB_CUDA_LAUNCHED(err, d->who);
    if (gc_dev_cuts(d) > 1)
        SB_CUDA_TRY(cudaMemcpyAsync(last_term, d->term, sizeof(int32_t) * (size_t)d->n, cudaMemcpyDeviceToDevice,
                                    d->stream),
                    err, d->who);
    return SB_OK;
}

/* ---- the variants: cuda-longer's kernels, but the relabel's start and the cut's ---- */

static const gc_tile_kernels keep_kernels = { keep_bfs_start, gc_settled_bfs, gc_tally_sweep<16>, keep_start, 4 };

GC_GRAPH_CUT(graph_cut, keep_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_warp_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_warp_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-keep", "cuda-warpsums", "cuda-shared", SB_GRAPH_LOOP,
             "a warm cut keeps the heights: its first relabel runs only from nodes that gained sink residual (a step for the pipeline)",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-keep", "cuda-warpsums", "cuda-shared", SB_GRAPH_LOOP,
             "warm cuts keep the heights: the first relabel runs only from nodes that gained sink residual",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
