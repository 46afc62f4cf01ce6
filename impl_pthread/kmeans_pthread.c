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

#include "kmeans_host.h"

#include "pool.h"

#include <stdlib.h>
#include <string.h>

typedef struct pthread_state {
    sb_kmeans_host host;          /* first: the state is also the host part */
    sb_pool *pool;
    /* one pass's inputs, and each thread's results */
    const sb_kmeans_prepped *centres;
    int first_pass;
    sb_kmeans_sums *partial;      /* threads x SB_KMEANS_MAX_K */
    long *changed;                /* threads */
} pthread_state;

static void band_pass(void *ctx, int i, int n)
{
    pthread_state *s = ctx;
    const sb_kmeans_host *h = &s->host;
    long y0, y1;
    sb_pool_split(h->in->height, i, n, 1, &y0, &y1);
    sb_kmeans_sums *sums = s->partial + (size_t)i * SB_KMEANS_MAX_K;
    memset(sums, 0, (size_t)h->params.k * sizeof *sums);
    s->changed[i] = sb_kmeans_assign_rows(h->in, (int)y0, (int)y1, s->centres, h->params.k, s->first_pass,
                                          h->out->labels, sums);
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
    for (int t = 0; t < s->host.threads; t++) {
        const sb_kmeans_sums *part = s->partial + (size_t)t * SB_KMEANS_MAX_K;
        for (int c = 0; c < s->host.params.k; c++)
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
    sb_status st = sb_kmeans_host_open(sizeof(pthread_state), state, in, params, output, exec->threads,
                                       exec->who, err);
    if (st)
        return st;
    pthread_state *s = *state;
    s->partial = malloc((size_t)exec->threads * SB_KMEANS_MAX_K * sizeof *s->partial);
    s->changed = calloc((size_t)exec->threads, sizeof *s->changed);
    st = !s->partial || !s->changed ? sb_fail(err, SB_ERR_NOMEM, "kmeans/pthread: out of memory")
                                    : sb_pool_shared(&s->pool, exec->threads, err);
    if (st) {
        pthread_release(s);
        *state = NULL;
    }
    return st;
}

static sb_status pthread_run(void *state, sb_error *err) { return sb_kmeans_host_run(state, pthread_pass, err); }

SB_VARIANT("kmeans", "pthread", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "row bands on a thread pool, per-thread integer sums merged each pass",
           pthread_prepare, NULL, pthread_run, sb_kmeans_host_fetch, pthread_release)
