/* 2_atomics.cu - GrabCut's k-means and GMM learning with every pixel's
 * sums added straight to global memory (variant "cuda-atomics" of the
 * grabcut-kmeans and grabcut-gmm steps).
 *
 * A branch of cuda-global, and its lesson.  Both steps add integer
 * totals -- k-means 4 per centre (R, G, B, count), GMM 10 moments per
 * component -- over 10 targets (5 components on each side of the mask).
 * cuda-global gathers each block's totals in shared memory and adds them
 * to global memory once a block (block_kmeans_pass, block_learn_sums).
 * Here each pixel adds its values to the global totals itself: 4 or 10
 * 64-bit atomics a pixel, all landing on 40 or 100 addresses, which the
 * L2 serialises.  Nothing else differs (the rest of the file is
 * cuda-global's, its cut unused by these two steps), so the two rungs'
 * times are the price of contended global atomics (below: many times
 * slower).  The results are the same integers.
 *
 */
#include "gc_device.cuh"

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

static const gc_cut rounds_cut = { rounds_prepare, rounds_solve, rounds_release, 0 };

/* ---- the k-means and GMM sums, every pixel straight to global memory ---- */

/* One k-means pass: each pixel's nearest centre among its side's 5, the
 * changed count and the integer sums, all added to global memory by every
 * pixel.  A no-op once converged. */
static __global__ void direct_kmeans_pass(long n, const uint8_t *rgb, const uint8_t *mask, uint8_t *comp,
                                          gc_dev_scratch *s, const int *passes)
{
    __shared__ sb_kmeans_prepped centres[2 * SB_GC_K];
    if (s->kdone)
        return;
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K)
        centres[t] = sb_kmeans_prep(s->centres[t / SB_GC_K][t % SB_GC_K]);
    __syncthreads();
    long i = (long)blockIdx.x * blockDim.x + t;
    if (i >= n)
        return;
    int side = SB_GC_SIDE(mask[i]);
    const uint8_t *px = rgb + 3 * i;
    int best = gc_kmeans_nearest(centres + side * SB_GC_K, px);
    if (*passes == 0 || comp[i] != best)
        atomicAdd(&s->changed, 1ull);
    comp[i] = (uint8_t)best;
    unsigned long long *sum = s->ksums[side * SB_GC_K + best];
    atomicAdd(&sum[0], (unsigned long long)px[0]);
    atomicAdd(&sum[1], (unsigned long long)px[1]);
    atomicAdd(&sum[2], (unsigned long long)px[2]);
    atomicAdd(&sum[3], 1ull);
}

/* The GMM moments of every pixel's side and component, each added to
 * global memory by its pixel. */
static __global__ void direct_learn_sums(long n, const uint8_t *rgb, const uint8_t *mask, const uint8_t *comp,
                                         gc_dev_scratch *s)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t own[10] = { 0 };
    sb_gc_sums_add(own, rgb + 3 * i);
    unsigned long long *sum = &s->gsums[0][0][0] + 10 * (SB_GC_SIDE(mask[i]) * SB_GC_K + comp[i]);
    for (int j = 0; j < 10; j++)
        atomicAdd(&sum[j], (unsigned long long)own[j]);
}

static void direct_kmeans(gc_dev *d)
{
    direct_kmeans_pass<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s,
                                                                 &d->stats->passes);
}

static void direct_learn(gc_dev *d)
{
    direct_learn_sums<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s);
}

static const gc_sums direct_sums = { direct_kmeans, direct_learn };

/* ---- the variants ---- */

GC_CUDA_OPS(kmeans_atomics, GC_KMEANS, rounds_cut, direct_sums)
GC_CUDA_OPS(gmm_atomics, GC_GMM, rounds_cut, direct_sums)

SB_VARIANT("grabcut-kmeans", "cuda-atomics", "cuda-global", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-global with every pixel's sums added straight to the global totals (4 atomics a pixel)",
           kmeans_atomics_prepare, kmeans_atomics_upload, kmeans_atomics_run, kmeans_atomics_fetch, kmeans_atomics_release)
SB_VARIANT("grabcut-gmm", "cuda-atomics", "cuda-global", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-global with every pixel's moments added straight to the global totals (10 atomics a pixel)",
           gmm_atomics_prepare, gmm_atomics_upload, gmm_atomics_run, gmm_atomics_fetch, gmm_atomics_release)
SB_RUNG("grabcut-kmeans", "cuda-atomics", "cuda-global",
        "every pixel adds its sums straight to the global totals: the branch that shows why blocks sum first")
SB_RUNG("grabcut-gmm", "cuda-atomics", "cuda-global",
        "every pixel adds its moments straight to the global totals: the branch that shows why blocks sum first")
