/* host_noise.c - spinning threads, steal time, CPU and memory speed
 * (host_noise.h). */
#define _GNU_SOURCE
#include "machine/host_noise.h"

#include "machine/cache_probe.h"

#include "segbench/clock.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The state letter of thread `tid` ('R' running or runnable), 0 if gone. */
static char thread_state(const char *tid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    const char *close = strrchr(text, ')');     /* the name may hold spaces and ')' */
    return close && close[1] == ' ' ? close[2] : 0;
}

/* The threads sb_host_quiet_exempt_self named (0: a free slot): bench's
 * openers, its stream frames' maker and that one's frame workers. */
enum { EXEMPT_MAX = 16 };
static long exempt_tid[EXEMPT_MAX];
static pthread_mutex_t exempt_lock = PTHREAD_MUTEX_INITIALIZER;

void sb_host_quiet_exempt_self(int on)
{
    long self = (long)syscall(SYS_gettid);
    pthread_mutex_lock(&exempt_lock);
    for (int i = 0, done = 0; i < EXEMPT_MAX && !done; i++)
        if (on ? exempt_tid[i] == 0 : exempt_tid[i] == self)
            exempt_tid[i] = on ? self : 0, done = 1;
    pthread_mutex_unlock(&exempt_lock);
}

static int exempt(long tid)
{
    int found = 0;
    pthread_mutex_lock(&exempt_lock);
    for (int i = 0; i < EXEMPT_MAX; i++)
        found |= exempt_tid[i] == tid;
    pthread_mutex_unlock(&exempt_lock);
    return found;
}

int sb_host_quiet_exempt_is_self(void) { return exempt((long)syscall(SYS_gettid)); }

/* Threads of this process other than the caller (and the exempt one)
 * that are running: -1 if /proc cannot say. */
static int others_running(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    char self[24];
    snprintf(self, sizeof self, "%ld", (long)syscall(SYS_gettid));
    int running = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && strcmp(e->d_name, self) != 0 && !exempt(atol(e->d_name)) &&
            thread_state(e->d_name) == 'R')
            running++;
    closedir(d);
    return running;
}

double sb_host_wait_quiet(double max_ms)
{
    double t0 = sb_clock_ms();
    int running = others_running();
    if (running < 0)
        return -1.0;
    while (running > 0 && sb_clock_ms() - t0 < max_ms) {
        struct timespec nap = { 0, 200000 };    /* 0.2 ms */
        nanosleep(&nap, NULL);
        running = others_running();
    }
    return sb_clock_ms() - t0;
}

double sb_host_steal_ms(const int *cpus, int n)
{
    FILE *fp = fopen("/proc/stat", "r");
    if (!fp)
        return -1.0;
    long tick = sysconf(_SC_CLK_TCK);
    double total = 0.0;
    int found = 0;
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        int cpu;
        unsigned long long f[8];
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &f[0], &f[1], &f[2], &f[3], &f[4],
                   &f[5], &f[6], &f[7]) != 9)
            continue;                   /* the "cpu " total line, or no steal column */
        for (int i = 0; i < n; i++)
            if (cpus[i] == cpu) {
                total += (double)f[7];  /* user nice system idle iowait irq softirq steal */
                found++;
                break;
            }
    }
    fclose(fp);
    if (found == 0 || tick <= 0)
        return -1.0;
    return total * 1000.0 / (double)tick;
}

/* ---- CPU speed ---- */

enum { PROBE_STEPS = 40000, PROBE_TRIES = 3, PROBE_CPUS = CPU_SETSIZE, PROBE_TEAMS = 65 };

/* The process's probe state, owned by its caller (host_noise.h): the
 * best time of each CPU, by how many CPUs ran the probe at once (teams of
 * more than 64 share the last row): a CPU runs slower while the others
 * run too, so a probe is held to the best of probes like it.  Each row
 * (PROBE_CPUS ms, 0: not yet probed) is allocated when first used; the
 * memory probe's buffer likewise, and its best read. */
