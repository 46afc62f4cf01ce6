/* 10_settled.cuh - what cuda-settled (10_settled.cu) lends the cuts
 * after it: its relabel, which skips the tiles that have settled. */
#ifndef SEGBENCH_GC_10_SETTLED_CUH
#define SEGBENCH_GC_10_SETTLED_CUH

#include "gc_tiles.cuh"

void gc_settled_bfs_start(cudaStream_t s, const gc_loop &l);
void gc_settled_bfs(cudaStream_t s, const gc_loop &l, int slot);

#endif
