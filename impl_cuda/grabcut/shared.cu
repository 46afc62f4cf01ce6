/* shared.cu - GrabCut's max-flow in shared-memory tiles (variant
 * "cuda-shared" of grabcut-maxflow and the pipeline): the cut runs
 * several push/relabel rounds a launch inside 16x16 tiles, and the global
 * relabel relaxes distances inside tiles (tiles_device.cu).  Against
 * cuda-global only the cut differs; the per-pixel steps are the same. */
#include "gc_device.cuh"

GC_CUDA_OPS(maxflow_shared, GC_MAXFLOW, GC_CUT_TILES, "grabcut-maxflow/cuda-shared")
GC_CUDA_OPS(pipeline_shared, GC_PIPELINE, GC_CUT_TILES, "grabcut/cuda-shared")

extern "C" const sb_variant_ops sb_gc_maxflow_cuda_shared_ops = {
    maxflow_shared_prepare, maxflow_shared_upload, maxflow_shared_run, maxflow_shared_fetch, maxflow_shared_release
};
extern "C" const sb_variant_ops sb_gc_pipeline_cuda_shared_ops = {
    pipeline_shared_prepare, pipeline_shared_upload, pipeline_shared_run, pipeline_shared_fetch,
    pipeline_shared_release
};
