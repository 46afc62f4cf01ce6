/* global.cu - GrabCut with global memory (variant "cuda-global" of every
 * GrabCut stage and the pipeline): gc_device.cu's thread-a-pixel steps,
 * and the max-flow as one cooperative kernel of synchronous push-relabel
 * rounds over all nodes (maxflow_device.cu). */
#include "gc_device.cuh"

GC_CUDA_OPS(kmeans_global, GC_KMEANS, GC_CUT_ROUNDS, "grabcut-kmeans/cuda-global")
GC_CUDA_OPS(gmm_global, GC_GMM, GC_CUT_ROUNDS, "grabcut-gmm/cuda-global")
GC_CUDA_OPS(graph_global, GC_GRAPH, GC_CUT_ROUNDS, "grabcut-graph/cuda-global")
GC_CUDA_OPS(maxflow_global, GC_MAXFLOW, GC_CUT_ROUNDS, "grabcut-maxflow/cuda-global")
GC_CUDA_OPS(pipeline_global, GC_PIPELINE, GC_CUT_ROUNDS, "grabcut/cuda-global")

extern "C" const sb_variant_ops sb_gc_kmeans_cuda_global_ops = {
    kmeans_global_prepare, kmeans_global_upload, kmeans_global_run, kmeans_global_fetch, kmeans_global_release
};
extern "C" const sb_variant_ops sb_gc_gmm_cuda_global_ops = {
    gmm_global_prepare, gmm_global_upload, gmm_global_run, gmm_global_fetch, gmm_global_release
};
extern "C" const sb_variant_ops sb_gc_graph_cuda_global_ops = {
    graph_global_prepare, graph_global_upload, graph_global_run, graph_global_fetch, graph_global_release
};
extern "C" const sb_variant_ops sb_gc_maxflow_cuda_global_ops = {
    maxflow_global_prepare, maxflow_global_upload, maxflow_global_run, maxflow_global_fetch, maxflow_global_release
};
extern "C" const sb_variant_ops sb_gc_pipeline_cuda_global_ops = {
    pipeline_global_prepare, pipeline_global_upload, pipeline_global_run, pipeline_global_fetch,
    pipeline_global_release
};
