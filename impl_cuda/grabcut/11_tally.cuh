/* 11_tally.cuh - what cuda-tally (11_tally.cu) lends the cuts after it:
 * its sweep, whose tiles flag the work they leave, ROUNDS rounds a launch
 * at most (8, and cuda-longer's 16: 11_tally.cu instantiates those). */
#ifndef SEGBENCH_GC_11_TALLY_CUH
#define SEGBENCH_GC_11_TALLY_CUH

#include "gc_tiles.cuh"

template <int ROUNDS>
void gc_tally_sweep(cudaStream_t s, const gc_loop &l, int sweep);

#endif
