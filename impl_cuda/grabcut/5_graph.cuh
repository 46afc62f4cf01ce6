/* 5_graph.cuh - what cuda-graph (5_graph.cu) lends the cuts after it:
 * the loop of a gc_tile_kernels table recorded once as a CUDA graph. */
#ifndef SEGBENCH_GC_5_GRAPH_CUH
#define SEGBENCH_GC_5_GRAPH_CUH

#include "gc_tiles.cuh"

/* prepare records the loop of kernels k as one graph, solve starts a cut
 * (k->start, or gc_warm_start) and launches it, release frees it. */
sb_status gc_graph_prepare(gc_dev *d, const gc_tile_kernels *k, sb_error *err);
sb_status gc_graph_solve(gc_dev *d, int it, sb_error *err);
void gc_graph_release(gc_dev *d);

/* A rung's cut `cut`: this loop of its kernels. */
#define GC_GRAPH_CUT(cut, kernels)                                                                     \
    static sb_status cut##_prepare(gc_dev *d, sb_error *err) { return gc_graph_prepare(d, &kernels, err); } \
    static const gc_cut cut = { cut##_prepare, gc_graph_solve, gc_graph_release, 1 };

#endif
