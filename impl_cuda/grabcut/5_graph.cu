/* 5_graph.cu - GrabCut's warm-started tiled cut with its loop on the
 * device (variant "cuda-graph" of grabcut-maxflow and the pipeline).
 *
 * Against cuda-warm: only who drives the loop.  cuda-warm's host enqueues
 * a batch of BFS launches, copies a flag back and waits for it, again
 * until the BFS settles; then a batch of sweeps, copies the counts back
 * and waits; and so on: a dozen or more waits a cut, each an idle GPU
 * while the host wakes up.  Here the loop is recorded once, at prepare,
 * as one CUDA graph with nested conditional WHILE nodes (CUDA 12.4+):
 *
 *     while (a node is active) {
 *         BFS start; while (a tile changed) { 8 BFS launches; bfs_next }
 *         8 sweeps of 4 colours; sweeps_next
 *     }
 *     BFS start; while (a tile changed) { ... }; the cut
 *
 * bfs_next and sweeps_next are one-thread kernels that read the flags the
 * host read and set the loops' conditions on the device
 * (cudaGraphSetConditional), tallying sweeps and relabels as tiles_loop
 * does, so this rung takes cuda-warm's sweeps exactly.  A cut is one
 * cudaGraphLaunch; the pipeline's host never waits before fetch.
 *
 * A loop nested in another's body is entered many times a launch, but a
 * handle's default value is applied once a launch; so each loop is
 * entered through graph_enter, which sets its condition to 1.
 */
#include "tile_cut.cuh"

struct graph_state {
    tiles_state tiles;                 /* first: tiles_start and tiles_release take d->cut_state as one */
    cudaGraphExec_t loop;              /* the cut's loop, from the BFS to the flow */
};

static __global__ void graph_enter(cudaGraphConditionalHandle loop) { cudaGraphSetConditional(loop, 1); }

/* After a batch of BFS launches: again while the last launch changed a
 * tile; then the next batch's launch 1 looks at slot 0 (tiles_bfs). */
static __global__ void graph_bfs_next(cudaGraphConditionalHandle loop, tile_flags *f)
{
    int again = f->bfs[BFS_PER_CHECK] != 0;
    if (again)
        f->bfs[0] = -1;
    cudaGraphSetConditional(loop, again);
}

/* After a batch of sweeps: tally them up to the first that left no node
 * active, and the relabel before them (tiles_loop's counts); again
 * while every sweep left one. */
static __global__ void graph_sweeps_next(cudaGraphConditionalHandle loop, tile_flags *f)
{
    int done = 0;
    f->relabels++;
    for (int s = 0; s < SWEEPS_PER_CHECK && !done; s++) {
        f->sweeps++;
        done = f->count[s] == 0;
    }
    cudaGraphSetConditional(loop, !done);
}

static __global__ void graph_stats(const long long *flow, const tile_flags *f, gc_dev_stats *stats, int it)
{
    stats->flow[it] = *flow;
    stats->rounds[it] = f->sweeps;
    stats->relabels[it] = f->relabels;
}

/* ---- recording the graph ---- */

/* Records what body() enqueues on stream s into graph g, ending the
 * capture whatever happens. */
template <class Body>
static sb_status record(gc_dev *d, cudaStream_t s, cudaGraph_t g, const Body &body, sb_error *err)
{
    SB_CUDA_TRY(cudaStreamBeginCaptureToGraph(s, g, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal), err,
                d->who);
    sb_status st = body();
    cudaGraph_t same = nullptr;
    cudaError_t e = cudaStreamEndCapture(s, &same);
    if (st)
        return st;
    SB_CUDA_TRY(e, err, d->who);
    return SB_OK;
}

/* At s's place in its capture: graph_enter, then a WHILE node; s goes on
 * after the loop, and the loop's body is recorded from `inner`. */
template <class Body>
static sb_status record_while(gc_dev *d, cudaStream_t s, cudaStream_t inner, const Body &body, sb_error *err)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t g;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    cudaGraphConditionalHandle loop;
    SB_CUDA_TRY(cudaStreamGetCaptureInfo(s, &status, nullptr, &g), err, d->who);
    SB_CUDA_TRY(cudaGraphConditionalHandleCreate(&loop, g, 0, 0), err, d->who);
    graph_enter<<<1, 1, 0, s>>>(loop);
    SB_CUDA_LAUNCHED(err, d->who);
    SB_CUDA_TRY(cudaStreamGetCaptureInfo(s, &status, nullptr, &g, &deps, nullptr, &ndeps), err, d->who);
    cudaGraphNodeParams cond = {};
    cond.type = cudaGraphNodeTypeConditional;
    cond.conditional.handle = loop;
    cond.conditional.type = cudaGraphCondTypeWhile;
    cond.conditional.size = 1;
    cudaGraphNode_t node;
    SB_CUDA_TRY(cudaGraphAddNode(&node, g, deps, nullptr, ndeps, &cond), err, d->who);
    SB_CUDA_TRY(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies), err,
                d->who);
    return record(d, inner, cond.conditional.phGraph_out[0], [&] { return body(loop); }, err);
}

/* The global relabel at s's place: tiles_bfs with its waits turned into
 * a WHILE node whose body is recorded from `inner`. */
