/* 2_warpsums.cuh - what cuda-warpsums of the k-means and GMM steps
 * (2_warpsums.cu) lends the pipeline's: its sums, gathered a warp at a
 * time. */
#ifndef SEGBENCH_GC_2_WARPSUMS_CUH
#define SEGBENCH_GC_2_WARPSUMS_CUH

#include "gc_device.cuh"

extern const gc_sums gc_warp_sums;

#endif
