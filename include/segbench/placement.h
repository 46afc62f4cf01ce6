/* placement.h - which CPU each host thread runs on.
 *
 * Thread i of a team -- the pthread pool's or OpenMP's, the calling thread
 * being thread 0 of both -- runs on CPU sb_placement_cpu(i): the CPUs the
 * process may use (its affinity when first asked), one per physical core
 * first, then the cores' other hardware threads.  Pinned so, two runs of a
 * variant put their threads on the same cores, the scheduler cannot stack
 * two of them on one core or move one mid-run, and the pthread and OpenMP
 * variants of one thread count use the very same CPUs (docs/measuring.md
 * says what unpinned threads cost).  OMP_PLACES/OMP_PROC_BIND are read by
 * the OpenMP runtime before main() runs, so the team is pinned from inside
 * a parallel region instead.
 *
 * sb_placement_enable(0) turns all of it off (segbench --pin off): threads
 * then run where the scheduler puts them.
 */
#ifndef SEGBENCH_PLACEMENT_H
#define SEGBENCH_PLACEMENT_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

void sb_placement_enable(int on);
int sb_placement_enabled(void);

/* The order above: up to `max` CPU numbers into cpus; returns how many the
 * process may use (0 where Linux does not say). */
int sb_placement_order(int *cpus, int max);
/* The CPU of thread `index` (wrapping past the last), -1 when placement
 * is off or unknown. */
int sb_placement_cpu(int index);
/* Pin the calling thread to sb_placement_cpu(index); nothing when off. */
void sb_placement_pin_self(int index);
/* Set a new thread's attributes so that it starts on sb_placement_cpu(index),
 * pinned from its first instruction; nothing when off (the attributes are
 * the caller's, initialised).  A new thread that pins itself instead
 * starts on its creator's CPU -- it inherits the creator's affinity, one
 * CPU while the harness holds the caller -- and may wait there until the
 * creator yields it: a thread started for a short job runs after it. */
void sb_placement_attr(pthread_attr_t *attr, int index);

/* Before a host row: the caller on CPU 0 of the order and, for an OpenMP
 * variant (openmp_team), OpenMP's team of `threads` on theirs -- pinned
 * again only when the last OpenMP row had another thread count, since a
 * pinning region leaves the team spinning for milliseconds.
 * sb_placement_release() gives the caller back the CPUs it had (a GPU
 * row's host thread and the CUDA runtime's threads are not pinned). */
void sb_placement_hold(int threads, int openmp_team);
void sb_placement_release(void);

#ifdef __cplusplus
}
#endif
#endif
