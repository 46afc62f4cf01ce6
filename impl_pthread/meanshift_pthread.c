/* meanshift_pthread.c - mean-shift on explicit POSIX threads (variant
 * "pthread" of every mean-shift step).
 *
 * The steps are impl_cpu/meanshift*.c's band-parallel phases; this file
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

static sb_status prepare(void **state, int step, const sb_image *in, const void *params,
                         void *output, const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    sb_pool *pool;
    sb_status st = sb_pool_shared(&pool, exec->threads, err);
    if (st)
        return st;
    sb_band_runner runner = sb_pool_band_runner(pool, exec->threads);
    return sb_ms_host_prepare(state, step, exec->who, in, params, output, runner, err);
}

#define MS_PTHREAD_PREPARE(fn, step)                                                                    \
    static sb_status fn(void **state, const sb_image *in, const void *params, void *output,             \
                        const sb_exec *exec, sb_error *err)                                              \
    {                                                                                                    \
        return prepare(state, step, in, params, output, exec, err);                                     \
    }
MS_PTHREAD_PREPARE(filter_prepare, SB_MS_FILTER)
MS_PTHREAD_PREPARE(flood_prepare, SB_MS_FLOOD)
MS_PTHREAD_PREPARE(merge_prepare, SB_MS_MERGE)
MS_PTHREAD_PREPARE(pipeline_prepare, SB_MS_PIPELINE)

SB_VARIANT("meanshift-filter", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "interleaved rows on a thread pool",
           filter_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
SB_VARIANT("meanshift-flood", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "union-find in row bands on a thread pool, seams joined between",
           flood_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
SB_VARIANT("meanshift-merge", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "every phase in row bands on a thread pool, atomic per-region sums",
           merge_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
SB_VARIANT("meanshift", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "the three steps on a thread pool",
           pipeline_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
