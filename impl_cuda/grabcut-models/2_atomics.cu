/* 2_atomics.cu - cuda-atomics of grabcut-kmeans and grabcut-gmm.  A branch of
 * cuda-global.  The idea: no block totals, every pixel's values go straight
 * to global 64-bit atomics on 40 or 100 addresses, which the L2 serialises:
 * the edge prices contended global atomics. */
#include "../grabcut/1_global.cuh"

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

GC_CUDA_OPS(kmeans, GC_KMEANS, gc_rounds_cut, direct_sums)
GC_CUDA_OPS(gmm, GC_GMM, gc_rounds_cut, direct_sums)

SB_CUDA_RUNG("grabcut-kmeans", "cuda-atomics", "cuda-global", "cuda-global", 0,
             "every pixel adds its sums straight to the global totals: the branch that shows why blocks sum first",
             kmeans_prepare, kmeans_upload, kmeans_run, kmeans_fetch, kmeans_release)
SB_CUDA_RUNG("grabcut-gmm", "cuda-atomics", "cuda-global", "cuda-global", 0,
             "every pixel adds its moments straight to the global totals: the branch that shows why blocks sum first",
             gmm_prepare, gmm_upload, gmm_run, gmm_fetch, gmm_release)
