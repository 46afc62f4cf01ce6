/* integral_pthread.c - integral image on explicit POSIX threads
 * (variant "pthread").
 *
 * The textbook two-phase split of the 2-D prefix sum into two 1-D ones:
 *   1. row bands: each thread scans its rows left to right (row prefix);
 *   2. column bands: each thread adds each row to the one below, top to
 *      bottom, over its own columns (column prefix of the row prefixes).
 * The join between the phases is the only synchronisation.  Phase 2 walks
 * rows inside a band of columns, so it streams memory in order.  The cost
 * is traffic: the output is written, read and written again (1 + 4 + 4 + 4
 * bytes a pixel for the sums), where the OpenMP variant needs 2 + 4.
 */
#include "segbench/integral.h"
#include "segbench/variant.h"

#include "integral_host.h"

#include "pool.h"

#include <stdlib.h>
#include <string.h>

typedef struct pthread_state {
    sb_pool *pool;
    const sb_image *in;
    sb_integral_out *out;
    int squares;
} pthread_state;

static void phase_rows(void *ctx, int i, int n)
{
    pthread_state *s = ctx;
    long y0, y1;
    sb_pool_split(s->in->height, i, n, 1, &y0, &y1);
    for (long y = y0; y < y1; y++)   /* each row on its own: no row above */
        sb_integral_serial_rows(s->in->data, s->in->stride, s->in->width, (int)y, (int)y + 1,
                                NULL, NULL, s->out->sum, s->squares ? s->out->sqsum : NULL);
}

static void phase_columns(void *ctx, int i, int n)
{
    pthread_state *s = ctx;
    size_t w = (size_t)s->in->width;
    long x0, x1;
    sb_pool_split(s->in->width, i, n, 16, &x0, &x1);   /* 16 x u32 = one cache line */
    for (int y = 1; y < s->in->height; y++) {
        uint32_t *row = s->out->sum + (size_t)y * w, *above = row - w;
        for (long x = x0; x < x1; x++)
            row[x] += above[x];
        if (s->squares) {
            uint64_t *row_sq = s->out->sqsum + (size_t)y * w, *above_sq = row_sq - w;
            for (long x = x0; x < x1; x++)
                row_sq[x] += above_sq[x];
        }
    }
}

static sb_status pthread_prepare(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    pthread_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "integral/pthread: out of memory");
    sb_status st = sb_pool_shared(&s->pool, exec->threads, err);
    if (st) {
        free(s);
        return st;
    }
    s->in = in;
    s->out = output;
    s->squares = ((const sb_integral_params *)params)->squares;
    *state = s;
    return SB_OK;
}

static sb_status pthread_run(void *state, sb_error *err)
{
    (void)err;
    pthread_state *s = state;
    sb_pool_run(s->pool, phase_rows, s);
    sb_pool_run(s->pool, phase_columns, s);
    return SB_OK;
}

static sb_status pthread_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

static void pthread_release(void *state)
{
    free(state);   /* the pool is shared and outlives the variant */
}

SB_VARIANT("integral", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "row bands, then column bands, on a thread pool",
           pthread_prepare, NULL, pthread_run, pthread_fetch, pthread_release)
SB_RUNG("integral", "pthread", NULL, "the root of the CPU ladder: row bands, then column bands, on a thread pool")
