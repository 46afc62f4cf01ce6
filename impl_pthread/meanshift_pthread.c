/* meanshift_pthread.c - mean-shift on explicit POSIX threads (variant
 * "pthread" of every mean-shift stage).
 *
 * The stages are impl_cpu/meanshift*.c's band-parallel phases; this file
 * supplies the runner: the process's thread pool, one band per thread,
 * whose join is the barrier between phases.  (The source's pthread
 * union-find merged band boundaries on the main thread and relabelled in
 * a serial pass; here only the seam rows are serial, and sizes, means,
 * pruning and numbering run on every band.)
 */
#include "segbench/meanshift.h"
#include "segbench/variant.h"

#include "meanshift_host.h"

#include "pool.h"

static sb_status prepare(void **state, int stage, const char *who, const sb_image *in, const void *params,
                         void *output, const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    sb_pool *pool;
    sb_status st = sb_pool_shared(&pool, exec->threads, err);
    if (st)
        return st;
    sb_band_runner runner = sb_pool_band_runner(pool, exec->threads);
    return sb_ms_host_prepare(state, stage, who, in, params, output, runner, err);
}

#define MS_PTHREAD_OPS(name, stage, who)                                                                 \
    static sb_status name##_prepare(void **state, const sb_image *in, const void *params, void *output, \
                                    const sb_exec *exec, sb_error *err)                                \
    {                                                                                                    \
        return prepare(state, stage, who, in, params, output, exec, err);                                \
    }                                                                                                    \
    const sb_variant_ops name = { name##_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release };

MS_PTHREAD_OPS(sb_ms_filter_pthread_ops, SB_MS_FILTER, "meanshift-filter/pthread")
MS_PTHREAD_OPS(sb_ms_flood_pthread_ops, SB_MS_FLOOD, "meanshift-flood/pthread")
MS_PTHREAD_OPS(sb_ms_merge_pthread_ops, SB_MS_MERGE, "meanshift-merge/pthread")
MS_PTHREAD_OPS(sb_ms_pipeline_pthread_ops, SB_MS_PIPELINE, "meanshift/pthread")
