/* 2_warpsums.cu - GrabCut's k-means and GMM learning with the sums
 * gathered a warp at a time (variant "cuda-warpsums" of the
 * grabcut-kmeans and grabcut-gmm steps).
 *
 * Grows from cuda-global.  The idea: aggregate in the warp before
 * touching shared memory.  cuda-global's block_kmeans_pass has every
 * thread add 4 values, block_learn_sums 10, each a 64-bit atomic on the
 * block's shared totals, and a block's 256 pixels fall on a handful of
 * the 10 (side, component) totals, so the atomics on one address queue
 * up.  Neighbouring pixels mostly share their component: here each warp
 * takes its lanes one distinct component at a time (the lowest waiting
 * lane's, __shfl_sync; the lanes that share it, __ballot_sync), sums
 * each value over those lanes (sb_warp_sum, one instruction from sm_80:
 * a pixel's moments are below 2^16, so 32 of them fit in 32 bits), and
 * the lowest of them adds the group's totals to shared memory: one
 * atomic per distinct component and value a warp, instead of one per
 * pixel.  The changed-label count is a ballot.  The sums are integers,
 * so the totals, centres and mixtures are equal to the bit.  The rest of
 * the file is cuda-global's (its cut unused by these two steps); the
 * pipeline takes the same sums in 13_warpsums.cu.
 *
 */
#include "gc_device.cuh"
#include "../warp.cuh"

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

/* ---- the k-means and GMM sums, a warp at a time ---- */

/* Adds each lane's N values to sums[key] (key -1: no pixel), a distinct
 * key at a time: the lanes holding it sum each value in the warp, and the
 * lowest of them adds the totals to the block's shared sums.  Every lane
 * of the warp must call it. */
template <int N>
static __device__ __forceinline__ void warp_add(unsigned long long (*sums)[N], int key, const uint32_t (&v)[N])
{
    unsigned todo = __ballot_sync(0xffffffffu, key >= 0);
    while (todo) {
        int first = __ffs(todo) - 1;
        int k = __shfl_sync(0xffffffffu, key, first);
        bool mine = key == k;
#pragma unroll
        for (int j = 0; j < N; j++) {
            unsigned total = sb_warp_sum(LANES_ALL, mine ? v[j] : 0u);
            if ((int)(threadIdx.x & 31) == first)
                atomicAdd(&sums[k][j], (unsigned long long)total);
        }
        todo &= ~__ballot_sync(0xffffffffu, mine);
    }
}

/* gc_kmeans_pass with the sums and the changed count gathered a warp at a
 * time.  A no-op once converged. */
static __global__ void warp_kmeans_pass(long n, const uint8_t *rgb, const uint8_t *mask, uint8_t *comp,
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
    int key = -1, moved = 0;
    uint32_t v[4] = { 0, 0, 0, 0 };
    if (i < n) {
        int side = SB_GC_SIDE(mask[i]);
        const uint8_t *px = rgb + 3 * i;
        int best = gc_kmeans_nearest(centres + side * SB_GC_K, px);
        moved = *passes == 0 || comp[i] != best;
        comp[i] = (uint8_t)best;
        key = side * SB_GC_K + best;
        v[0] = px[0];
        v[1] = px[1];
        v[2] = px[2];
        v[3] = 1;
    }
    warp_add<4>(sums, key, v);
    unsigned moved_lanes = __ballot_sync(0xffffffffu, moved);
    if ((t & 31) == 0 && moved_lanes)
        atomicAdd(&changed, (unsigned long long)__popc(moved_lanes));
    __syncthreads();
    if (t < 2 * SB_GC_K * 4 && sums[t / 4][t % 4])
        atomicAdd(&s->ksums[t / 4][t % 4], sums[t / 4][t % 4]);
    if (t == 0 && changed)
        atomicAdd(&s->changed, changed);
}

/* gc_learn_sums with the moments gathered a warp at a time. */
static __global__ void warp_learn_sums(long n, const uint8_t *rgb, const uint8_t *mask, const uint8_t *comp,
                                       gc_dev_scratch *s)
{
    __shared__ unsigned long long sums[2 * SB_GC_K][10];
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K * 10)
        sums[t / 10][t % 10] = 0;
    __syncthreads();
    long i = (long)blockIdx.x * blockDim.x + t;
    int key = -1;
    uint32_t v[10] = { 0 };
    if (i < n) {
        uint64_t own[10] = { 0 };
        sb_gc_sums_add(own, rgb + 3 * i);
        for (int j = 0; j < 10; j++)
            v[j] = (uint32_t)own[j];                    /* at most 255 * 255 */
        key = SB_GC_SIDE(mask[i]) * SB_GC_K + comp[i];
    }
    warp_add<10>(sums, key, v);
    __syncthreads();
    if (t < 2 * SB_GC_K * 10 && sums[t / 10][t % 10])
        atomicAdd(&(&s->gsums[0][0][0])[t], sums[t / 10][t % 10]);
}

static void warp_kmeans(gc_dev *d)
{
    warp_kmeans_pass<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s,
                                                               &d->stats->passes);
}

static void warp_learn(gc_dev *d) { warp_learn_sums<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s); }

static const gc_sums warp_sums = { warp_kmeans, warp_learn };

/* ---- the variants ---- */

GC_CUDA_OPS(kmeans_warpsums, GC_KMEANS, rounds_cut, warp_sums)
GC_CUDA_OPS(gmm_warpsums, GC_GMM, rounds_cut, warp_sums)

SB_VARIANT("grabcut-kmeans", "cuda-warpsums", "cuda-global", CUDA, SB_DEVICE | SB_LADDER_TOP, ALL_STAGES,
           "cuda-global with the sums gathered a warp at a time: one shared atomic per distinct cluster and value",
           kmeans_warpsums_prepare, kmeans_warpsums_upload, kmeans_warpsums_run, kmeans_warpsums_fetch, kmeans_warpsums_release)
SB_VARIANT("grabcut-gmm", "cuda-warpsums", "cuda-global", CUDA, SB_DEVICE | SB_LADDER_TOP, ALL_STAGES,
           "cuda-global with the moments gathered a warp at a time: one shared atomic per distinct component and moment",
           gmm_warpsums_prepare, gmm_warpsums_upload, gmm_warpsums_run, gmm_warpsums_fetch, gmm_warpsums_release)
SB_RUNG("grabcut-kmeans", "cuda-warpsums", "cuda-global",
        "the sums gathered a warp at a time: one shared atomic per distinct cluster")
SB_RUNG("grabcut-gmm", "cuda-warpsums", "cuda-global",
        "the moments gathered a warp at a time: one shared atomic per distinct component")
