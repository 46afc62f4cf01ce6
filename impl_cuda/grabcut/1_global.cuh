/* 1_global.cuh - what cuda-global (1_global.cu) lends the rungs that
 * keep its cut: the cut of synchronous rounds in one cooperative kernel. */
#ifndef SEGBENCH_GC_1_GLOBAL_CUH
#define SEGBENCH_GC_1_GLOBAL_CUH

#include "gc_device.cuh"

extern const gc_cut gc_rounds_cut;

#endif
