/* 3_warpsums.cuh - what cuda-warpsums of the k-means and GMM steps
 * (3_warpsums.cu) lends the pipeline's: its sums, gathered a warp at a
 * time. */
#ifndef SEGBENCH_GC_MODELS_3_WARPSUMS_CUH
#define SEGBENCH_GC_MODELS_3_WARPSUMS_CUH

#include "../grabcut/gc_device.cuh"

extern const gc_sums gc_warp_sums;

#endif
