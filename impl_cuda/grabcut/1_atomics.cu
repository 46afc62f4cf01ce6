/* 1_atomics.cu - GrabCut's k-means and GMM learning with every pixel's
 * sums added straight to global memory (variant "cuda-atomics" of the
 * grabcut-kmeans and grabcut-gmm steps).
 *
 * A branch of cuda-global, and its lesson.  Both steps add integer
 * totals -- k-means 4 per centre (R, G, B, count), GMM 10 moments per
 * component -- over 10 targets (5 components on each side of the mask).
 * cuda-global (gc_kmeans_pass and gc_learn_sums in gc_device.cu, which
 * every later rung runs) gathers each block's totals in shared memory
 * and adds them to global memory once a block.  Here each pixel adds its
 * values to the global totals itself: 4 or 10 64-bit atomics a pixel,
 * all landing on 40 or 100 addresses, which the L2 serialises.  Nothing
 * else differs, so the two rungs' times are the price of contended
 * global atomics (below: many times slower).  The results are the same integers.
 *
 * Measured (the run of record: h100-80gb-hbm3, run 20261126T132810Z-3f2e, commit 5cc2514;
 * written by make lesson-headers, checked by make test):
 *   grabcut-kmeans rect at synth-1920x1080 (cuda-global -> cuda-atomics):
 *     kernel 2.391 -> 37.02 ms (same (0.06x)), per frame 2.571 -> 37.35 ms (0.07x)
 *   grabcut-gmm rect at synth-1920x1080 (cuda-global -> cuda-atomics):
 *     kernel 1.244 -> 16.18 ms (0.08x), per frame 1.481 -> 16.54 ms (0.09x)
 */
#include "gc_device.cuh"

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

static void rung_kmeans_pass(gc_dev *d)
{
    direct_kmeans_pass<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s,
                                                                 &d->stats->passes);
}

static void rung_learn_sums(gc_dev *d)
{
    direct_learn_sums<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s);
}

static const gc_sums direct_sums = { rung_kmeans_pass, rung_learn_sums };
static const gc_cut no_cut = { nullptr, nullptr, nullptr, 0 };   /* these steps do not cut */

static sb_status open_direct(void **state, int step, const sb_image *in, const void *params, void *output,
                             const sb_exec *exec, sb_error *err)
{
    sb_status st = gc_dev_open((gc_dev **)state, step, &no_cut, in, params, output, exec, err);
    if (!st)
        ((gc_dev *)*state)->sums = &direct_sums;
    return st;
}

static sb_status kmeans_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    return open_direct(state, GC_KMEANS, in, params, output, exec, err);
}

static sb_status gmm_prepare(void **state, const sb_image *in, const void *params, void *output,
                             const sb_exec *exec, sb_error *err)
{
    return open_direct(state, GC_GMM, in, params, output, exec, err);
}

static sb_status atomics_upload(void *s, sb_error *err) { return gc_dev_upload((gc_dev *)s, err); }
static sb_status atomics_run(void *s, sb_error *err) { return gc_dev_run((gc_dev *)s, err); }
static sb_status atomics_fetch(void *s, sb_error *err) { return gc_dev_fetch((gc_dev *)s, err); }
static void atomics_release(void *s) { gc_dev_close((gc_dev *)s); }

SB_VARIANT("grabcut-kmeans", "cuda-atomics", "cuda-global", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-global with every pixel's sums added straight to the global totals (4 atomics a pixel)",
           kmeans_prepare, atomics_upload, atomics_run, atomics_fetch, atomics_release)
SB_VARIANT("grabcut-gmm", "cuda-atomics", "cuda-global", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-global with every pixel's moments added straight to the global totals (10 atomics a pixel)",
           gmm_prepare, atomics_upload, atomics_run, atomics_fetch, atomics_release)
SB_RUNG("grabcut-kmeans", "cuda-atomics", "cuda-global",
        "every pixel adds its sums straight to the global totals: the branch that shows why blocks sum first")
SB_RUNG("grabcut-gmm", "cuda-atomics", "cuda-global",
        "every pixel adds its moments straight to the global totals: the branch that shows why blocks sum first")
