/* 9_inplace.cu - GrabCut's tiled cut with two barriers a round (variant
 * "cuda-inplace" of grabcut-maxflow and the pipeline).
 *
 * Grows from cuda-halo.  The idea: a barrier is a wait for the slowest
 * warp, and a round of cuda-halo has three: after the pushes, after the
 * new heights are staged in hn[], and after they are copied into hs[].
 * The staging was there because the relabel read its neighbours' heights
 * from hs[] while others were writing theirs.  Since cuda-ilp a round
 * reads every height it needs into registers when it starts, before the
 * first barrier; so a node writes its new height straight into hs[], and
 * the barrier that ends the round (the one that asks "is any node still
 * active?") is all the next round needs.  Two barriers a round, one
 * shared array fewer; the same pushes, sweeps and cut.
 *
 */
#include "gc_device.cuh"

#define TILE 16
#define HALO (TILE + 2)
#define TILE_ROUNDS 8
#define SWEEPS_PER_CHECK 8
#define BFS_PER_CHECK 8

struct tile_net {
    int width, height;
    long n;
    int32_t *r, *sink, *excess, *h;
};

/* ---- the global relabel ---- */

static __global__ void tile_bfs_init(tile_net t, int *changed)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p < t.n)
        t.h[p] = t.sink[p] > 0 ? 1 : SB_MF_INF;
    if (p == 0)
        changed[0] = 1;
}

/* Launch `slot`: skipped when launch slot - 1 changed nothing. */
static __global__ void __launch_bounds__(TILE *TILE) tile_bfs(tile_net t, int *changed, int slot)
{
    __shared__ int32_t hs[HALO][HALO];
    if (changed[slot - 1] == 0)
        return;
    int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
    bool inside = x < t.width && y < t.height;
    long p = (long)y * t.width + x;
    for (int i = threadIdx.x; i < HALO * HALO; i += TILE * TILE) {
        int hx = blockIdx.x * TILE + i % HALO - 1, hy = blockIdx.y * TILE + i / HALO - 1;
        hs[i / HALO][i % HALO] = hx >= 0 && hy >= 0 && hx < t.width && hy < t.height
                                     ? t.h[(long)hy * t.width + hx] : SB_MF_INF;
    }
    uint8_t bits = 0;                       /* bit k: the node's edge k has residual capacity */
    if (inside)
        for (int k = 0; k < SB_MF_DIRS; k++)
            bits |= (t.r[(size_t)k * t.n + p] > 0) << k;
    __syncthreads();
    int changed_any = 0;
    for (;;) {
        int32_t best = hs[ty + 1][tx + 1];
        if (inside)
            for (int k = 0; k < SB_MF_DIRS; k++)
                if (bits >> k & 1) {
                    int32_t hq = hs[ty + 1 + sb_mf_dy(k)][tx + 1 + sb_mf_dx(k)];
                    if (hq + 1 < best)
                        best = hq + 1;
                }
        __syncthreads();
        int mine = best < hs[ty + 1][tx + 1];
        if (mine)
            hs[ty + 1][tx + 1] = best;
        changed_any |= mine;
        if (!__syncthreads_or(mine))
            break;
    }
    if (inside && changed_any)
        t.h[p] = hs[ty + 1][tx + 1];
    if (__syncthreads_or(changed_any) && threadIdx.x == 0)
        changed[slot] = 1;
}

/* ---- local rounds in one colour's tiles ---- */

