/* grabcut_pthread.c - GrabCut on explicit POSIX threads (variant "pthread"
 * of every GrabCut step but the cut, and of the pipeline; the cut's is
 * maxflow_rounds_pthread.c, a lesson of its own).
 *
 * The steps are impl_cpu/grabcut_steps.c's band phases and the cut is the
 * synchronous push-relabel of maxflow.h, whose two phases a round are two
 * band phases here; the process's thread pool runs them, one band per
 * thread, its join the barrier.  The global relabel (a BFS) stays serial.
 *
 * "pthread-bk" (grabcut-maxflow and the pipeline) cuts with
 * Boykov-Kolmogorov instead: each thread's band of rows on its own, then
 * neighbouring regions joined pairwise (sb_mf_bk_bands).
 */
#include "grabcut_host.h"

#include "pool.h"

static sb_status prepare_with(void **state, sb_gc_step step, sb_mf_solver solver, const sb_image *in,
                              const void *params, void *output, const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    sb_pool *pool;
    sb_status st = sb_pool_shared(&pool, exec->threads, err);
    if (st)
        return st;
    sb_band_runner runner = sb_pool_band_runner(pool, exec->threads);
    return sb_gc_host_prepare(state, step, solver, exec->who, in, params, output, runner, err);
}

static sb_status prepare(void **state, sb_gc_step step, const sb_image *in, const void *params, void *output,
                         const sb_exec *exec, sb_error *err)
{
    return prepare_with(state, step, SB_MF_ROUNDS, in, params, output, exec, err);
}

#define GC_PTHREAD_PREPARE(fn, step)                                                                    \
    static sb_status fn(void **state, const sb_image *in, const void *params, void *output,             \
                        const sb_exec *exec, sb_error *err)                                              \
    {                                                                                                    \
        return prepare(state, step, in, params, output, exec, err);                                     \
    }
GC_PTHREAD_PREPARE(kmeans_prepare, SB_GC_STEP_KMEANS)
GC_PTHREAD_PREPARE(gmm_prepare, SB_GC_STEP_GMM)
GC_PTHREAD_PREPARE(graph_prepare, SB_GC_STEP_GRAPH)
GC_PTHREAD_PREPARE(pipeline_prepare, SB_GC_STEP_PIPELINE)

static sb_status maxflow_bk_prepare(void **state, const sb_image *in, const void *params, void *output,
                                    const sb_exec *exec, sb_error *err)
{
    return prepare_with(state, SB_GC_STEP_MAXFLOW, SB_MF_BK_BANDS, in, params, output, exec, err);
}

static sb_status pipeline_bk_prepare(void **state, const sb_image *in, const void *params, void *output,
                                     const sb_exec *exec, sb_error *err)
{
    return prepare_with(state, SB_GC_STEP_PIPELINE, SB_MF_BK_BANDS, in, params, output, exec, err);
}

SB_VARIANT("grabcut-kmeans", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "row bands on a thread pool, per-band integer sums",
           kmeans_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-gmm", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "row bands on a thread pool, per-band moment sums",
           gmm_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-graph", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "row bands on a thread pool",
           graph_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "the steps on a thread pool, push-relabel rounds for the cuts, cuts 2-5 warm-started from the last flow",
           pipeline_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-maxflow", "pthread-bk", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "Boykov-Kolmogorov in each thread's band of rows, then neighbouring regions joined pairwise",
           maxflow_bk_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut", "pthread-bk", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "the steps on a thread pool, banded Boykov-Kolmogorov for the cuts",
           pipeline_bk_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
