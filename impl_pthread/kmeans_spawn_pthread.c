/* kmeans_spawn_pthread.c - k-means on POSIX threads started afresh every
 * pass (variant "pthread-spawn").
 *
 * The root of k-means' CPU ladder, and the cost it shows.  Each pass,
 * every thread assigns its own band of rows with the reference's
 * assignment and adds its pixels into its own sums; the calling thread
 * runs band 0 itself, joins the others, adds the per-thread sums together
 * and applies the update rule.  The sums are integers, so the order in
 * which bands are added cannot change a bit of the result.
 *
 * What it costs: a pass creates threads - 1 threads, each started on its
 * own CPU (sb_placement_attr: a new thread otherwise inherits the caller's
 * one CPU, and its band runs after the caller's), and joins them; the run
 * does that every pass (13 passes to converge on the 640x480 synthetic
 * image, up to 100 on a photo).  Each start and join is kernel work and a
 * wake-up on the caller's critical path, against a pass of about half a
 * millisecond at 16 threads there: pthread-pool, which grows from this
 * file, starts its threads once.
 */
#include "segbench/bands.h"
#include "segbench/kmeans.h"
#include "segbench/placement.h"
#include "segbench/variant.h"

#include "kmeans_host.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct threads_state threads_state;

typedef struct band_arg {
    threads_state *s;
    int index;                    /* the band this thread assigns */
} band_arg;

struct threads_state {
    sb_kmeans_host host;          /* first: the state is also the host part */
    const char *who;              /* the variant, for messages */
    /* one pass's inputs, and each thread's results */
    const sb_kmeans_prepped *centres;
    int first_pass;
    sb_kmeans_sums *partial;      /* threads x SB_KMEANS_MAX_K */
    long *changed;                /* threads */
    pthread_t *threads;           /* threads (0 unused: the caller runs band 0) */
    band_arg *args;               /* threads */
};

static void band_pass(threads_state *s, int i, int n)
{
    const sb_kmeans_host *h = &s->host;
    int y0, y1;
    sb_band_rows(h->in->height, i, n, &y0, &y1);
    sb_kmeans_sums *sums = s->partial + (size_t)i * SB_KMEANS_MAX_K;
    memset(sums, 0, (size_t)h->params.k * sizeof *sums);
    s->changed[i] = sb_kmeans_assign_rows(h->in, y0, y1, s->centres, h->params.k, s->first_pass, h->out->labels,
                                          sums);
}

static void *band_thread(void *arg)
{
    band_arg *a = arg;
    band_pass(a->s, a->index, a->s->host.threads);
    return NULL;
}

/* One pass: start a thread per band but the first, run the first, join. */
static sb_status threads_pass(void *ctx, const sb_kmeans_prepped *centres, int first_pass, sb_kmeans_sums *sums,
                              long *changed, sb_error *err)
{
    threads_state *s = ctx;
    int n = s->host.threads, started = 1;
    s->centres = centres;
    s->first_pass = first_pass;
    for (; started < n; started++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        sb_placement_attr(&attr, started);
        int failed = pthread_create(&s->threads[started], &attr, band_thread, &s->args[started]);
        pthread_attr_destroy(&attr);
        if (failed)
            break;
    }
    band_pass(s, 0, n);
    for (int t = 1; t < started; t++)
        pthread_join(s->threads[t], NULL);
    if (started < n)
        return sb_fail(err, SB_ERR_NOMEM, "%s: cannot start thread %d of %d", s->who, started + 1, n);
    *changed = 0;
    for (int t = 0; t < n; t++) {
        const sb_kmeans_sums *part = s->partial + (size_t)t * SB_KMEANS_MAX_K;
        for (int c = 0; c < s->host.params.k; c++)
            for (int j = 0; j < 4; j++)
                sums[c][j] += part[c][j];
        *changed += s->changed[t];
    }
    return SB_OK;
}

static void threads_release(void *state)
{
    threads_state *s = state;
    if (!s)
        return;
    free(s->partial);
    free(s->changed);
    free(s->threads);
    free(s->args);
    free(s);
}

static sb_status threads_prepare(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    sb_status st = sb_kmeans_host_open(sizeof(threads_state), state, in, params, output, exec->threads, exec->who,
                                       err);
    if (st)
        return st;
    threads_state *s = *state;
    int n = exec->threads;
    s->who = exec->who;
    s->partial = malloc((size_t)n * SB_KMEANS_MAX_K * sizeof *s->partial);
    s->changed = calloc((size_t)n, sizeof *s->changed);
    s->threads = calloc((size_t)n, sizeof *s->threads);
    s->args = calloc((size_t)n, sizeof *s->args);
    if (!s->partial || !s->changed || !s->threads || !s->args) {
        threads_release(s);
        *state = NULL;
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", exec->who);
    }
    for (int t = 0; t < n; t++)
        s->args[t] = (band_arg){ s, t };
    return SB_OK;
}

static sb_status threads_run(void *state, sb_error *err) { return sb_kmeans_host_run(state, threads_pass, err); }

SB_VARIANT("kmeans", "pthread-spawn", "pthread", NONE, SB_THREADED, ALL_STAGES,
           "row bands on threads created and joined every pass, per-thread integer sums",
           threads_prepare, NULL, threads_run, sb_kmeans_host_fetch, threads_release)
SB_RUNG("kmeans", "pthread-spawn", NULL,
        "the root of the CPU ladder: a thread per band, created and joined every pass")