struct sb_host_probes {
    pthread_mutex_t lock;
    double *best[PROBE_TEAMS];
    unsigned long long *words;     /* MEMORY_PROBE_BYTES, touched once */
    double memory_best;            /* ms, 0: not yet probed */
    float *cache_image;            /* the cache probe's (SB_CACHE_PROBE_FLOATS), made once */
    int cache_checksum;            /* what its passes found, kept so that they run */
};

sb_host_probes *sb_host_probes_new(void)
{
    sb_host_probes *p = calloc(1, sizeof *p);
    if (p)
        pthread_mutex_init(&p->lock, NULL);
    return p;
}

void sb_host_probes_free(sb_host_probes *p)
{
    if (!p)
        return;
    for (int t = 0; t < PROBE_TEAMS; t++)
        free(p->best[t]);
    free(p->words);
    free(p->cache_image);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* A chain of dependent multiply-adds: its time is the core's speed. */
static double probe_once(void)
{
    volatile double seed = 1.0;
    double x = seed, t0 = sb_clock_ms();
    for (int i = 0; i < PROBE_STEPS; i++)
        x = x * 0.9999999 + 1e-9;
    double ms = sb_clock_ms() - t0;
    seed = x;
    return ms;
}

typedef struct probe_job {
    int cpu;
    double ms;                 /* the best of PROBE_TRIES, 0: could not pin */
} probe_job;

/* The calling thread on `cpu` alone; 0 when it cannot be pinned there. */
static int pin_self(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
}

static void *probe_thread(void *arg)
{
    probe_job *job = arg;
    job->ms = 0.0;
    if (!pin_self(job->cpu))
        return NULL;
    double best = 1e300;
    for (int i = 0; i < PROBE_TRIES; i++) {
        double ms = probe_once();
        best = ms < best ? ms : best;
    }
    job->ms = best;
    return NULL;
}

double sb_host_slowdown(sb_host_probes *p, const int *cpus, int n)
{
    if (!p)
        return 0.0;
    probe_job *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t *threads = calloc((size_t)n, sizeof *threads);
    char *started = calloc((size_t)n, 1);
    double worst = 0.0;
    if (jobs && threads && started) {
        for (int i = 0; i < n; i++) {
            jobs[i].cpu = cpus[i];
            started[i] = cpus[i] >= 0 && cpus[i] < PROBE_CPUS &&
                         pthread_create(&threads[i], NULL, probe_thread, &jobs[i]) == 0;
        }
        pthread_mutex_lock(&p->lock);
        int team = n < PROBE_TEAMS ? n : PROBE_TEAMS - 1;
        if (!p->best[team])
            p->best[team] = calloc(PROBE_CPUS, sizeof *p->best[team]);
        for (int i = 0; i < n; i++) {
            if (!started[i])
                continue;
            pthread_join(threads[i], NULL);
            double ms = jobs[i].ms;
            if (ms <= 0 || !p->best[team])
                continue;
            double *best = &p->best[team][jobs[i].cpu];
            if (*best == 0.0 || ms < *best)
                *best = ms;
            worst = ms / *best > worst ? ms / *best : worst;
        }
        pthread_mutex_unlock(&p->lock);
    }
    free(jobs);
    free(threads);
    free(started);
    return worst;
}

/* ---- memory speed ---- */

/* Twice the 2-core machine's L3 (32 MB, shared with other tenants), so a
 * read there always goes to memory, where another tenant's traffic
 * competes with ours.  An 8 MB buffer read twice was tried first: its
 * speed depended on whether the row before had evicted it from the L3
 * (2.5-5.8x its best on every row), not on the neighbours.  (The H100
 * host's L3 holds 300 MB: there it reads the shared L3.) */
enum { MEMORY_PROBE_BYTES = 64 << 20, MEMORY_PROBE_TRIES = 1 };

static double memory_read_once(const unsigned long long *words, size_t n)
{
    unsigned long long s0 = 0, s1 = 0, s2 = 0, s3 = 0;   /* four chains: the loads, not the adds, bound it */
    double t0 = sb_clock_ms();
    for (size_t i = 0; i + 3 < n; i += 4) {
        s0 += words[i];
        s1 += words[i + 1];
        s2 += words[i + 2];
        s3 += words[i + 3];
    }
    double ms = sb_clock_ms() - t0;
    volatile unsigned long long sink = s0 + s1 + s2 + s3;   /* kept: the reads are not dead code */
    (void)sink;
    return ms;
}

double sb_host_memory_slowdown(sb_host_probes *p)
{
    if (!p)
        return 0.0;
    size_t n = MEMORY_PROBE_BYTES / sizeof *p->words;
    pthread_mutex_lock(&p->lock);
    if (!p->words && (p->words = malloc(MEMORY_PROBE_BYTES)) != NULL)
        for (size_t i = 0; i < n; i++)            /* touched: no page faults in the probe */
            p->words[i] = i;
    double slowdown = 0.0;
    if (p->words) {
        double ms = 1e300;
        for (int i = 0; i < MEMORY_PROBE_TRIES; i++) {
            double once = memory_read_once(p->words, n);
            ms = once < ms ? once : ms;
        }
        if (ms > 0) {
            if (p->memory_best == 0.0 || ms < p->memory_best)
                p->memory_best = ms;
            slowdown = ms / p->memory_best;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return slowdown;
}

/* The probe's image, made once (under p's lock); NULL: out of memory. */
static const float *cache_image(sb_host_probes *p)
{
    pthread_mutex_lock(&p->lock);
    if (!p->cache_image && (p->cache_image = malloc(SB_CACHE_PROBE_FLOATS * sizeof *p->cache_image)) != NULL)
        sb_cache_probe_fill(p->cache_image);
    pthread_mutex_unlock(&p->lock);
    return p->cache_image;
}

/* The best of two passes: the first may find the image evicted. */
static double cache_probe_best(const float *image, int *checksum)
{
    double best = 0.0;
    for (int i = 0; i < 2; i++) {
        double once = sb_cache_probe_pass(image, checksum);
        best = i == 0 || once < best ? once : best;
    }
    return best;
}

double sb_host_cache_probe_ms(sb_host_probes *p)
{
    const float *image = p ? cache_image(p) : NULL;
    if (!image)
        return 0.0;
    int checksum;
    double ms = cache_probe_best(image, &checksum);
    pthread_mutex_lock(&p->lock);
    p->cache_checksum += checksum;
    pthread_mutex_unlock(&p->lock);
    return ms;
}

typedef struct cache_job {
    const float *image;
    int cpu, checksum;
    double ms;                 /* 0: could not pin */
} cache_job;

static void *cache_probe_thread(void *arg)
{
    cache_job *job = arg;
    job->ms = pin_self(job->cpu) ? cache_probe_best(job->image, &job->checksum) : 0.0;
    return NULL;
}

double sb_host_cache_probe_on(sb_host_probes *p, const int *cpus, int n)
{
    const float *image = p ? cache_image(p) : NULL;
    cache_job *jobs = image ? calloc((size_t)n, sizeof *jobs) : NULL;
    pthread_t *threads = jobs ? calloc((size_t)n, sizeof *threads) : NULL;
    char *started = threads ? calloc((size_t)n, 1) : NULL;
    double worst = 0.0;
    for (int i = 0; started && i < n; i++) {
        jobs[i] = (cache_job){ image, cpus[i], 0, 0.0 };
        started[i] = cpus[i] >= 0 && cpus[i] < PROBE_CPUS &&
                     pthread_create(&threads[i], NULL, cache_probe_thread, &jobs[i]) == 0;
    }
    for (int i = 0; started && i < n; i++)
        if (started[i]) {
            pthread_join(threads[i], NULL);
            worst = jobs[i].ms > worst ? jobs[i].ms : worst;
            pthread_mutex_lock(&p->lock);
            p->cache_checksum += jobs[i].checksum;
            pthread_mutex_unlock(&p->lock);
        }
    free(jobs);
    free(threads);
    free(started);
    return worst;
}
