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

#include "pool.h"

#include <stdlib.h>

static void pool_runner(void *self, sb_band_fn fn, void *ctx, int bands)
{
    (void)bands;               /* the pool has exactly `bands` threads */
    sb_pool_run(self, fn, ctx);
}

static void pthread_release(void *state)
{
    if (state)
        sb_slic_host_close(state);
    free(state);               /* the pool is shared and outlives the variant */
}

static sb_status pthread_prepare(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    sb_slic_host *h = calloc(1, sizeof *h);
    if (!h)
        return sb_fail(err, SB_ERR_NOMEM, "slic/pthread: out of memory");
    sb_pool *pool;
    sb_status st = sb_pool_shared(&pool, exec->threads, err);
    if (!st) {
        sb_band_runner runner = { pool_runner, pool, exec->threads };
        st = sb_slic_host_open(h, "slic/pthread", in, params, output, runner, err);
    }
    if (st) {
        pthread_release(h);
        return st;
    }
    *state = h;
    return SB_OK;
}

static sb_status pthread_run(void *state, sb_error *err) { return sb_slic_host_run(state, err); }
static sb_status nothing_to_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

const sb_variant_ops sb_slic_pthread_ops = { pthread_prepare, pthread_run, nothing_to_fetch, pthread_release };
