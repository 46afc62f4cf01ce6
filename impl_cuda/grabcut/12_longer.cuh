/* 12_longer.cuh - what cuda-longer (12_longer.cu) lends cuda-warpsums:
 * its kernels, whole. */
#ifndef SEGBENCH_GC_12_LONGER_CUH
#define SEGBENCH_GC_12_LONGER_CUH

#include "gc_tiles.cuh"

extern const gc_tile_kernels gc_longer_kernels;

#endif
