/* 3_warpsums.cu - cuda-warpsums of grabcut-kmeans and grabcut-gmm.  Grows
 * from cuda-global.  The idea: a warp sums its lanes' values one distinct
 * component at a time (match, then sb_warp_sum), so one lane per component
 * and value adds to shared memory instead of every pixel. */
#include "../grabcut/1_global.cuh"
#include "3_warpsums.cuh"
#include "../warp.cuh"

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

const gc_sums gc_warp_sums = { warp_kmeans, warp_learn };

/* ---- the variants ---- */

GC_CUDA_OPS(kmeans, GC_KMEANS, gc_rounds_cut, gc_warp_sums)
GC_CUDA_OPS(gmm, GC_GMM, gc_rounds_cut, gc_warp_sums)

SB_CUDA_RUNG("grabcut-kmeans", "cuda-warpsums", "cuda-global", "cuda-global", SB_LADDER_TOP,
             "the sums gathered a warp at a time: one shared atomic per distinct cluster",
             kmeans_prepare, kmeans_upload, kmeans_run, kmeans_fetch, kmeans_release)
SB_CUDA_RUNG("grabcut-gmm", "cuda-warpsums", "cuda-global", "cuda-global", SB_LADDER_TOP,
             "the moments gathered a warp at a time: one shared atomic per distinct component",
             gmm_prepare, gmm_upload, gmm_run, gmm_fetch, gmm_release)
