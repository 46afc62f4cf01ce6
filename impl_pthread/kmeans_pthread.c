/* kmeans_pthread.c - k-means on explicit POSIX threads (variant "pthread").
 *
 * Each pass, every thread of the pool assigns its own band of rows with
 * the reference's assignment and adds its pixels into its own sums; the
 * calling thread then adds the per-thread sums together and applies the
 * update rule.  The sums are integers, so the order in which bands are
 * added cannot change a bit of the result.
 */
#include "segbench/kmeans.h"
#include "segbench/variant.h"

#include "pool.h"

#include <stdlib.h>
#include <string.h>

typedef struct pthread_state {
    sb_pool *pool;
    int threads;
    const sb_image *in;
    sb_kmeans_params params;
    sb_kmeans_out *out;
    int32_t initial[SB_KMEANS_MAX_K][3];
    /* one pass's inputs, and each thread's results */
    const sb_kmeans_prepped *centres;
    int first_pass;
    sb_kmeans_sums *partial;      /* threads x SB_KMEANS_MAX_K */
    long *changed;                /* threads */
} pthread_state;

static void band_pass(void *ctx, int i, int n)
{
    pthread_state *s = ctx;
    long y0, y1;
    sb_pool_split(s->in->height, i, n, 1, &y0, &y1);
    sb_kmeans_sums *sums = s->partial + (size_t)i * SB_KMEANS_MAX_K;
    memset(sums, 0, (size_t)s->params.k * sizeof *sums);
    s->changed[i] = sb_kmeans_assign_rows(s->in, (int)y0, (int)y1, s->centres, s->params.k, s->first_pass,
                                          s->out->labels, sums);
}

static sb_status pthread_pass(void *ctx, const sb_kmeans_prepped *centres, int first_pass, sb_kmeans_sums *sums,
                              long *changed, sb_error *err)
{
    (void)err;
    pthread_state *s = ctx;
    s->centres = centres;
    s->first_pass = first_pass;
    sb_pool_run(s->pool, band_pass, s);
    *changed = 0;
    for (int t = 0; t < s->threads; t++) {
        const sb_kmeans_sums *part = s->partial + (size_t)t * SB_KMEANS_MAX_K;
        for (int c = 0; c < s->params.k; c++)
            for (int j = 0; j < 4; j++)
                sums[c][j] += part[c][j];
        *changed += s->changed[t];
    }
    return SB_OK;
}

static void pthread_release(void *state)
{
    pthread_state *s = state;
    if (!s)
        return;
    free(s->partial);
    free(s->changed);
    free(s);   /* the pool is shared and outlives the variant */
}

static sb_status pthread_prepare(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    pthread_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "kmeans/pthread: out of memory");
    s->threads = exec->threads;
    s->in = in;
    s->params = *(const sb_kmeans_params *)params;
    s->out = output;
    s->partial = malloc((size_t)s->threads * SB_KMEANS_MAX_K * sizeof *s->partial);
    s->changed = calloc((size_t)s->threads, sizeof *s->changed);
    sb_status st = !s->partial || !s->changed ? sb_fail(err, SB_ERR_NOMEM, "kmeans/pthread: out of memory")
                                              : sb_pool_shared(&s->pool, s->threads, err);
    if (!st)
        st = sb_kmeans_initial(in, &s->params, s->initial, err);
    if (st) {
        pthread_release(s);
        return st;
    }
    *state = s;
    return SB_OK;
}

static sb_status pthread_run(void *state, sb_error *err)
{
    pthread_state *s = state;
    return sb_kmeans_host_loop(&s->params, (const int32_t(*)[3])s->initial, pthread_pass, s, s->out, err);
}

static sb_status pthread_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

const sb_variant_ops sb_kmeans_pthread_ops = { pthread_prepare, pthread_run, pthread_fetch, pthread_release };
