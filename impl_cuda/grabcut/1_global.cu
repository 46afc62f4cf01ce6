/* 1_global.cu - GrabCut with global memory (cuda-global of the pipeline and
 * grabcut-maxflow, their root): thread-a-pixel steps, and a cut of
 * synchronous push-relabel rounds over every node in one cooperative kernel,
 * phases parted by grid.sync(), rounds equal to the host's. */
#include "1_global.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define MF_BLOCK 256

struct mf_args {
    int width, height;
    long n;
    const int32_t *term, *n0, *n1, *n2, *n3;
    int32_t *r, *sink, *excess, *h0, *h1, *inflow;
    uint8_t *fg;
    int *counter;
    long long *flow;
    gc_dev_stats *stats;
    int it;
};

/* How many of the grid's threads had pred set (0 exactly when none). */
static __device__ int grid_count(cg::grid_group &g, int *counter, int &step, int pred)
{
    int c = __syncthreads_count(pred);
    if (threadIdx.x == 0 && c)
        atomicAdd(&counter[step % 3], c);
    if (blockIdx.x == 0 && threadIdx.x == 0)
        counter[(step + 1) % 3] = 0;      /* the next step's; last read two steps ago */
    g.sync();
    int total = *(volatile int *)&counter[step % 3];
    step++;
    return total;
}

/* The global relabel into h: BFS distances to the sink, INF where none. */
static __device__ void grid_bfs(cg::grid_group &g, const sb_mf_net &net, int32_t *h, long n, long first, long stride,
                         int *counter, int &step)
{
    for (long p = first; p < n; p += stride)
        h[p] = net.sink[p] > 0 ? 1 : SB_MF_INF;
    g.sync();
    for (;;) {
        int changed = 0;
        for (long p = first; p < n; p += stride) {
            int32_t nh = sb_mf_relax(&net, h, n, p);
            if (nh < h[p]) {
                h[p] = nh;
                changed = 1;
            }
        }
        if (!grid_count(g, counter, step, changed))
            break;
    }
}

static __global__ void __launch_bounds__(MF_BLOCK) mf_rounds_kernel(mf_args a)
{
    cg::grid_group g = cg::this_grid();
    long n = a.n, stride = (long)gridDim.x * blockDim.x, first = (long)blockIdx.x * blockDim.x + threadIdx.x;
    sb_mf_net net = { a.width, a.height, a.r, a.sink, a.excess };
    const int32_t *nl[4] = { a.n0, a.n1, a.n2, a.n3 };

    /* the residual network before any flow (sb_mf_net_init) */
    for (long p = first; p < n; p += stride) {
        int x = (int)(p % a.width), y = (int)(p / a.width);
        for (int k = 0; k < SB_MF_DIRS; k++) {
            int qx = x + sb_mf_dx(k), qy = y + sb_mf_dy(k);
            int32_t c = 0;
            if (qx >= 0 && qy >= 0 && qx < a.width && qy < a.height)
                c = k < 4 ? nl[k][p] : nl[k - 4][(long)qy * a.width + qx];
            a.r[(size_t)k * n + p] = c;
        }
        int32_t t = a.term[p];
        a.excess[p] = t > 0 ? t : 0;
        a.sink[p] = t < 0 ? -t : 0;
        a.inflow[p] = 0;
    }
    if (first == 0) {
        a.counter[0] = a.counter[1] = a.counter[2] = 0;
        *a.flow = 0;
    }
    g.sync();

    int step = 0, rounds = 0, relabels = 0, done = 0;
    int32_t *h = a.h0, *h_next = a.h1;
    while (!done) {
        grid_bfs(g, net, h, n, first, stride, a.counter, step);
        relabels++;
        for (int i = 0; i < SB_MF_RELABEL_EVERY; i++) {
            int active = 0;
            for (long p = first; p < n; p += stride)
                if (a.excess[p] > 0 && h[p] < SB_MF_INF) {
                    active = 1;
                    sb_mf_push(&net, h, a.inflow, n, p);
                }
            if (!grid_count(g, a.counter, step, active)) {
                done = 1;
                break;
            }
            rounds++;
            active = 0;
            for (long p = first; p < n; p += stride) {
                int32_t e = a.excess[p] + a.inflow[p];
                a.inflow[p] = 0;
                a.excess[p] = e;
                int32_t hn = sb_mf_relabel(&net, h, n, p, e);
                h_next[p] = hn;
                active |= e > 0 && hn < SB_MF_INF;
            }
            int32_t *t = h;
            h = h_next;
            h_next = t;
            if (!grid_count(g, a.counter, step, active)) {
                done = 1;
                break;
            }
        }
    }

    /* the canonical cut and the flow */
    grid_bfs(g, net, h, n, first, stride, a.counter, step);
    long long flow = 0;
    for (long p = first; p < n; p += stride) {
        a.fg[p] = h[p] >= SB_MF_INF;
        if (a.term[p] < 0)
            flow += (long long)-a.term[p] - a.sink[p];
    }
    for (int o = 16; o > 0; o >>= 1)
        flow += __shfl_down_sync(0xffffffffu, flow, o);
    if ((threadIdx.x & 31) == 0 && flow)
        atomicAdd((unsigned long long *)a.flow, (unsigned long long)flow);
    g.sync();
    if (first == 0) {
        a.stats->flow[a.it] = *a.flow;
        a.stats->rounds[a.it] = rounds;
        a.stats->relabels[a.it] = relabels;
    }
}

