/* host_noise.h - what else is using a host row's CPUs: this process's own
 * spinning threads, and other tenants of a virtual machine.
 *
 *   Spinning threads.  An OpenMP team's threads spin after a parallel
 *   region (libgomp: 300,000 pauses by default, about 15 ms on a recent
 *   Intel core) and the pthread pool's for POOL_SPIN_US: a row measured
 *   while the last row's threads still spin on its CPUs shares them.
 *   sb_host_wait_quiet() waits until every other thread of the process
 *   sleeps (Linux: /proc/self/task/<tid>/stat says R or not).
 *
 *   Steal.  A virtual CPU waiting for its host is "steal" time in
 *   /proc/stat, per CPU; a row whose CPUs lost more than
 *   SB_STEAL_UNSTABLE of the time it ran is flagged unstable.  (A 2-core
 *   cloud machine, idle, shows none; busy on both cores, 10-35 %.)
 */
#ifndef SEGBENCH_HOST_NOISE_H
#define SEGBENCH_HOST_NOISE_H

/* Steal beyond this share of a row's CPU time could by itself move the
 * row by the 10 % the unstable flag is about. */
#define SB_STEAL_UNSTABLE 0.10

/* How long a row waits for the last row's threads to stop spinning (more
 * than libgomp's default spin on any CPU measured). */
enum { SB_QUIET_MAX_MS = 50 };

/*   CPU speed.  A virtual CPU can run slower than it did a minute ago
 *   without any steal: its physical core's other hardware thread, or the
 *   memory system, busy with another tenant's work.  On the H100 host (16
 *   virtual CPUs, idle) one fixed loop took 1.0x to 2.1x the fastest CPU's
 *   time depending on the CPU, and a serial row pinned to one CPU took
 *   1.0 s in one run and 1.76 s in the next.  sb_host_slowdown() times a
 *   fixed chain of dependent floating-point operations (no memory traffic)
 *   on each of a row's CPUs at once and compares it with the best that CPU
 *   ran it in this process with as many CPUs running it at once (16 CPUs
 *   busy at once may run slower than one: on the H100 host, against bests
 *   that smaller teams had set, the slowest of 16 read a median 1.31x);
 *   a row whose CPUs ran it more than
 *   SB_SLOWDOWN_UNSTABLE slower at a round's start or end is flagged
 *   unstable.  The caller probes quiet CPUs (sb_host_wait_quiet): a probe
 *   thread beside a spinning worker of the row's own team waits for that
 *   worker's time slice. */
#define SB_SLOWDOWN_UNSTABLE 1.10

/* What the probes below have seen (each CPU's best, the memory read's
 * best), owned by the caller -- a bench run holds one for its whole life
 * -- and safe to share between threads.  A new one has seen nothing. */
typedef struct sb_host_probes sb_host_probes;
sb_host_probes *sb_host_probes_new(void);       /* NULL: out of memory */
void sb_host_probes_free(sb_host_probes *p);

/* The slowest of cpus[0..n)'s probe times over its own best in probes of
 * n CPUs in p, >= 1.0 (the probe runs on all of them at once, a thread
 * pinned to each, about 1 ms); 0 when it cannot run there, or p is NULL
 * (a caller that does not probe). */
double sb_host_slowdown(sb_host_probes *p, const int *cpus, int n);

/*   Memory speed.  The fixed loop above runs in registers, and another
 *   tenant's memory traffic leaves it untouched: on a 2-core cloud machine
 *   (AMD EPYC, one L3 shared with other tenants) it stayed within 3 % for
 *   minutes while a serial SLIC-like loop over a 1080p image slowed by up
 *   to 1.5x for a minute at a time, and a read of a buffer larger than the
 *   L3 slowed with it (bench/NOTES.md, "CPU rows").
 *   sb_host_memory_slowdown() reads a 64 MB buffer on the calling thread
 *   and compares the read with the fastest this process ever made; a slow
 *   row (whose runs
 *   are its samples, one or three) whose runs began or ended with it more
 *   than SB_MEMORY_UNSTABLE slower is flagged unstable: a sample or three
 *   cannot show on their own that they repeat. */
#define SB_MEMORY_UNSTABLE 1.25

/* The serial reference's run is read after it only from this long: a
 * shorter one is no slow row's sample at the default budget (100 ms), and
 * commands other than bench (check, run, grade) skip the probe's cost. */
enum { SB_MEMORY_PROBE_MIN_MS = 50 };

/* The host's memory speed now: this read's time over the best p has seen,
 * >= 1.0; 0 when the buffer cannot be had or p is NULL. */
double sb_host_memory_slowdown(sb_host_probes *p);

/*   Spells.  The cache probe (cache_probe.h) on the calling thread, the
 *   best of two passes, in ms; its image is p's.  0 when the image cannot
 *   be had or p is NULL (a caller that does not probe). */
double sb_host_cache_probe_ms(sb_host_probes *p);
/* The same on each of cpus[0..n) at once, a thread pinned to each reading
 * the one image: the slowest CPU's, in ms (a threaded row runs as slow as
 * its slowest CPU, and each core's L2 has spells of its own); 0 when it
 * cannot run there, or p is NULL. */
double sb_host_cache_probe_on(sb_host_probes *p, const int *cpus, int n);

/* The two below are about this process's threads, which are one per
 * process by nature: the list of exempt threads is the process's. */

/* Wait until no other thread of this process is running, at most max_ms;
 * returns the milliseconds waited, or -1 when Linux does not say (no
 * /proc): nothing waited then. */
double sb_host_wait_quiet(double max_ms);
/* The calling thread (on: 1) is no longer one that sb_host_wait_quiet
 * waits for; on: 0 ends that.  Up to sixteen threads at a time: bench's
 * case openers (run/ahead.c) and stream frames' makers (run/
 * frames_ahead.c, and the workers they start: frames.c), whose serial
 * references run beside the GPU rows on purpose, each on a core of its
 * own -- before, every GPU row waited the whole SB_QUIET_MAX_MS for them
 * (10 s of a 128 s run on the H200 host).  _is_self: is the caller one. */
void sb_host_quiet_exempt_self(int on);
int sb_host_quiet_exempt_is_self(void);

/* The steal time so far, in milliseconds, summed over the CPUs named in
 * cpus[0..n) (/proc/stat's cpuN lines); -1 when not known.  Its
 * resolution is the kernel's clock tick (10 ms). */
double sb_host_steal_ms(const int *cpus, int n);

#endif