static __global__ void __launch_bounds__(TILE *TILE) tile_rounds(tile_net t, int cx, int cy)
{
    __shared__ int32_t hs[HALO][HALO], inflow[HALO][HALO];
    __shared__ int32_t rs[SB_MF_DIRS][TILE][TILE];
    int bx = 2 * blockIdx.x + cx, by = 2 * blockIdx.y + cy;
    if (bx * TILE >= t.width || by * TILE >= t.height)
        return;
    int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    int x = bx * TILE + tx, y = by * TILE + ty;
    bool inside = x < t.width && y < t.height;
    long p = (long)y * t.width + x;
    /* A tile with no active node would push nothing and relabel nothing
     * in any round: it leaves at once, having read 8 bytes a node instead
     * of 48 and written none.  Late in a cut most tiles are such. */
    if (!__syncthreads_or(inside && t.excess[p] > 0 && t.h[p] < SB_MF_INF))
        return;
    for (int i = threadIdx.x; i < HALO * HALO; i += TILE * TILE) {
        int hx = bx * TILE + i % HALO - 1, hy = by * TILE + i / HALO - 1;
        hs[i / HALO][i % HALO] = hx >= 0 && hy >= 0 && hx < t.width && hy < t.height
                                     ? t.h[(long)hy * t.width + hx] : SB_MF_INF;
        inflow[i / HALO][i % HALO] = 0;
    }
    int32_t e = 0, sink = 0;
    for (int k = 0; k < SB_MF_DIRS; k++)
        rs[k][ty][tx] = inside ? t.r[(size_t)k * t.n + p] : 0;
    if (inside) {
        e = t.excess[p];
        sink = t.sink[p];
    }
    __syncthreads();

    for (int round = 0; round < TILE_ROUNDS; round++) {
        int32_t h = hs[ty + 1][tx + 1];
        int32_t hq[SB_MF_DIRS], c[SB_MF_DIRS];     /* the neighbours' heights, the residuals toward them */
#pragma unroll
        for (int k = 0; k < SB_MF_DIRS; k++)
            hq[k] = hs[ty + 1 + sb_mf_dy(k)][tx + 1 + sb_mf_dx(k)];
        /* phase A: push (maxflow.h's sb_mf_push, on the shared copy) */
        if (inside && e > 0 && h < SB_MF_INF) {
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
                int lx = tx + 1 + sb_mf_dx(k), ly = ty + 1 + sb_mf_dy(k);
                int32_t d = e < c[k] ? e : c[k];
                rs[k][ty][tx] = c[k] - d;
                if (lx >= 1 && lx <= TILE && ly >= 1 && ly <= TILE)
                    rs[k ^ 4][ly - 1][lx - 1] += d;              /* a tile node: its shared copy */
                atomicAdd(&inflow[ly][lx], d);                   /* a halo node's: at the write-back */
                e -= d;
            }
        }
        __syncthreads();
        /* phase B: gather and relabel against this round's heights */
        int active = 0;
        int32_t nh = h;
        if (inside) {
            e += inflow[ty + 1][tx + 1];
            inflow[ty + 1][tx + 1] = 0;
            if (e > 0 && h < SB_MF_INF) {
                if (sink > 0)
                    nh = 1;
                else {
                    int32_t lowest = SB_MF_INF;
                    bool admissible = false;
#pragma unroll
                    for (int k = 0; k < SB_MF_DIRS; k++)
                        c[k] = rs[k][ty][tx];              /* with this round's pushes both ways */
#pragma unroll
                    for (int k = 0; k < SB_MF_DIRS; k++) {
                        if (c[k] <= 0)
                            continue;
                        admissible |= hq[k] == h - 1;
                        lowest = hq[k] < lowest ? hq[k] : lowest;
                    }
                    if (!admissible)
                        nh = lowest >= SB_MF_INF - 1 ? SB_MF_INF : lowest + 1;
                }
            }
            active = e > 0 && nh < SB_MF_INF;
        }
        hs[ty + 1][tx + 1] = nh;           /* every read of hs[] this round came before the first barrier */
        if (!__syncthreads_or(active))
            break;
    }

    if (inside) {
        /* what went out into the halo: what the edge lost since the load */
        int32_t out[SB_MF_DIRS];
#pragma unroll
        for (int k = 0; k < SB_MF_DIRS; k++) {
            int lx = tx + 1 + sb_mf_dx(k), ly = ty + 1 + sb_mf_dy(k);
            bool halo = lx < 1 || lx > TILE || ly < 1 || ly > TILE;
            out[k] = halo ? t.r[(size_t)k * t.n + p] - rs[k][ty][tx] : 0;
        }
#pragma unroll
        for (int k = 0; k < SB_MF_DIRS; k++) {
            t.r[(size_t)k * t.n + p] = rs[k][ty][tx];
            if (out[k])
                t.r[(size_t)(k ^ 4) * t.n + (long)(y + sb_mf_dy(k)) * t.width + x + sb_mf_dx(k)] += out[k];
        }
        t.excess[p] = e;
        t.sink[p] = sink;
        t.h[p] = hs[ty + 1][tx + 1];
    }
    /* what was pushed into the halo: the idle neighbours' excess */
    for (int i = threadIdx.x; i < HALO * HALO; i += TILE * TILE) {
        int lx = i % HALO, ly = i / HALO;
        if (lx >= 1 && lx <= TILE && ly >= 1 && ly <= TILE)
            continue;
        int hx = bx * TILE + lx - 1, hy = by * TILE + ly - 1;
        if (inflow[ly][lx] && hx >= 0 && hy >= 0 && hx < t.width && hy < t.height)
            atomicAdd(&t.excess[(long)hy * t.width + hx], inflow[ly][lx]);
    }
}