/* ---- the cut the rung supplies ---- */

struct rounds_state {
    int blocks;                        /* resident blocks of the cooperative kernel */
};

static sb_status rounds_prepare(gc_dev *d, sb_error *err)
{
    rounds_state *s = (rounds_state *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->cut_state = s;
    int dev, coop = 0, sms = 0, per_sm = 0;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev), err, d->who);
    if (!coop)
        return sb_fail(err, SB_ERR_UNAVAILABLE, "%s: the device cannot launch cooperative kernels", d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err, d->who);
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mf_rounds_kernel, MF_BLOCK, 0), err, d->who);
    /* every block must be resident for grid.sync(); no more than the nodes need */
    long wanted = (d->n + MF_BLOCK - 1) / MF_BLOCK;
    long most = (long)per_sm * sms;
    s->blocks = (int)(wanted < most ? wanted : most);
    if (s->blocks < 1)
        return sb_fail(err, SB_ERR_DEVICE, "%s: the max-flow kernel cannot be resident", d->who);
    return SB_OK;
}

static sb_status rounds_solve(gc_dev *d, int it, sb_error *err)
{
    rounds_state *s = (rounds_state *)d->cut_state;
    mf_args a = { d->width, d->height, d->n, d->term, d->nlink[0], d->nlink[1], d->nlink[2], d->nlink[3],
                  d->r, d->sink, d->excess, d->h[0], d->h[1], d->inflow, d->fg, d->s->counter, &d->s->flow,
                  d->stats, it };
    void *args[] = { &a };
    SB_CUDA_TRY(cudaLaunchCooperativeKernel((const void *)mf_rounds_kernel, dim3(s->blocks), dim3(MF_BLOCK), args, 0,
                                            d->stream),
                err, d->who);
    return SB_OK;
}

static void rounds_release(gc_dev *d) { free(d->cut_state); }

const gc_cut gc_rounds_cut = { rounds_prepare, rounds_solve, rounds_release, 0 };

/* ---- the variants ---- */

GC_CUDA_OPS(maxflow, GC_MAXFLOW, gc_rounds_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, gc_rounds_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-global", NULL, "cuda-global", 0,
             "the root: push-relabel as one cooperative kernel, grid.sync between phases, BFS global relabel",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-global", NULL, "cuda-global", 0,
             "the root: the cuda-global steps and cut, resident, one read-back at the end",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
