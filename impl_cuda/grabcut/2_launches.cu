/* 2_launches.cu - cuda-launches of the pipeline and grabcut-maxflow.  Grows
 * from cuda-global.  The idea: the cut as ordinary launches the host
 * enqueues, a kernel a phase, with the decisions the grid shared kept as
 * flags on the device. */
#include "gc_tiles.cuh"

#define NODE_BLOCK 256
#define BFS_PER_CHECK 8

struct node_net {
    int width, height;
    long n;
    int32_t *r, *sink, *excess, *inflow;
};

/* Flags and counts the loop reads back, and the round's decisions. */
struct node_flags {
    int bfs[BFS_PER_CHECK + 1];        /* BFS launch s changed a height */
    int active;                        /* the phase running found an active node */
    int done;                          /* no active node: the rounds' kernels return at once */
    int rounds;
};

/* ---- the global relabel ---- */

static __global__ void node_bfs_init(node_net t, int32_t *h, int *changed)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p < t.n)
        h[p] = t.sink[p] > 0 ? 1 : SB_MF_INF;
    if (p == 0)
        changed[0] = 1;
}

/* One Bellman-Ford sweep in place (sb_mf_relax), launch `slot`: skipped
 * when launch slot - 1 changed nothing. */
static __global__ void node_bfs(node_net t, int32_t *h, int *changed, int slot)
{
    if (changed[slot - 1] == 0)
        return;
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    int mine = 0;
    if (p < t.n) {
        sb_mf_net net = { t.width, t.height, t.r, t.sink, t.excess };
        int32_t nh = sb_mf_relax(&net, h, t.n, p);
        if (nh < h[p]) {
            h[p] = nh;
            mine = 1;
        }
    }
    if (__syncthreads_or(mine) && threadIdx.x == 0)
        changed[slot] = 1;
}

/* ---- the rounds: a kernel a phase ---- */

/* Phase A: every active node pushes (sb_mf_push). */
static __global__ void node_push(node_net t, const int32_t *h, node_flags *f)
{
    if (f->done)
        return;
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    int active = p < t.n && t.excess[p] > 0 && h[p] < SB_MF_INF;
    if (active) {
        sb_mf_net net = { t.width, t.height, t.r, t.sink, t.excess };
        sb_mf_push(&net, h, t.inflow, t.n, p);
    }
    if (__syncthreads_or(active) && threadIdx.x == 0)
        f->active = 1;
}

/* Phase B: the excess gathered, the new heights (sb_mf_relabel) into h_next. */
static __global__ void node_relabel(node_net t, const int32_t *h, int32_t *h_next, node_flags *f)
{
    if (f->done)
        return;
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    int active = 0;
    if (p < t.n) {
        int32_t e = t.excess[p] + t.inflow[p];
        t.inflow[p] = 0;
        t.excess[p] = e;
        sb_mf_net net = { t.width, t.height, t.r, t.sink, t.excess };
        int32_t hn = sb_mf_relabel(&net, h, t.n, p, e);
        h_next[p] = hn;
        active = e > 0 && hn < SB_MF_INF;
    }
    if (__syncthreads_or(active) && threadIdx.x == 0)
        f->active = 1;
}

/* After a phase, what every thread of cuda-global read from its grid-wide
 * count: no active node ends the loop; an active push phase is a round. */
static __global__ void node_decide(node_flags *f, int push_phase)
{
    if (f->done)
        return;
    if (!f->active)
        f->done = 1;
    else if (push_phase)
        f->rounds++;
    f->active = 0;
}

static __global__ void node_init(node_net t, const int32_t *term, const int32_t *n0, const int32_t *n1, const int32_t *n2,
                          const int32_t *n3)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= t.n)
        return;
    const int32_t *const nl[4] = { n0, n1, n2, n3 };
    gc_node_init(t.width, t.height, t.n, t.r, t.excess, t.sink, p, term, nl);
    t.inflow[p] = 0;
}

static __global__ void node_cut(node_net t, const int32_t *h, const int32_t *term, uint8_t *fg, long long *flow)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long long f = 0;
    if (p < t.n) {
        fg[p] = h[p] >= SB_MF_INF;
        f = (long long)(term[p] < 0 ? -term[p] : 0) - t.sink[p];   /* sb_mf_sink_flow */
    }
    for (int o = 16; o > 0; o >>= 1)
        f += __shfl_down_sync(0xffffffffu, f, o);
    if ((threadIdx.x & 31) == 0 && f)
        atomicAdd((unsigned long long *)flow, (unsigned long long)f);
}

static __global__ void node_stats(const long long *flow, const node_flags *f, int relabels, gc_dev_stats *stats, int it)
{
    stats->flow[it] = *flow;
    stats->rounds[it] = f->rounds;
    stats->relabels[it] = relabels;
}

/* ---- the host loop: one read-back a batch ---- */

struct launches_state {
    node_flags *flags;                 /* device */
    node_flags *host;                  /* pinned */
};

