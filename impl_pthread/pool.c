/* pool.c - fork-join thread pool on one mutex and two condition variables.
 *
 * Workers sleep on `wake` until `generation` changes, run their share, and
 * the last one to finish signals `done`.  The generation counter makes a
 * spurious wake-up harmless.
 */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct sb_pool {
    int size;
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    unsigned long generation;
    int pending;            /* workers still running the current job */
    int quit;
    sb_pool_fn fn;
    void *ctx;
};

typedef struct pool_worker_arg {
    sb_pool *pool;
    int index;
} pool_worker_arg;

static void *pool_worker(void *arg)
{
    pool_worker_arg *w = arg;
    sb_pool *p = w->pool;
    int index = w->index;
    free(w);
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit)
            break;
        seen = p->generation;
        sb_pool_fn fn = p->fn;
        void *ctx = p->ctx;
        pthread_mutex_unlock(&p->lock);
        fn(ctx, index, p->size);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

sb_status sb_pool_create(sb_pool **pool, int threads, sb_error *err)
{
    *pool = NULL;
    if (threads < 1 || threads > 1024)
        return sb_fail(err, SB_ERR_USAGE, "thread count %d outside 1..1024", threads);
    sb_pool *p = calloc(1, sizeof *p);
    if (!p)
        return sb_fail(err, SB_ERR_NOMEM, "thread pool: out of memory");
    p->size = threads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->threads = calloc((size_t)threads, sizeof *p->threads);
    if (!p->threads) {
        sb_pool_destroy(p);
        return sb_fail(err, SB_ERR_NOMEM, "thread pool: out of memory");
    }
    for (int i = 1; i < threads; i++) {
        pool_worker_arg *w = malloc(sizeof *w);
        if (w) {
            w->pool = p;
            w->index = i;
        }
        if (!w || pthread_create(&p->threads[i], NULL, pool_worker, w) != 0) {
            free(w);
            p->size = i;          /* destroy joins only the ones started */
            sb_pool_destroy(p);
            return sb_fail(err, SB_ERR_NOMEM, "thread pool: cannot start thread %d of %d", i + 1, threads);
        }
    }
    *pool = p;
    return SB_OK;
}

void sb_pool_run(sb_pool *p, sb_pool_fn fn, void *ctx)
{
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->pending = p->size - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    fn(ctx, 0, p->size);

    pthread_mutex_lock(&p->lock);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void sb_pool_destroy(sb_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 1; i < p->size; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
}

enum { SHARED_POOLS = 32 };
static sb_pool *pool_shared[SHARED_POOLS];
static pthread_mutex_t pool_shared_lock = PTHREAD_MUTEX_INITIALIZER;

static void pool_shared_destroy_all(void)
{
    for (int i = 0; i < SHARED_POOLS; i++) {
        sb_pool_destroy(pool_shared[i]);
        pool_shared[i] = NULL;
    }
}

sb_status sb_pool_shared(sb_pool **pool, int threads, sb_error *err)
{
    sb_status st = SB_OK;
    *pool = NULL;
    pthread_mutex_lock(&pool_shared_lock);
    int i = 0;
    while (i < SHARED_POOLS && pool_shared[i] && pool_shared[i]->size != threads)
        i++;
    if (i == SHARED_POOLS) {
        st = sb_fail(err, SB_ERR_USAGE, "thread pool: more than %d different thread counts", SHARED_POOLS);
    } else if (!pool_shared[i]) {
        static int registered;
        if (!registered && atexit(pool_shared_destroy_all) == 0)
            registered = 1;
        st = sb_pool_create(&pool_shared[i], threads, err);
    }
    if (!st)
        *pool = pool_shared[i];
    pthread_mutex_unlock(&pool_shared_lock);
    return st;
}

void sb_pool_split(long total, int i, int n, long align, long *begin, long *end)
{
    long b = total * i / n, e = total * (i + 1) / n;
    if (align > 1) {
        b -= b % align;
        e = (i + 1 == n) ? total : e - e % align;
    }
    *begin = b;
    *end = e;
}

static void pool_band_run(void *self, sb_band_fn fn, void *ctx, int bands)
{
    (void)bands;               /* the pool has exactly `bands` threads */
    sb_pool_run(self, fn, ctx);
}

sb_band_runner sb_pool_band_runner(sb_pool *pool, int threads)
{
    sb_band_runner r = { pool_band_run, pool, threads };
    return r;
}