/* Active nodes after a sweep, into count[slot]. */
static __global__ void tile_count(tile_net t, int *count, int slot)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    int active = p < t.n && t.excess[p] > 0 && t.h[p] < SB_MF_INF;
    int c = __syncthreads_count(active);
    if (threadIdx.x == 0 && c)
        atomicAdd(&count[slot], c);
}

static __global__ void tile_init(tile_net t, const int32_t *term, const int32_t *n0, const int32_t *n1, const int32_t *n2,
                          const int32_t *n3)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= t.n)
        return;
    const int32_t *nl[4] = { n0, n1, n2, n3 };
    int x = (int)(p % t.width), y = (int)(p / t.width);
    for (int k = 0; k < SB_MF_DIRS; k++) {
        int qx = x + sb_mf_dx(k), qy = y + sb_mf_dy(k);
        int32_t c = 0;
        if (qx >= 0 && qy >= 0 && qx < t.width && qy < t.height)
            c = k < 4 ? nl[k][p] : nl[k - 4][(long)qy * t.width + qx];
        t.r[(size_t)k * t.n + p] = c;
    }
    t.excess[p] = term[p] > 0 ? term[p] : 0;
    t.sink[p] = term[p] < 0 ? -term[p] : 0;
}

/* A warm start's repair: node p's excess and sink residual
 * moved from the t-links the flow was for to the new ones. */
static __global__ void tile_rewarm(tile_net t, int32_t *last_term, const int32_t *term)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= t.n)
        return;
    sb_mf_rewarm(&t.excess[p], &t.sink[p], last_term[p], term[p]);
    last_term[p] = term[p];
}

static __global__ void tile_cut(tile_net t, const int32_t *term, uint8_t *fg, long long *flow)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long long f = 0;
    if (p < t.n) {
        fg[p] = t.h[p] >= SB_MF_INF;
        f = (long long)(term[p] < 0 ? -term[p] : 0) - t.sink[p];   /* sb_mf_sink_flow, warm or cold */
    }
    for (int o = 16; o > 0; o >>= 1)
        f += __shfl_down_sync(0xffffffffu, f, o);
    if ((threadIdx.x & 31) == 0 && f)
        atomicAdd((unsigned long long *)flow, (unsigned long long)f);
}

/* ---- the state the graph reads and writes ---- */

/* Flags and counts the loop reads: BFS change flags, sweep counts, and
 * the loop's tallies. */
struct tile_flags {
    int bfs[BFS_PER_CHECK + 1];
    int count[SWEEPS_PER_CHECK];
    int sweeps, relabels;
};

struct tiles_state {
    tile_flags *flags;                 /* device */
    int32_t *last_term;                /* the t-links d's flow is for (device) */
};

static inline void tiles_release(gc_dev *d)
{
    tiles_state *s = (tiles_state *)d->cut_state;
    cudaFree(s->flags);
    cudaFree(s->last_term);
    free(s);
}

/* Where a cut starts: the run's first from zero flow (the residual
 * network of d->term and the n-links), every later one from the preflow
 * the cut before left, repaired where the t-links changed (the top of
 * this file says why that is exact).  last_term keeps the t-links the
 * flow is for. */
static inline sb_status tiles_start(gc_dev *d, int it, sb_error *err)
{
    tiles_state *s = (tiles_state *)d->cut_state;
    tile_net t = { d->width, d->height, d->n, d->r, d->sink, d->excess, d->h[0] };
    unsigned blocks = sb_div_up((unsigned long long)d->n, 256);
    if (it > 0) {
        tile_rewarm<<<blocks, 256, 0, d->stream>>>(t, s->last_term, d->term);
        SB_CUDA_LAUNCHED(err, d->who);
        return SB_OK;
    }
    tile_init<<<blocks, 256, 0, d->stream>>>(t, d->term, d->nlink[0], d->nlink[1], d->nlink[2], d->nlink[3]);
    SB_CUDA_LAUNCHED(err, d->who);
    if (gc_dev_cuts(d) > 1)
        SB_CUDA_TRY(cudaMemcpyAsync(s->last_term, d->term, sizeof(int32_t) * (size_t)d->n, cudaMemcpyDeviceToDevice,
                                    d->stream),
                    err, d->who);
    return SB_OK;
}


