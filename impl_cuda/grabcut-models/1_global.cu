/* 1_global.cu - GrabCut's k-means and GMM learning with global memory
 * (variant "cuda-global" of the grabcut-kmeans and grabcut-gmm steps): the
 * root of their ladder, which this folder holds.
 *
 * Thread a pixel, gc_device.cu's steps: each block gathers its totals in
 * shared memory and adds them to global memory once (gc_block_sums); the
 * k-means loop ends on a device flag, the mixtures are the host's
 * function run in one block.  The rungs after it change only how the sums
 * are gathered (2_atomics.cu, 3_warpsums.cu).  The steps carry the
 * pipeline's cut (gc_rounds_cut, ../grabcut/1_global.cu) unused: a step
 * runs no max-flow.
 */
#include "../grabcut/1_global.cuh"

GC_CUDA_OPS(kmeans_global, GC_KMEANS, gc_rounds_cut, gc_block_sums)
GC_CUDA_OPS(gmm_global, GC_GMM, gc_rounds_cut, gc_block_sums)

SB_VARIANT("grabcut-kmeans", "cuda-global", "cuda-global", CUDA, SB_DEVICE, ALL_STAGES,
           "thread a pixel, per-block shared sums then global atomics, 10 passes ending on a device flag",
           kmeans_global_prepare, kmeans_global_upload, kmeans_global_run, kmeans_global_fetch, kmeans_global_release)
SB_VARIANT("grabcut-gmm", "cuda-global", "cuda-global", CUDA, SB_DEVICE, ALL_STAGES,
           "thread a pixel, per-block shared moment sums, mixtures in one block (the host's function)",
           gmm_global_prepare, gmm_global_upload, gmm_global_run, gmm_global_fetch, gmm_global_release)
SB_RUNG("grabcut-kmeans", "cuda-global", NULL, "the root: a thread a pixel, per-block shared sums, the loop ending on a device flag")
SB_RUNG("grabcut-gmm", "cuda-global", NULL, "the root: a thread a pixel, per-block moment sums, mixtures by the host's function in one block")
