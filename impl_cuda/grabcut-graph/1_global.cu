/* 1_global.cu - GrabCut's graph build with global memory (cuda-global of
 * grabcut-graph, its root): beta summed a warp at a time, then each pixel's
 * integer n-links and t-links; the pipeline's cut rides along unused. */
#include "../grabcut/1_global.cuh"

GC_CUDA_OPS(graph_global, GC_GRAPH, gc_rounds_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-graph", "cuda-global", NULL, "cuda-global", SB_LADDER_TOP,
             "the root: a thread a pixel, a warp-summed beta, then n-links and t-links",
             graph_global_prepare, graph_global_upload, graph_global_run, graph_global_fetch, graph_global_release)
