/* 13_warpsums.cu - cuda-warpsums of the pipeline, which Grows from
 * cuda-longer: the k-means and GMM sums a warp at a time
 * (../grabcut-models/3_warpsums.cuh).  In grabcut-maxflow, which runs no
 * sums, A branch of cuda-longer with its cut, carried for the rungs after. */
#include "../grabcut-models/3_warpsums.cuh"
#include "5_graph.cuh"
#include "12_longer.cuh"

GC_GRAPH_CUT(graph_cut, gc_longer_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_warp_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_warp_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-warpsums", "cuda-longer", "cuda-shared", SB_GRAPH_LOOP,
             "the pipeline's warp sums carried along: a single cut runs no k-means or GMM step (a step for cuda-keep)",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-warpsums", "cuda-longer", "cuda-shared", SB_GRAPH_LOOP | SB_LADDER_TOP,
             "the k-means and GMM sums gathered a warp at a time: one shared atomic per distinct component",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
