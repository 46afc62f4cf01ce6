/* integral_strips_pthread.c - integral image on the thread pool, in strips that
 * stay in each core's cache (variant "pthread-strips").
 *
 * Grows from pthread.  The idea: cut the image into horizontal strips, one
 * per thread, instead of two passes over bands of rows and then bands of
 * columns.  The two-phase split writes the whole table, reads it back and
 * writes it again (1 + 4 + 4 + 4 bytes a pixel for the sums); strips need
 * only what lies above each strip, and that is one row:
 *   1. each thread sums the columns of its strip (1 byte read a pixel,
 *      one row of totals written);
 *   2. after the pool's join, each thread adds up the totals of the
 *      strips above its own, turns them into the integral row just above
 *      the strip with one running sum, and runs the serial scan over its
 *      strip from that row, writing each sum once.
 * The pool runs task i on worker i both times, so the second pass finds
 * its strip's pixels in the cache of the core that read them: 2 + 4 bytes
 * a pixel.  (The OpenMP variant is the same algorithm, its two loops
 * scheduled statically for the same reason.)
 *
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
    int threads;
    uint32_t *totals;      /* threads x width: each strip's column totals */
    uint64_t *totals_sq;
    uint32_t *above;       /* threads x width: the integral row above each strip */
    uint64_t *above_sq;
} pthread_state;

/* 1. the column totals of strip i */
static void strip_totals(void *ctx, int i, int n)
{
    pthread_state *s = ctx;
    const sb_image *in = s->in;
    size_t w = (size_t)in->width;
    long y0, y1;
    sb_pool_split(in->height, i, n, 1, &y0, &y1);
    uint32_t *tot = s->totals + (size_t)i * w;
    uint64_t *tot_sq = s->squares ? s->totals_sq + (size_t)i * w : NULL;
    memset(tot, 0, w * sizeof *tot);
    if (tot_sq)
        memset(tot_sq, 0, w * sizeof *tot_sq);
    for (long y = y0; y < y1; y++) {
        const uint8_t *src = sb_image_row(in, (int)y);
        for (size_t x = 0; x < w; x++)
            tot[x] += src[x];
        if (tot_sq)
            for (size_t x = 0; x < w; x++)
                tot_sq[x] += (uint32_t)src[x] * src[x];
    }
}

/* 2. the integral row above strip i, then the serial scan of the strip */
static void strip_scan(void *ctx, int i, int n)
{
    pthread_state *s = ctx;
    const sb_image *in = s->in;
    size_t w = (size_t)in->width;
    long y0, y1;
    sb_pool_split(in->height, i, n, 1, &y0, &y1);
    uint32_t *above = s->above + (size_t)i * w;
    uint64_t *above_sq = s->squares ? s->above_sq + (size_t)i * w : NULL;
    memset(above, 0, w * sizeof *above);
    for (int u = 0; u < i; u++)
        for (size_t x = 0; x < w; x++)
            above[x] += s->totals[(size_t)u * w + x];
    uint32_t run = 0;
    for (size_t x = 0; x < w; x++)
        above[x] = run += above[x];
    if (above_sq) {
        memset(above_sq, 0, w * sizeof *above_sq);
        for (int u = 0; u < i; u++)
            for (size_t x = 0; x < w; x++)
                above_sq[x] += s->totals_sq[(size_t)u * w + x];
        uint64_t run_sq = 0;
        for (size_t x = 0; x < w; x++)
            above_sq[x] = run_sq += above_sq[x];
    }
    sb_integral_serial_rows(in->data, in->stride, in->width, (int)y0, (int)y1, i ? above : NULL,
                            i ? above_sq : NULL, s->out->sum, above_sq ? s->out->sqsum : NULL);
}

static void pthread_release(void *state)
{
    pthread_state *s = state;   /* the pool is shared and outlives the variant */
    if (s) {
        free(s->totals);
        free(s->totals_sq);
        free(s->above);
        free(s->above_sq);
    }
    free(s);
}

static sb_status pthread_prepare(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    pthread_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "integral/pthread-strips: out of memory");
    sb_status st = sb_pool_shared(&s->pool, exec->threads, err);
    if (st) {
        free(s);
        return st;
    }
    s->in = in;
    s->out = output;
    s->squares = ((const sb_integral_params *)params)->squares;
    s->threads = exec->threads;
    size_t n = (size_t)s->threads * (size_t)in->width;
    s->totals = malloc(n * sizeof *s->totals);
    s->above = malloc(n * sizeof *s->above);
    if (s->squares) {
        s->totals_sq = malloc(n * sizeof *s->totals_sq);
        s->above_sq = malloc(n * sizeof *s->above_sq);
    }
    if (!s->totals || !s->above || (s->squares && (!s->totals_sq || !s->above_sq))) {
        pthread_release(s);
        return sb_fail(err, SB_ERR_NOMEM, "integral/pthread-strips: out of memory for column totals");
    }
    *state = s;
    return SB_OK;
}

static sb_status pthread_run(void *state, sb_error *err)
{
    (void)err;
    pthread_state *s = state;
    sb_pool_run(s->pool, strip_totals, s);
    sb_pool_run(s->pool, strip_scan, s);
    return SB_OK;
}

static sb_status pthread_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

SB_VARIANT("integral", "pthread-strips", "pthread", NONE, SB_THREADED | SB_LADDER_TOP, ALL_STAGES,
           "strips on a thread pool: column totals, then one serial pass per strip from its carry row",
           pthread_prepare, NULL, pthread_run, pthread_fetch, pthread_release)
SB_RUNG("integral", "pthread-strips", "pthread",
        "strips that stay in each core's cache: the image read twice, each sum written once (6 bytes a pixel, not 13)")
