/* grabcut_openmp.c - GrabCut with OpenMP (variant "openmp" of every
 * GrabCut stage and the pipeline): impl_cpu/grabcut_steps.c's phases and
 * maxflow.h's push-relabel rounds, each phase one parallel loop over the
 * bands, the loop's implicit barrier between phases.  Against pthread,
 * only who owns the threads differs. */
#include "grabcut_host.h"

#include <omp.h>

static void openmp_runner(void *self, sb_band_fn fn, void *ctx, int bands)
{
    (void)self;
#pragma omp parallel for num_threads(bands) schedule(static, 1)
    for (int b = 0; b < bands; b++)
        fn(ctx, b, bands);
}

#define GC_OPENMP_OPS(name, stage, who)                                                                  \
    static sb_status name##_prepare(void **state, const sb_image *in, const void *params, void *output, \
                                    const sb_exec *exec, sb_error *err)                                \
    {                                                                                                    \
        sb_band_runner runner = { openmp_runner, NULL, exec->threads };                                  \
        return sb_gc_host_prepare(state, stage, SB_MF_ROUNDS, who, in, params, output, runner, err);     \
    }                                                                                                    \
    const sb_variant_ops name = { name##_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release };

GC_OPENMP_OPS(sb_gc_kmeans_openmp_ops, SB_GC_STAGE_KMEANS, "grabcut-kmeans/openmp")
GC_OPENMP_OPS(sb_gc_gmm_openmp_ops, SB_GC_STAGE_GMM, "grabcut-gmm/openmp")
GC_OPENMP_OPS(sb_gc_graph_openmp_ops, SB_GC_STAGE_GRAPH, "grabcut-graph/openmp")
GC_OPENMP_OPS(sb_gc_maxflow_openmp_ops, SB_GC_STAGE_MAXFLOW, "grabcut-maxflow/openmp")
GC_OPENMP_OPS(sb_gc_pipeline_openmp_ops, SB_GC_STAGE_PIPELINE, "grabcut/openmp")
