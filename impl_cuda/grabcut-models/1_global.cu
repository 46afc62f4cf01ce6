/* 1_global.cu - GrabCut's k-means and GMM steps with global memory
 * (cuda-global of grabcut-kmeans and grabcut-gmm, their root): thread a
 * pixel, a block's totals gathered in shared memory (gc_block_sums). */
#include "../grabcut/1_global.cuh"

GC_CUDA_OPS(kmeans, GC_KMEANS, gc_rounds_cut, gc_block_sums)
GC_CUDA_OPS(gmm, GC_GMM, gc_rounds_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-kmeans", "cuda-global", NULL, "cuda-global", 0,
             "the root: a thread a pixel, per-block shared sums, the loop ending on a device flag",
             kmeans_prepare, kmeans_upload, kmeans_run, kmeans_fetch, kmeans_release)
SB_CUDA_RUNG("grabcut-gmm", "cuda-global", NULL, "cuda-global", 0,
             "the root: a thread a pixel, per-block moment sums, mixtures by the host's function in one block",
             gmm_prepare, gmm_upload, gmm_run, gmm_fetch, gmm_release)
