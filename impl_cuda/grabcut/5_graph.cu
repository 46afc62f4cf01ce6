/* 5_graph.cu - cuda-graph of the pipeline and grabcut-maxflow.  Grows from
 * cuda-warm.  The idea: the cut's loop is one CUDA graph with conditional
 * WHILE nodes, recorded once, so the host no longer waits for a flag a dozen
 * times a cut. */
#include "3_tiles.cuh"
#include "4_warm.cuh"
#include "5_graph.cuh"
#include "gc_graph.cuh"

/* ---- the state the graph reads and writes ---- */

struct graph_state {
    const gc_tile_kernels *k;          /* the rung's kernels */
    gc_loop_flags *flags;              /* device */
    int32_t *last_term;                /* the t-links d's flow is for (device) */
    int *bfs_stamp;                    /* a tile's last BFS launch that changed a height (device) */
    uint8_t *busy;                     /* 3 flags a tile (device) */
    cudaGraphExec_t loop;              /* the cut's loop, from the BFS to the flow */
};

/* After a batch of BFS launches: again while the last launch changed a
 * tile; then the next batch's launch 1 looks at slot 0. */
static __global__ void graph_bfs_next(cudaGraphConditionalHandle loop, gc_loop_flags *f)
{
    int again = f->bfs[GC_BFS_PER_CHECK] != 0;
    if (again)
        f->bfs[0] = -1;
    f->bfs_base += GC_BFS_PER_CHECK;           /* the next batch's launches number on */
    cudaGraphSetConditional(loop, again);
}

/* After a batch of sweeps: tally them up to the first that left no node
 * active, and the relabel before them (cuda-tiles' counts); again while
 * every sweep left one. */
static __global__ void graph_sweeps_next(cudaGraphConditionalHandle loop, gc_loop_flags *f, int sweeps_per_check)
{
    int done = 0;
    f->relabels++;
    f->keep = 0;                               /* the loop's next relabels start from nothing */
    for (int s = 0; s < sweeps_per_check && !done; s++) {
        f->sweeps++;
        done = f->count[s] == 0;
    }
    cudaGraphSetConditional(loop, !done);
}

static __global__ void graph_stats(const long long *flow, const gc_loop_flags *f, gc_dev_stats *stats, int it)
{
    stats->flow[it] = *flow;
    stats->rounds[it] = f->sweeps;
    stats->relabels[it] = f->relabels;
}

/* ---- recording the graph ---- */

/* The global relabel at s's place: cuda-tiles' batches of BFS launches
 * with their waits turned into a WHILE node whose body is recorded from
 * `inner`. */
static sb_status record_bfs(gc_dev *d, cudaStream_t s, cudaStream_t inner, const gc_loop &l, const gc_tile_kernels *k,
                            sb_error *err)
{
    k->bfs_start(s, l);
    SB_CUDA_LAUNCHED(err, d->who);
    return record_while(d, s, inner, [&](cudaGraphConditionalHandle changing) {
        SB_CUDA_TRY(cudaMemsetAsync(l.f->bfs + 1, 0, sizeof(int) * GC_BFS_PER_CHECK, inner), err, d->who);
        for (int slot = 1; slot <= GC_BFS_PER_CHECK; slot++)
            k->bfs(inner, l, slot);
        graph_bfs_next<<<1, 1, 0, inner>>>(changing, l.f);
        SB_CUDA_LAUNCHED(err, d->who);
        return SB_OK;
    }, err);
}

/* cuda-tiles' loop, recorded: s0 records the top level, s1 and s2 the
 * bodies. */
