/* grabcut_openmp.c - GrabCut with OpenMP (variant "openmp" of every
 * GrabCut step and the pipeline): impl_cpu/grabcut_steps.c's phases and
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

#define GC_OPENMP_PREPARE(fn, step)                                                                     \
    static sb_status fn(void **state, const sb_image *in, const void *params, void *output,             \
                        const sb_exec *exec, sb_error *err)                                              \
    {                                                                                                    \
        sb_band_runner runner = { openmp_runner, NULL, exec->threads };                                  \
        return sb_gc_host_prepare(state, step, SB_MF_ROUNDS, exec->who, in, params, output, runner, err); \
    }
GC_OPENMP_PREPARE(kmeans_prepare, SB_GC_STEP_KMEANS)
GC_OPENMP_PREPARE(gmm_prepare, SB_GC_STEP_GMM)
GC_OPENMP_PREPARE(graph_prepare, SB_GC_STEP_GRAPH)
GC_OPENMP_PREPARE(maxflow_prepare, SB_GC_STEP_MAXFLOW)
GC_OPENMP_PREPARE(pipeline_prepare, SB_GC_STEP_PIPELINE)

SB_VARIANT("grabcut-kmeans", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "row bands as OpenMP loops, per-band integer sums",
           kmeans_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-gmm", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "row bands as OpenMP loops, per-band moment sums",
           gmm_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-graph", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "row bands as OpenMP loops",
           graph_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-maxflow", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "synchronous push-relabel rounds as OpenMP loops, serial BFS relabel",
           maxflow_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "the steps with OpenMP, push-relabel rounds for the cuts, cuts 2-5 warm-started from the last flow",
           pipeline_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
