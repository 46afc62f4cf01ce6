/* 1_atomics.cu - GrabCut's k-means and GMM learning with every pixel's
 * sums added straight to global memory (variant "cuda-atomics" of the
 * grabcut-kmeans and grabcut-gmm steps).
 *
 * The rung before cuda-global, and its lesson.  Both steps add integer
 * totals -- k-means 4 per centre (R, G, B, count), GMM 10 moments per
 * component -- over 10 targets (5 components on each side of the mask).
 * Here each pixel adds its values to the global totals itself
 * (GC_SUMS_DIRECT in gc_device.cu): 4 or 10 64-bit atomics a pixel, all
 * landing on 40 or 100 addresses, which the L2 serialises.  cuda-global
 * gathers each block's totals in shared memory first and adds them once
 * a block; nothing else differs, so the two rungs' times are the price of
 * contended global atomics.  The results are the same integers.
 */
#include "gc_device.cuh"

static const gc_cut no_cut = { nullptr, nullptr, nullptr, 0 };   /* these steps do not cut */

static sb_status open_direct(void **state, int step, const sb_image *in, const void *params, void *output,
                             const sb_exec *exec, sb_error *err)
{
    sb_status st = gc_dev_open((gc_dev **)state, step, &no_cut, in, params, output, exec, err);
    if (!st)
        ((gc_dev *)*state)->sums = GC_SUMS_DIRECT;
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