static sb_status record_cut(gc_dev *d, cudaStream_t s0, cudaStream_t s1, cudaStream_t s2, sb_error *err)
{
    graph_state *g = (graph_state *)d->cut_state;
    const gc_tile_kernels *k = g->k;
    gc_loop l = { d, gc_tile_net(d), g->flags, g->bfs_stamp, g->busy };
    SB_CUDA_TRY(cudaMemsetAsync(&d->s->flow, 0, sizeof d->s->flow, s0), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(&l.f->sweeps, 0, 3 * sizeof(int), s0), err, d->who);   /* and bfs_base */
    sb_status st = record_while(d, s0, s1, [&](cudaGraphConditionalHandle active) {
        sb_status bs = record_bfs(d, s1, s2, l, k, err);
        if (bs)
            return bs;
        SB_CUDA_TRY(cudaMemsetAsync(l.f->count, 0, sizeof l.f->count, s1), err, d->who);
        for (int s = 0; s < k->sweeps_per_check; s++)
            k->sweep(s1, l, s);
        graph_sweeps_next<<<1, 1, 0, s1>>>(active, l.f, k->sweeps_per_check);
        SB_CUDA_LAUNCHED(err, d->who);
        return SB_OK;
    }, err);
    if (!st)
        st = record_bfs(d, s0, s1, l, k, err);
    if (st)
        return st;
    gc_tiles_cut(s0, d);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the loop a rung's cut runs ---- */

sb_status gc_graph_prepare(gc_dev *d, const gc_tile_kernels *k, sb_error *err)
{
    graph_state *g = (graph_state *)calloc(1, sizeof *g);
    if (!g)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->cut_state = g;
    g->k = k;
    SB_CUDA_TRY(cudaMalloc(&g->flags, sizeof(gc_loop_flags)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&g->last_term, sizeof(int32_t) * (size_t)d->n), err, d->who);
    size_t tiles = (size_t)sb_div_up(d->width, GC_TILE) * sb_div_up(d->height, GC_TILE);
    SB_CUDA_TRY(cudaMalloc(&g->bfs_stamp, sizeof(int) * tiles), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&g->busy, 3 * tiles), err, d->who);
    cudaStream_t side[2] = { nullptr, nullptr };
    cudaGraph_t whole = nullptr;
    cudaError_t e = cudaStreamCreateWithFlags(&side[0], cudaStreamNonBlocking);
    if (!e)
        e = cudaStreamCreateWithFlags(&side[1], cudaStreamNonBlocking);
    if (!e)
        e = cudaGraphCreate(&whole, 0);
    sb_status st = e ? sb_cuda_fail(err, e, d->who, "creating the cut's graph")
                     : record(d, d->stream, whole, [&] { return record_cut(d, d->stream, side[0], side[1], err); },
                              err);
    if (!st && (e = cudaGraphInstantiate(&g->loop, whole, 0)))
        st = sb_cuda_fail(err, e, d->who, "instantiating the cut's graph");
    for (int i = 0; i < 2; i++)
        if (side[i])
            cudaStreamDestroy(side[i]);
    if (whole)
        cudaGraphDestroy(whole);
    return st;
}

void gc_graph_release(gc_dev *d)
{
    graph_state *g = (graph_state *)d->cut_state;
    if (g->loop)
        cudaGraphExecDestroy(g->loop);
    cudaFree(g->flags);
    cudaFree(g->last_term);
    cudaFree(g->bfs_stamp);
    cudaFree(g->busy);
    free(g);
}

/* The first cut of a run from zero flow, the later ones from the last
 * one's (the rung's start, or gc_warm_start); the loop is one graph
 * launch. */
sb_status gc_graph_solve(gc_dev *d, int it, sb_error *err)
{
    graph_state *g = (graph_state *)d->cut_state;
    sb_status st = (g->k->start ? g->k->start : gc_warm_start)(d, it, g->last_term, g->flags, err);
    if (st)
        return st;
    SB_CUDA_TRY(cudaGraphLaunch(g->loop, d->stream), err, d->who);
    graph_stats<<<1, 1, 0, d->stream>>>(&d->s->flow, g->flags, d->stats, it);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the variants: cuda-tiles' kernels in the recorded loop ---- */

static const gc_tile_kernels graph_kernels = { gc_tiles_bfs_start, gc_tiles_bfs, gc_tiles_sweep, nullptr, 8 };

GC_GRAPH_CUT(graph_cut, graph_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-graph", "cuda-warm", "cuda-shared", SB_GRAPH_LOOP,
             "the cut's loop on the device: one CUDA graph, nested WHILE nodes, no host wait",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-graph", "cuda-warm", "cuda-shared", SB_GRAPH_LOOP,
             "each cut's loop on the device: one CUDA graph a cut, no host wait before fetch",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
