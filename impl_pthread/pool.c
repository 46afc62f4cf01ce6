/* pool.c - fork-join thread pool: workers that spin briefly, then sleep.
 *
 * A job is published by bumping `generation`.  A worker that has just
 * finished one watches the counter for POOL_SPIN_US before it sleeps on
 * `wake`, and the caller watches `pending` as long before it sleeps on
 * `done`: the back-to-back jobs of a timed loop then start without a
 * wake-up, as OpenMP's team does (libgomp spins too, for longer).  A
 * worker that slept costs a futex wake, which on a virtual machine with an
 * idle virtual CPU took 0.1-0.5 ms -- what made pthread@2 of the integral
 * image slower than the serial code on a 2-core machine (docs/measuring.md).
 * Worker i runs on sb_placement_cpu(i), the CPU OpenMP's thread i gets.
 * The generation counter makes a spurious wake-up harmless.
 * A pool with more threads than the CPUs it may use never spins: a
 * spinning thread would hold the CPU that the thread it waits for needs
 * (libgomp throttles its spin for the same reason), and a test suite of
 * 7-thread pools on 2 cores spent most of its time so.
 */
#include "pool.h"

#include "segbench/clock.h"
#include "segbench/placement.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long an idle worker (and a waiting caller) spins before it sleeps. */
enum { POOL_SPIN_US = 200 };

struct sb_pool {
    int size;
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_mutex_t run_lock;   /* one job at a time: a shared pool may have two callers */
    pthread_cond_t wake, done;
    atomic_ulong generation;
    atomic_int pending;     /* workers still running the current job */
    atomic_int quit;
    atomic_ulong sleeps;    /* times a worker or the caller slept (sb_pool_sleeps) */
    double spin_us;         /* POOL_SPIN_US, or 0 when the threads outnumber the CPUs */
    sb_pool_fn fn;          /* written before generation is bumped */
    void *ctx;
};

typedef struct pool_worker_arg {
    sb_pool *pool;
    int index;
} pool_worker_arg;

static double now_us(void) { return sb_clock_ms() * 1e3; }

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Spin until the generation moves past `seen` (or quit), then sleep. */
static unsigned long next_job(sb_pool *p, unsigned long seen)
{
    double until = now_us() + p->spin_us;
    for (int i = 0;; i++) {
        unsigned long g = atomic_load_explicit(&p->generation, memory_order_acquire);
        if (g != seen || atomic_load(&p->quit))
            return g;
        if ((i & 63) == 63 && now_us() > until)
            break;
        spin_pause();
    }
    pthread_mutex_lock(&p->lock);
    while (!atomic_load(&p->quit) && atomic_load(&p->generation) == seen) {
        atomic_fetch_add(&p->sleeps, 1);
        pthread_cond_wait(&p->wake, &p->lock);
    }
    unsigned long g = atomic_load(&p->generation);
    pthread_mutex_unlock(&p->lock);
    return g;
}

/* The CPUs this process may run on. */
static int usable_cpus(void)
{
    int cpus[1024];
    int n = sb_placement_order(cpus, 1024);
    return n > 0 ? n : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static void *pool_worker(void *arg)
{
    pool_worker_arg *w = arg;
    sb_pool *p = w->pool;
    int index = w->index;
    free(w);
    sb_placement_pin_self(index);
    unsigned long seen = 0;
    for (;;) {
        seen = next_job(p, seen);
        if (atomic_load(&p->quit))
            break;
        p->fn(p->ctx, index, p->size);
        if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->lock);      /* the caller may be asleep on done */
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->lock);
        }
    }
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
    p->spin_us = threads <= usable_cpus() ? POOL_SPIN_US : 0.0;
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->run_lock, NULL);
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
    /* Two instances of a variant share the process's pool (sb_pool_shared);
     * when they run at once -- a stream's frames in flight, each on its own
     * thread -- their jobs take turns instead of overwriting each other's
     * fn and ctx. */
    pthread_mutex_lock(&p->run_lock);
    p->fn = fn;
    p->ctx = ctx;
    atomic_store(&p->pending, p->size - 1);
    pthread_mutex_lock(&p->lock);              /* a worker about to sleep sees the job or the wake */
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    fn(ctx, 0, p->size);

    double until = now_us() + p->spin_us;
    for (int i = 0; atomic_load_explicit(&p->pending, memory_order_acquire) > 0; i++) {
        if ((i & 63) == 63 && now_us() > until) {
            pthread_mutex_lock(&p->lock);
            while (atomic_load(&p->pending) > 0) {
                atomic_fetch_add(&p->sleeps, 1);
                pthread_cond_wait(&p->done, &p->lock);
            }
            pthread_mutex_unlock(&p->lock);
            break;
        }
        spin_pause();
    }
    pthread_mutex_unlock(&p->run_lock);
}

unsigned long sb_pool_sleeps(const sb_pool *p) { return atomic_load(&((sb_pool *)p)->sleeps); }

void sb_pool_destroy(sb_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->quit, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 1; i < p->size; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->run_lock);
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
