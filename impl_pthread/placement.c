/* placement.c - the CPU of each host thread (placement.h).
 *
 * Built with OpenMP where the compiler has it (the Makefile says so), for
 * the one function that pins OpenMP's team from inside a parallel region.
 */
#define _GNU_SOURCE
#include "segbench/placement.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

enum { PLACEMENT_MAX = CPU_SETSIZE };

static struct {
    pthread_once_t once;
    int on;
    int count;                   /* CPUs in `order`; 0: unknown */
    int order[PLACEMENT_MAX];
    cpu_set_t start;             /* the process's affinity when first asked */
    int caller_held;             /* sb_placement_hold pinned the caller */
    int team_pinned;             /* the size of OpenMP's team when last pinned, 0: none */
} pl = { PTHREAD_ONCE_INIT, 1, 0, { 0 }, { { 0 } }, 0, 0 };

/* Is `cpu` in the sibling list at `path` ("0,16", "0-1"), and how many of
 * the list's CPUs below it may the process use?  -1: unreadable. */
static int rank_in_core(const char *path, int cpu, const cpu_set_t *allowed)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    char text[256];
    int ok = fgets(text, sizeof text, fp) != NULL;
    fclose(fp);
    if (!ok)
        return -1;
    int rank = 0;
    for (char *p = text; *p && *p != '\n';) {
        int a, b, used;
        if (sscanf(p, "%d%n", &a, &used) != 1)
            return -1;
        p += used;
        b = a;
        if (*p == '-' && sscanf(p + 1, "%d%n", &b, &used) == 1)
            p += 1 + used;
        for (int c = a; c <= b && c < cpu; c++)
            rank += c >= 0 && c < PLACEMENT_MAX && CPU_ISSET(c, allowed);
        if (*p == ',')
            p++;
    }
    return rank;
}

static void placement_init(void)
{
    if (sched_getaffinity(0, sizeof pl.start, &pl.start) != 0)
        return;
    /* pass 0: each core's first allowed CPU; pass 1, 2, ...: its others */
    int rank[PLACEMENT_MAX], most = 0;
    for (int c = 0; c < PLACEMENT_MAX; c++) {
        if (!CPU_ISSET(c, &pl.start))
            continue;
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
        rank[c] = rank_in_core(path, c, &pl.start);
        if (rank[c] < 0)
            rank[c] = 0;         /* no topology: the affinity's own order */
        most = rank[c] > most ? rank[c] : most;
    }
    for (int pass = 0; pass <= most; pass++)
        for (int c = 0; c < PLACEMENT_MAX; c++)
            if (CPU_ISSET(c, &pl.start) && rank[c] == pass)
                pl.order[pl.count++] = c;
}

void sb_placement_enable(int on)
{
    pl.on = on != 0;
    pl.team_pinned = 0;
}
int sb_placement_enabled(void) { return pl.on; }

int sb_placement_order(int *cpus, int max)
{
    pthread_once(&pl.once, placement_init);
    for (int i = 0; i < pl.count && i < max; i++)
        cpus[i] = pl.order[i];
    return pl.count;
}

int sb_placement_cpu(int index)
{
    pthread_once(&pl.once, placement_init);
    if (!pl.on || pl.count == 0 || index < 0)
        return -1;
    return pl.order[index % pl.count];
}

/* The set of thread `index`'s one CPU; 0 when placement is off. */
static int one_cpu(int index, cpu_set_t *one)
{
    int cpu = sb_placement_cpu(index);
    if (cpu < 0)
        return 0;
    CPU_ZERO(one);
    CPU_SET(cpu, one);
    return 1;
}

void sb_placement_pin_self(int index)
{
    cpu_set_t one;
    if (one_cpu(index, &one))
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);   /* a refusal leaves it where it was */
}

void sb_placement_attr(pthread_attr_t *attr, int index)
{
    cpu_set_t one;
    if (one_cpu(index, &one))
        pthread_attr_setaffinity_np(attr, sizeof one, &one);        /* a refusal leaves it unpinned */
}

void sb_placement_hold(int threads, int openmp_team)
{
    if (sb_placement_cpu(0) < 0)
        return;
    sb_placement_pin_self(0);
    pl.caller_held = 1;
#ifdef _OPENMP
    /* OpenMP reuses its pool's threads in team order, so thread t of every
     * later team of this size runs where it is pinned here; a team of
     * another size may start new threads, which inherit the caller's CPU */
    if (openmp_team && threads != pl.team_pinned) {
        if (threads > 1) {
#pragma omp parallel num_threads(threads)
            sb_placement_pin_self(omp_get_thread_num());
        }
        pl.team_pinned = threads;
    }
#else
    (void)threads, (void)openmp_team;
#endif
}

void sb_placement_release(void)
{
    if (!pl.caller_held)
        return;
    pthread_setaffinity_np(pthread_self(), sizeof pl.start, &pl.start);
    pl.caller_held = 0;
}
