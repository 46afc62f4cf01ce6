/* 9_inplace.cuh - what cuda-inplace (9_inplace.cu) lends cuda-settled:
 * its sweep. */
#ifndef SEGBENCH_GC_9_INPLACE_CUH
#define SEGBENCH_GC_9_INPLACE_CUH

#include "gc_tiles.cuh"

void gc_inplace_sweep(cudaStream_t s, const gc_loop &l, int sweep);

#endif
