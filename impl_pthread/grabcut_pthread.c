/* grabcut_pthread.c - GrabCut on explicit POSIX threads (variant "pthread"
 * of every GrabCut stage and the pipeline).
 *
 * The steps are impl_cpu/grabcut_steps.c's band phases and the cut is the
 * synchronous push-relabel of maxflow.h, whose two phases a round are two
 * band phases here; the process's thread pool runs them, one band per
 * thread, its join the barrier.  The global relabel (a BFS) stays serial.
 */
#include "grabcut_host.h"

#include "pool.h"

static sb_status prepare(void **state, sb_gc_stage stage, const char *who, const sb_image *in, const void *params,
                         void *output, const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    sb_pool *pool;
    sb_status st = sb_pool_shared(&pool, exec->threads, err);
    if (st)
        return st;
    sb_band_runner runner = sb_pool_band_runner(pool, exec->threads);
    return sb_gc_host_prepare(state, stage, SB_MF_ROUNDS, who, in, params, output, runner, err);
}

#define GC_PTHREAD_OPS(name, stage, who)                                                                 \
    static sb_status name##_prepare(void **state, const sb_image *in, const void *params, void *output, \
                                    const sb_exec *exec, sb_error *err)                                \
    {                                                                                                    \
        return prepare(state, stage, who, in, params, output, exec, err);                                \
    }                                                                                                    \
    const sb_variant_ops name = { name##_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release };

GC_PTHREAD_OPS(sb_gc_kmeans_pthread_ops, SB_GC_STAGE_KMEANS, "grabcut-kmeans/pthread")
GC_PTHREAD_OPS(sb_gc_gmm_pthread_ops, SB_GC_STAGE_GMM, "grabcut-gmm/pthread")
GC_PTHREAD_OPS(sb_gc_graph_pthread_ops, SB_GC_STAGE_GRAPH, "grabcut-graph/pthread")
GC_PTHREAD_OPS(sb_gc_maxflow_pthread_ops, SB_GC_STAGE_MAXFLOW, "grabcut-maxflow/pthread")
GC_PTHREAD_OPS(sb_gc_pipeline_pthread_ops, SB_GC_STAGE_PIPELINE, "grabcut/pthread")
