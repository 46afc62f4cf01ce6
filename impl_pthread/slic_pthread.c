/* slic_pthread.c - SLIC on explicit POSIX threads (variant "pthread").
 *
 * The algorithm is impl_cpu/slic.c's, written as band-parallel phases;
 * this variant runs each phase's bands on the process's thread pool (one
 * band per thread, the caller taking band 0) and the pool's join is the
 * barrier between phases.  Each band keeps its own integer sums, so no
 * two threads ever add into the same counter during the assignment.
 */
#include "segbench/slic.h"
#include "segbench/variant.h"

#include "slic_host.h"

#include "pool.h"

static sb_status pthread_prepare(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    sb_pool *pool;
    sb_status st = sb_pool_shared(&pool, exec->threads, err);
    if (st)
        return st;
    sb_band_runner runner = sb_pool_band_runner(pool, exec->threads);   /* the pool is shared and outlives the variant */
    return sb_slic_host_prepare(state, exec->who, in, params, output, runner, err);
}

SB_VARIANT("slic", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "the reference's phases on row bands of a thread pool, per-band sums",
           pthread_prepare, NULL, sb_slic_host_run_state, sb_slic_host_fetch, sb_slic_host_release)