/* ---- the variant ---- */

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

/* ---- the k-means and GMM sums, a block at a time ---- */

/* One k-means pass: each pixel's nearest centre among its side's 5, the
 * changed count and the integer sums, the block's totals gathered in
 * shared memory first.  A no-op once converged. */
static __global__ void block_kmeans_pass(long n, const uint8_t *rgb, const uint8_t *mask, uint8_t *comp,
                                         gc_dev_scratch *s, const int *passes)
{
    __shared__ sb_kmeans_prepped centres[2 * SB_GC_K];
    __shared__ unsigned long long sums[2 * SB_GC_K][4];
    __shared__ unsigned long long changed;
    if (s->kdone)
        return;
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K)
        centres[t] = sb_kmeans_prep(s->centres[t / SB_GC_K][t % SB_GC_K]);
    if (t < 2 * SB_GC_K * 4)
        sums[t / 4][t % 4] = 0;
    if (t == 0)
        changed = 0;
    __syncthreads();
    long i = (long)blockIdx.x * blockDim.x + t;
    if (i < n) {
        int side = SB_GC_SIDE(mask[i]);
        const uint8_t *px = rgb + 3 * i;
        int best = gc_kmeans_nearest(centres + side * SB_GC_K, px);
        if (*passes == 0 || comp[i] != best)
            atomicAdd(&changed, 1ull);
        comp[i] = (uint8_t)best;
        unsigned long long *sm = sums[side * SB_GC_K + best];
        atomicAdd(&sm[0], (unsigned long long)px[0]);
        atomicAdd(&sm[1], (unsigned long long)px[1]);
        atomicAdd(&sm[2], (unsigned long long)px[2]);
        atomicAdd(&sm[3], 1ull);
    }
    __syncthreads();
    if (t < 2 * SB_GC_K * 4 && sums[t / 4][t % 4])
        atomicAdd(&s->ksums[t / 4][t % 4], sums[t / 4][t % 4]);
    if (t == 0 && changed)
        atomicAdd(&s->changed, changed);
}

/* The GMM moments of every pixel's side and component, the block's
 * totals gathered in shared memory first (as in block_kmeans_pass). */
static __global__ void block_learn_sums(long n, const uint8_t *rgb, const uint8_t *mask, const uint8_t *comp,
                                        gc_dev_scratch *s)
{
    __shared__ unsigned long long sums[2 * SB_GC_K][10];
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K * 10)
        sums[t / 10][t % 10] = 0;
    __syncthreads();
    long i = (long)blockIdx.x * blockDim.x + t;
    if (i < n) {
        uint64_t own[10] = { 0 };
        sb_gc_sums_add(own, rgb + 3 * i);
        unsigned long long *sm = sums[SB_GC_SIDE(mask[i]) * SB_GC_K + comp[i]];
        for (int j = 0; j < 10; j++)
            atomicAdd(&sm[j], (unsigned long long)own[j]);
    }
    __syncthreads();
    if (t < 2 * SB_GC_K * 10 && sums[t / 10][t % 10])
        atomicAdd(&(&s->gsums[0][0][0])[t], sums[t / 10][t % 10]);
}

static void block_kmeans(gc_dev *d)
{
    block_kmeans_pass<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s,
                                                                &d->stats->passes);
}

static void block_learn(gc_dev *d) { block_learn_sums<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s); }

static const gc_sums block_sums = { block_kmeans, block_learn };

/* ---- the variants ---- */

GC_CUDA_OPS(maxflow_inplace, GC_MAXFLOW, graph_cut, block_sums)
GC_CUDA_OPS(pipeline_inplace, GC_PIPELINE, graph_cut, block_sums)

SB_VARIANT("grabcut-maxflow", "cuda-inplace", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "cuda-halo's cut with two barriers a round: new heights written in place",
           maxflow_inplace_prepare, maxflow_inplace_upload, maxflow_inplace_run, maxflow_inplace_fetch, maxflow_inplace_release)
SB_VARIANT("grabcut", "cuda-inplace", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "cuda-halo with two barriers a round: new heights written in place",
           pipeline_inplace_prepare, pipeline_inplace_upload, pipeline_inplace_run, pipeline_inplace_fetch, pipeline_inplace_release)
SB_RUNG("grabcut-maxflow", "cuda-inplace", "cuda-halo", "two barriers a round: new heights written in place, no staging array")
SB_RUNG("grabcut", "cuda-inplace", "cuda-halo", "two barriers a round: new heights written in place, no staging array")
