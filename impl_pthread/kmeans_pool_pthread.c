/* kmeans_pool_pthread.c - k-means on POSIX threads started once and woken
 * every pass (variant "pthread-pool").
 *
 * Grows from pthread-spawn.  The idea: a fork-join pool.  The threads are
 * created once, in prepare, and wait on a condition variable between
 * passes; a pass publishes its job by bumping a generation counter under
 * the pool's mutex and broadcasting, runs band 0 itself, and waits on a
 * second condition variable until the last worker has counted itself
 * done.  The counter, not the wake-up, says there is a job: a worker may
 * wake spuriously, or only after the caller has already published, and
 * must neither run a job twice nor miss one.  The mutex also orders the
 * pass's inputs (centres, first_pass), written before the broadcast,
 * before every worker's reads.  release() sets quit, wakes every worker
 * and joins them.
 *
 * What it should buy: the create, pin and join of every pass, paid once.
 * A worker that slept still costs a futex wake-up a pass;
 * impl_pthread/pool.c (the "pthread" variant's shared pool) also spins a
 * while before it sleeps, so back-to-back passes find it awake.
 *
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
    /* the pool, every field below under lock */
    pthread_mutex_t lock;
    pthread_cond_t wake;          /* a new generation, or quit */
    pthread_cond_t done;          /* pending reached 0 */
    unsigned long generation;     /* passes published so far */
    int pending;                  /* workers still on this pass's band */
    int quit;
    int started;                  /* threads running: 1 (the caller) + workers */
    int synced;                   /* lock and the conditions were initialised */
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

/* A worker: wait for a generation it has not run, run its band, count
 * itself done; until quit. */
static void *band_thread(void *arg)
{
    band_arg *a = arg;
    threads_state *s = a->s;
    unsigned long seen = 0;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->quit && s->generation == seen)
            pthread_cond_wait(&s->wake, &s->lock);
        if (s->quit)
            break;
        seen = s->generation;
        pthread_mutex_unlock(&s->lock);
        band_pass(s, a->index, s->host.threads);
        pthread_mutex_lock(&s->lock);
        if (--s->pending == 0)
            pthread_cond_signal(&s->done);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* One pass: publish the job to the workers, run band 0, wait for them. */
static sb_status threads_pass(void *ctx, const sb_kmeans_prepped *centres, int first_pass, sb_kmeans_sums *sums,
                              long *changed, sb_error *err)
{
    (void)err;
    threads_state *s = ctx;
    int n = s->host.threads;
    s->centres = centres;
    s->first_pass = first_pass;
    pthread_mutex_lock(&s->lock);
    s->pending = n - 1;
    s->generation++;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    band_pass(s, 0, n);
    pthread_mutex_lock(&s->lock);
    while (s->pending > 0)
        pthread_cond_wait(&s->done, &s->lock);
    pthread_mutex_unlock(&s->lock);
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
    if (s->synced) {
        pthread_mutex_lock(&s->lock);
        s->quit = 1;
        pthread_cond_broadcast(&s->wake);
        pthread_mutex_unlock(&s->lock);
        for (int t = 1; t < s->started; t++)
            pthread_join(s->threads[t], NULL);
        pthread_cond_destroy(&s->wake);
        pthread_cond_destroy(&s->done);
        pthread_mutex_destroy(&s->lock);
    }
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
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    pthread_cond_init(&s->done, NULL);
    s->synced = 1;
    for (s->started = 1; s->started < n; s->started++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        sb_placement_attr(&attr, s->started);
        int failed = pthread_create(&s->threads[s->started], &attr, band_thread, &s->args[s->started]);
        pthread_attr_destroy(&attr);
        if (failed) {
            int t = s->started;
            threads_release(s);
            *state = NULL;
            return sb_fail(err, SB_ERR_NOMEM, "%s: cannot start thread %d of %d", exec->who, t + 1, n);
        }
    }
    return SB_OK;
}

static sb_status threads_run(void *state, sb_error *err) { return sb_kmeans_host_run(state, threads_pass, err); }

SB_VARIANT("kmeans", "pthread-pool", "pthread", NONE, SB_THREADED | SB_LADDER_TOP, ALL_STAGES,
           "row bands on threads created once and woken every pass (a mutex, two condition variables), per-thread integer sums",
           threads_prepare, NULL, threads_run, sb_kmeans_host_fetch, threads_release)
SB_RUNG("kmeans", "pthread-pool", "pthread-spawn",
        "a fork-join pool: threads created once, woken every pass through a generation counter and a condition variable")
