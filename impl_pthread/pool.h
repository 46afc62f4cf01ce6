/* pool.h - a small fixed pool of POSIX threads for the pthread variants.
 *
 * sb_pool_run(pool, fn, ctx) calls fn(ctx, i, n) once for every i in
 * 0..n-1, each on its own thread (the caller runs i = 0), and returns when
 * all have finished: a fork-join whose threads are created once.
 *
 * Worker i runs on the CPU placement.h gives thread i, and an idle worker
 * spins briefly before it sleeps (pool.c).
 *
 * sb_pool_shared(n) hands out one pool per thread count for the whole
 * process, as an OpenMP runtime keeps its team: variants share it, thread
 * start-up stays out of every timing, and two instances of a variant run
 * on the very same threads.  (With a pool per instance, the scheduler's
 * placement of each pool's threads made one instance of pthread@2 run 4x
 * slower than another on a 2-core machine, and `compare` rightly saw two
 * different speeds for one variant.)
 */
#ifndef SEGBENCH_POOL_H
#define SEGBENCH_POOL_H

#include "segbench/bands.h"
#include "segbench/error.h"

typedef struct sb_pool sb_pool;
typedef void (*sb_pool_fn)(void *ctx, int index, int count);

sb_status sb_pool_create(sb_pool **pool, int threads, sb_error *err);
/* The process's pool of `threads` threads (created on first use, joined at
 * exit).  Two callers running it at once take turns (sb_pool_run). */
sb_status sb_pool_shared(sb_pool **pool, int threads, sb_error *err);
void sb_pool_run(sb_pool *pool, sb_pool_fn fn, void *ctx);
void sb_pool_destroy(sb_pool *pool);
/* How many times a thread of the pool went to sleep waiting (a worker for
 * a job, the caller for the workers): back-to-back jobs should find them
 * awake (pool.c says why). */
unsigned long sb_pool_sleeps(const sb_pool *pool);

/* A band runner (bands.h) on the pool: one band per thread of its
 * `threads`, the pool's join the barrier between phases. */
sb_band_runner sb_pool_band_runner(sb_pool *pool, int threads);

/* [begin, end) of part i of n over `total` items, edges rounded down to a
 * multiple of `align` (except the last), so parts never share a cache line
 * when align covers one. */
void sb_pool_split(long total, int i, int n, long align, long *begin, long *end);

#endif