static sb_status record_bfs(gc_dev *d, cudaStream_t s, cudaStream_t inner, tile_net t, tile_flags *f, sb_error *err)
{
    unsigned blocks = sb_div_up((unsigned long long)d->n, 256);
    dim3 grid(sb_div_up(d->width, TILE), sb_div_up(d->height, TILE));
    tile_bfs_init<<<blocks, 256, 0, s>>>(t, f->bfs);
    SB_CUDA_LAUNCHED(err, d->who);
    return record_while(d, s, inner, [&](cudaGraphConditionalHandle changing) {
        SB_CUDA_TRY(cudaMemsetAsync(f->bfs + 1, 0, sizeof(int) * BFS_PER_CHECK, inner), err, d->who);
        for (int slot = 1; slot <= BFS_PER_CHECK; slot++)
            tile_bfs<<<grid, TILE * TILE, 0, inner>>>(t, f->bfs, slot);
        graph_bfs_next<<<1, 1, 0, inner>>>(changing, f);
        SB_CUDA_LAUNCHED(err, d->who);
        return SB_OK;
    }, err);
}

/* tiles_loop, recorded: s0 records the top level, s1 and s2 the bodies. */
static sb_status record_cut(gc_dev *d, cudaStream_t s0, cudaStream_t s1, cudaStream_t s2, sb_error *err)
{
    tile_net t = { d->width, d->height, d->n, d->r, d->sink, d->excess, d->h[0] };
    tile_flags *f = ((tiles_state *)d->cut_state)->flags;
    unsigned blocks = sb_div_up((unsigned long long)d->n, 256);
    dim3 colour_grid(sb_div_up(d->width, 2 * TILE), sb_div_up(d->height, 2 * TILE));
    SB_CUDA_TRY(cudaMemsetAsync(&d->s->flow, 0, sizeof d->s->flow, s0), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(&f->sweeps, 0, 2 * sizeof(int), s0), err, d->who);
    sb_status st = record_while(d, s0, s1, [&](cudaGraphConditionalHandle active) {
        sb_status bs = record_bfs(d, s1, s2, t, f, err);
        if (bs)
            return bs;
        SB_CUDA_TRY(cudaMemsetAsync(f->count, 0, sizeof f->count, s1), err, d->who);
        for (int s = 0; s < SWEEPS_PER_CHECK; s++) {
            for (int c = 0; c < 4; c++)
                tile_rounds<<<colour_grid, TILE * TILE, 0, s1>>>(t, c & 1, c >> 1);
            tile_count<<<blocks, 256, 0, s1>>>(t, f->count, s);
        }
        graph_sweeps_next<<<1, 1, 0, s1>>>(active, f);
        SB_CUDA_LAUNCHED(err, d->who);
        return SB_OK;
    }, err);
    if (!st)
        st = record_bfs(d, s0, s1, t, f, err);
    if (st)
        return st;
    tile_cut<<<blocks, 256, 0, s0>>>(t, d->term, d->fg, &d->s->flow);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the cut the rung supplies ---- */

static sb_status graph_prepare(gc_dev *d, sb_error *err)
{
    graph_state *g = (graph_state *)calloc(1, sizeof *g);
    if (!g)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->cut_state = g;
    SB_CUDA_TRY(cudaMalloc(&g->tiles.flags, sizeof(tile_flags)), err, d->who);
    SB_CUDA_TRY(cudaMallocHost(&g->tiles.host, sizeof(tile_flags)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&g->tiles.last_term, sizeof(int32_t) * (size_t)d->n), err, d->who);
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

static void graph_release(gc_dev *d)
{
    graph_state *g = (graph_state *)d->cut_state;
    if (g->loop)
        cudaGraphExecDestroy(g->loop);
    tiles_release(d);
}

/* The first cut of a run from zero flow, the later ones from the last
 * one's (tiles_start); the loop is one graph launch. */
static sb_status graph_solve(gc_dev *d, int it, sb_error *err)
{
    graph_state *g = (graph_state *)d->cut_state;
    sb_status st = tiles_start(d, it, err);
    if (st)
        return st;
    SB_CUDA_TRY(cudaGraphLaunch(g->loop, d->stream), err, d->who);
    graph_stats<<<1, 1, 0, d->stream>>>(&d->s->flow, g->tiles.flags, d->stats, it);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static const gc_cut graph_cut = { graph_prepare, graph_solve, graph_release, 1 };

/* ---- the variants ---- */

GC_CUDA_OPS(maxflow_graph, GC_MAXFLOW, graph_cut)
GC_CUDA_OPS(pipeline_graph, GC_PIPELINE, graph_cut)

SB_VARIANT("grabcut-maxflow", "cuda-graph", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tiles' tiled cut with its loop on the device: one CUDA graph, nested WHILE nodes, no host wait",
           maxflow_graph_prepare, maxflow_graph_upload, maxflow_graph_run, maxflow_graph_fetch, maxflow_graph_release)
SB_VARIANT("grabcut", "cuda-graph", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-warm with each cut's loop on the device: one CUDA graph a cut, no host wait before fetch",
           pipeline_graph_prepare, pipeline_graph_upload, pipeline_graph_run, pipeline_graph_fetch, pipeline_graph_release)
SB_RUNG("grabcut-maxflow", "cuda-graph", "cuda-tiles", "the cut's loop on the device: one CUDA graph, nested WHILE nodes, no host wait")
SB_RUNG("grabcut", "cuda-graph", "cuda-warm", "each cut's loop on the device: one CUDA graph a cut, no host wait before fetch")