static sb_status launches_prepare(gc_dev *d, sb_error *err)
{
    launches_state *s = (launches_state *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->cut_state = s;
    SB_CUDA_TRY(cudaMalloc(&s->flags, sizeof(node_flags)), err, d->who);
    SB_CUDA_TRY(cudaMallocHost(&s->host, sizeof(node_flags)), err, d->who);
    return SB_OK;
}

static void launches_release(gc_dev *d)
{
    launches_state *s = (launches_state *)d->cut_state;
    if (!s)
        return;
    cudaFree(s->flags);
    cudaFreeHost(s->host);
    free(s);
}

/* The global relabel into h: sweeps in batches of BFS_PER_CHECK until one
 * changes nothing. */
static sb_status launches_bfs(gc_dev *d, node_net t, int32_t *h, node_flags *flags, node_flags *host, sb_error *err)
{
    unsigned blocks = sb_div_up((unsigned long long)d->n, NODE_BLOCK);
    node_bfs_init<<<blocks, NODE_BLOCK, 0, d->stream>>>(t, h, flags->bfs);
    SB_CUDA_LAUNCHED(err, d->who);
    for (;;) {
        SB_CUDA_TRY(cudaMemsetAsync(flags->bfs + 1, 0, sizeof(int) * BFS_PER_CHECK, d->stream), err, d->who);
        for (int s = 1; s <= BFS_PER_CHECK; s++)
            node_bfs<<<blocks, NODE_BLOCK, 0, d->stream>>>(t, h, flags->bfs, s);
        SB_CUDA_LAUNCHED(err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(host->bfs, flags->bfs, sizeof host->bfs, cudaMemcpyDeviceToHost, d->stream), err,
                    d->who);
        SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
        if (host->bfs[BFS_PER_CHECK] == 0)
            return SB_OK;
        /* still changing: the next batch's launch 1 looks at slot 0 */
        SB_CUDA_TRY(cudaMemsetAsync(flags->bfs, 0xff, sizeof(int), d->stream), err, d->who);
    }
}

/* A cut from zero flow: cuda-global's loop -- a global relabel, then up
 * to SB_MF_RELABEL_EVERY rounds of push and gather-relabel, the done flag
 * read back once a period -- and the final BFS's canonical cut. */
static sb_status launches_solve(gc_dev *d, int it, sb_error *err)
{
    launches_state *state = (launches_state *)d->cut_state;
    node_flags *flags = state->flags, *host = state->host;
    node_net t = { d->width, d->height, d->n, d->r, d->sink, d->excess, d->inflow };
    unsigned blocks = sb_div_up((unsigned long long)d->n, NODE_BLOCK);
    node_init<<<blocks, NODE_BLOCK, 0, d->stream>>>(t, d->term, d->nlink[0], d->nlink[1], d->nlink[2], d->nlink[3]);
    SB_CUDA_LAUNCHED(err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(flags, 0, sizeof *flags, d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(&d->s->flow, 0, sizeof d->s->flow, d->stream), err, d->who);
    int relabels = 0;
    sb_status st;
    for (;;) {
        if ((st = launches_bfs(d, t, d->h[0], flags, host, err)))
            return st;
        relabels++;
        for (int i = 0; i < SB_MF_RELABEL_EVERY; i++) {
            int32_t *h = d->h[i & 1], *h_next = d->h[(i & 1) ^ 1];
            node_push<<<blocks, NODE_BLOCK, 0, d->stream>>>(t, h, flags);
            node_decide<<<1, 1, 0, d->stream>>>(flags, 1);
            node_relabel<<<blocks, NODE_BLOCK, 0, d->stream>>>(t, h, h_next, flags);
            node_decide<<<1, 1, 0, d->stream>>>(flags, 0);
        }
        SB_CUDA_LAUNCHED(err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(&host->done, &flags->done, sizeof host->done, cudaMemcpyDeviceToHost, d->stream),
                    err, d->who);
        SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
        if (host->done)
            break;
    }
    if ((st = launches_bfs(d, t, d->h[0], flags, host, err)))
        return st;
    node_cut<<<blocks, NODE_BLOCK, 0, d->stream>>>(t, d->h[0], d->term, d->fg, &d->s->flow);
    node_stats<<<1, 1, 0, d->stream>>>(&d->s->flow, flags, relabels, d->stats, it);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static const gc_cut launches_cut = { launches_prepare, launches_solve, launches_release, 0 };

/* ---- the variants ---- */

GC_CUDA_OPS(maxflow, GC_MAXFLOW, launches_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, launches_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-launches", "cuda-global", "cuda-global", 0,
             "the cut as ordinary launches: a kernel a phase, the grid barrier a kernel boundary, flags decide on the device",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-launches", "cuda-global", "cuda-global", 0,
             "the cut as ordinary launches: a kernel a phase, the grid barrier a kernel boundary, flags decide on the device",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
