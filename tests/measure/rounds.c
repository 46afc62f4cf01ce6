/* rounds.c - host rows in interleaved rounds, where their threads run,
 * and what else uses their CPUs (measure/rounds.c, host_noise.c,
 * impl_pthread/placement.c and pool.c), called as functions. */
#define _GNU_SOURCE            /* sched_getcpu, CPU_* */
#include "cli_util.h"
#include "test_groups.h"

#include "compare/noise.h"
#include "cases/cases.h"
#include "measure/measure.h"
#include "machine/host_noise.h"
#include "variants/registry.h"

#include "segbench/clock.h"
#include "segbench/placement.h"

#include "pool.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* A host variant whose run() takes run_ms[round] milliseconds (busy). */
static double run_ms[4];
static int round_now, runs;

static void busy_ms(double ms)
{
    double t0 = sb_clock_ms();
    while (sb_clock_ms() - t0 < ms)
        ;
}

static sb_status timed_prepare(void **state, const sb_image *in, const void *params, void *out, const sb_exec *e,
                               sb_error *err)
{
    (void)in, (void)params, (void)out, (void)e, (void)err;
    *state = &runs;
    return SB_OK;
}
static sb_status timed_run(void *state, sb_error *err)
{
    (void)state, (void)err;
    runs++;
    busy_ms(run_ms[round_now]);
    return SB_OK;
}

static const sb_variant_ops TIMED_OPS = { timed_prepare, NULL, timed_run, test_fetch_nothing,
                                          test_release_nothing };
static const sb_variant TIMED = { "integral", "timed", "cpu", "NONE", 0, 1u, &TIMED_OPS, "run_ms[round] a run",
                                  "integral/timed", __FILE__, NULL, "", NULL };

/* The timed variant in `rounds` rounds, run_ms[r] a run in round r; the
 * check (which cannot pass: it writes nothing) is not what is tested. */
static void measure_in_rounds(int rounds, const sb_timing_opts *o, sb_measurement *m)
{
    sb_image img;
    sb_case_data cd;
    sb_error err;
    test_integral_case(&cd, &img);
    sb_rounds_row rr;
    round_now = 0;
    runs = 0;
    sb_status st = sb_rounds_open(&rr, &cd.c, &TIMED, 1, rounds, o, m, &err);
    for (int r = 0; r < rounds && !st; r++) {
        round_now = r;
        st = sb_rounds_next(&rr, o, &err);
    }
    CHECKF(st == SB_OK, "%s", err.msg);
    CHECKF(sb_rounds_close(&rr, &err) == SB_OK, "%s", err.msg);
    sb_case_close(&cd);
    sb_image_free(&img);
}

/* The timing options of these tests: the defaults, with a short budget. */
static sb_timing_opts round_opts(double budget_ms, double warmup_ms, int min_reps)
{
    sb_timing_opts o;
    sb_timing_defaults(&o);
    o.budget_ms = budget_ms;
    o.warmup_ms = warmup_ms;
    o.min_reps = min_reps;
    o.max_reps = 300;
    return o;
}

/* Each round takes its share of the samples; the row's spread is its
 * rounds' disagreement, and a round 40 % slower than the others makes the
 * row unstable where the rounds alone would have hidden it in a median. */
/* Did each round's median come out as the run time it was given (within
 * 5 %)?  A busy machine (CI's parallel tests) can stretch a busy-wait of
 * 0.5 ms in most samples of a round, and then the spread says so, rightly:
 * the spread's threshold is judged only on rounds the host left alone. */
static int rounds_faithful(const sb_measurement *m)
{
    for (int r = 0; r < m->rounds; r++)
        if (fabs(m->round_ms[r] / run_ms[r] - 1.0) > 0.05)
            return 0;
    return 1;
}

/* The row's spread: its rounds' largest distance from the row's median. */
static double spread_of(const sb_measurement *m)
{
    double most = 0.0;
    for (int r = 0; r < m->rounds; r++)
        most = fmax(most, fabs(m->round_ms[r] / m->kernel.median - 1.0));
    return most;
}

static void test_rounds_share_and_flag(void)
{
    sb_timing_opts o = round_opts(30, 2, 30);
    sb_measurement m;
    run_ms[0] = run_ms[1] = run_ms[2] = 0.5;
    measure_in_rounds(3, &o, &m);
    CHECKF(m.rounds == 3 && m.kernel.n >= 30, "%d rounds, %d samples", m.rounds, m.kernel.n);
    CHECKF(fabs(m.round_spread - spread_of(&m)) < 1e-12, "spread %.3f, from the rounds %.3f", m.round_spread,
           spread_of(&m));
    if (rounds_faithful(&m))
        CHECKF(m.round_spread < SB_ROUND_UNSTABLE, "steady rounds spread %.3f", m.round_spread);
    sb_measurement_free(&m);

    run_ms[1] = 0.7;                                /* one round disturbed */
    measure_in_rounds(3, &o, &m);
    CHECKF(m.rounds == 3 && fabs(m.round_spread - spread_of(&m)) < 1e-12, "%d rounds, spread %.3f", m.rounds,
           m.round_spread);
    if (rounds_faithful(&m))
        CHECKF(m.round_spread > SB_ROUND_UNSTABLE, "spread %.3f", m.round_spread);
    sb_row row;
    memset(&row, 0, sizeof row);
    row.kernel = m.kernel;
    row.rounds = m.rounds;
    row.round_spread = m.round_spread;
    row.steal = -1.0;
    CHECK(sb_noise_row_flags(&row, 1) & SB_NOISE_FLAG_UNSTABLE);
    CHECK((sb_noise_row_flags(&row, 0) & SB_NOISE_FLAG_UNSTABLE) == 0);     /* GPU rows: not from rounds */
    row.round_spread = 0.0;
    row.steal = 0.2;                                /* a fifth of its CPUs' time stolen */
    CHECK(sb_noise_row_flags(&row, 1) & SB_NOISE_FLAG_UNSTABLE);
    char text[64];
    sb_noise_flag_text(SB_NOISE_FLAG_UNSTABLE, text, sizeof text);
    CHECKF(strcmp(text, "unstable") == 0, "%s", text);
    sb_measurement_free(&m);
}

/* A later round re-warms a fast row; a row whose one run is longer than
 * that warm-up (a quarter of warmup_ms) runs none.  Before, the warm-up
 * loop's first test passed at once, so every such row ran once more a
 * round: 17 s of one H100 make bench. */
static void test_rounds_warmup(void)
{
    sb_timing_opts o = round_opts(30, 4, 3);
    sb_measurement m;
    run_ms[0] = run_ms[1] = run_ms[2] = 6;          /* past warmup_ms: no warm-up in any round */
    measure_in_rounds(3, &o, &m);
    CHECKF(runs == 1 + m.kernel.n, "%d runs: the check, %d samples and %d warm-up", runs, m.kernel.n,
           runs - 1 - m.kernel.n);
    sb_measurement_free(&m);
    run_ms[0] = run_ms[1] = run_ms[2] = 0.2;        /* a fast row: warmed every round */
    measure_in_rounds(3, &o, &m);
    CHECKF(runs >= 1 + m.kernel.n + 3, "%d runs: the check, %d samples and %d warm-up", runs, m.kernel.n,
           runs - 1 - m.kernel.n);
    sb_measurement_free(&m);
}

/* A row as long as the budget: its check run is a sample, and it takes
 * two more -- one a round -- only while one run is at most 3 budgets. */
static void test_rounds_slow_rows(void)
{
    sb_timing_opts o;
    sb_timing_defaults(&o);
    o.budget_ms = 8;                                /* runs of 10 ms: 14 ms from 3 budgets, room for a CI machine's pauses */
    o.probes = sb_host_probes_new();                /* the caller's, as a bench run's */
    CHECK(o.probes != NULL);
    sb_measurement m;
    run_ms[0] = run_ms[1] = run_ms[2] = 10;         /* 1.25 budgets */
    measure_in_rounds(3, &o, &m);
    CHECKF(m.kernel.n == 3 && runs == 3 && m.rounds == 3, "%d samples of %d runs, %d parts", m.kernel.n, runs,
           m.rounds);
    CHECKF(m.mem_slowdown >= 1.0, "a slow row's runs not probed for memory speed (%g)", m.mem_slowdown);
    CHECKF(m.round_ms[0] >= 10 && m.round_ms[1] >= 10 && m.round_ms[2] >= 10, "its runs are its rounds' evidence: %g %g %g",
           m.round_ms[0], m.round_ms[1], m.round_ms[2]);
    sb_measurement_free(&m);
    run_ms[0] = run_ms[1] = run_ms[2] = 28;         /* 3.5 budgets: its one run */
    measure_in_rounds(3, &o, &m);
    CHECKF(m.kernel.n == 1 && runs == 1, "%d samples of %d runs", m.kernel.n, runs);
    CHECKF(m.mem_slowdown >= 1.0, "a one-run row not probed for memory speed (%g)", m.mem_slowdown);
    sb_measurement_free(&m);
    run_ms[0] = run_ms[1] = run_ms[2] = 0.5;        /* a fast row: its rounds show its noise */
    measure_in_rounds(3, &o, &m);
    CHECKF(m.kernel.n > 3 && m.mem_slowdown == 0.0, "%d samples, memory slowdown %g", m.kernel.n, m.mem_slowdown);
    sb_measurement_free(&m);
    run_ms[0] = run_ms[1] = run_ms[2] = 10;         /* one round (sb_measure): all three in it */
    measure_in_rounds(1, &o, &m);
    CHECKF(m.kernel.n == 3 && runs == 3, "%d samples of %d runs", m.kernel.n, runs);
    sb_measurement_free(&m);
    sb_host_probes_free(o.probes);
}

/* A slow row's one to three runs have no rounds to disagree: before the
 * memory probe such a row was never flagged, though on the 2-core cloud
 * machine 67 of its 187 one-run rows moved more than 10 % between two
 * runs, the most 1.75x (docs/measuring.md, cause 7).  Beyond
 * SB_MEMORY_UNSTABLE it is unstable now, with a warning that says why;
 * the probe reads its best as 1.0 and never less. */
static void test_memory_probe_flags(void)
{
    sb_row row;
    memset(&row, 0, sizeof row);
    row.kernel = (sb_summary){ .n = 1, .min = 900, .p25 = 900, .median = 900, .p75 = 900, .max = 900 };
    row.rounds = 1;
    row.steal = -1.0;
    row.mem_slowdown = 1.1;
    CHECK((sb_noise_row_flags(&row, 1) & SB_NOISE_FLAG_UNSTABLE) == 0);
    row.mem_slowdown = 1.4;                         /* a neighbour's memory traffic around its run */
    CHECK(sb_noise_row_flags(&row, 1) & SB_NOISE_FLAG_UNSTABLE);
    CHECK((sb_noise_row_flags(&row, 0) & SB_NOISE_FLAG_UNSTABLE) == 0);   /* GPU rows: not from host probes */
    char said[512] = "";
    FILE *fp = fmemopen(said, sizeof said - 1, "w");
    if (fp) {
        sb_noise_warn_unstable(fp, "slic s16 cpu t1 big", &row);
        fclose(fp);
    }
    CHECKF(strstr(said, "memory read a fixed buffer up to 40 % slower") && strstr(said, "1 run ("),
           "warning: %s", said);
    sb_host_probes *probes = sb_host_probes_new();
    double first = sb_host_memory_slowdown(probes), again = sb_host_memory_slowdown(probes);
    CHECKF(first >= 1.0 && again >= 1.0, "probe read %g then %g of its best", first, again);
    CHECK(sb_host_memory_slowdown(NULL) == 0.0);     /* a caller without probes: not probed */
    sb_host_probes_free(probes);
}

/* The CPU speed probe holds a probe of n CPUs to the bests of probes of n
 * CPUs: the first probe of a team is its own best, whatever one CPU alone
 * ran before (16 busy CPUs run slower than one, and every 16-thread row
 * of the H100 host read slow against bests of smaller teams). */
static void test_speed_probe_by_team(void)
{
    int order[CPU_SETSIZE];
    int n = sb_placement_order(order, CPU_SETSIZE);
    if (n < 2)
        return;
    sb_host_probes *probes = sb_host_probes_new();   /* a fresh one: no team probed yet */
    for (int i = 0; i < 5; i++)
        CHECK(sb_host_slowdown(probes, order, 1) >= 1.0);
    double first = sb_host_slowdown(probes, order, 2);   /* no probe of two CPUs before this one */
    CHECKF(first == 1.0, "the first probe of two CPUs read %g of a best", first);
    sb_host_probes_free(probes);
}

/* The placement: every CPU the process may use, once, the first thread of
 * each core before any second one; a thread pinned there runs there; the
 * caller held for a row gets its CPUs back. */
static void test_placement(void)
{
    cpu_set_t allowed, now;
    CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    int order[CPU_SETSIZE];
    int n = sb_placement_order(order, CPU_SETSIZE);
    CHECKF(n == CPU_COUNT(&allowed), "%d CPUs placed of %d allowed", n, CPU_COUNT(&allowed));
    for (int i = 0; i < n; i++) {
        CHECKF(CPU_ISSET(order[i], &allowed), "CPU %d not allowed", order[i]);
        for (int j = 0; j < i; j++)
            CHECKF(order[j] != order[i], "CPU %d placed twice", order[i]);
    }
    CHECK(sb_placement_cpu(n) == sb_placement_cpu(0));          /* wraps */
    sb_placement_hold(1, 0);
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0);
    CHECKF(CPU_COUNT(&now) == 1 && CPU_ISSET(order[0], &now) && sched_getcpu() == order[0],
           "held on %d CPUs, running on %d", CPU_COUNT(&now), sched_getcpu());
    sb_placement_release();
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &allowed));
    sb_placement_enable(0);
    CHECK(sb_placement_cpu(0) == -1);
    sb_placement_hold(1, 0);                                       /* off: nothing pinned */
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &allowed));
    sb_placement_release();
    sb_placement_enable(1);
}

/* The pool: worker i on thread i's CPU, and jobs back to back find the
 * workers awake.  Before the workers spun, every job woke a sleeping one:
 * on a virtual machine 0.1-0.5 ms each, which made pthread@2 of the
 * integral image slower than the serial code (docs/measuring.md). */
static int pool_cpu[4];
static atomic_int pool_sum;
static void pool_job(void *ctx, int index, int count)
{
    (void)ctx, (void)count;
    pool_cpu[index] = sched_getcpu();
    atomic_fetch_add(&pool_sum, index + 1);
}

static void test_pool_spins_then_sleeps(void)
{
    sb_pool *pool;
    sb_error err;
    CHECKF(sb_pool_create(&pool, 2, &err) == SB_OK, "%s", err.msg);
    if (!pool)
        return;
    sb_placement_hold(2, 0);
    atomic_store(&pool_sum, 0);
    sb_pool_run(pool, pool_job, NULL);                           /* the worker has started */
    unsigned long slept = sb_pool_sleeps(pool);
    for (int i = 0; i < 1000; i++)
        sb_pool_run(pool, pool_job, NULL);
    unsigned long more = sb_pool_sleeps(pool) - slept;
    CHECKF(atomic_load(&pool_sum) == 1001 * 3, "%d", atomic_load(&pool_sum));
    CHECKF(more < 900, "%lu sleeps in 1000 back-to-back jobs (a pool that slept after each had 1000 or more)",
           more);
    if (sb_placement_cpu(1) >= 0)
        CHECKF(pool_cpu[0] == sb_placement_cpu(0) && pool_cpu[1] == sb_placement_cpu(1),
               "threads on CPUs %d, %d, not %d, %d", pool_cpu[0], pool_cpu[1], sb_placement_cpu(0),
               sb_placement_cpu(1));
    struct timespec pause = { 0, 5 * 1000 * 1000 };              /* long past the spin: asleep, woken */
    nanosleep(&pause, NULL);
    sb_pool_run(pool, pool_job, NULL);
    CHECKF(atomic_load(&pool_sum) == 1002 * 3 && sb_pool_sleeps(pool) > slept + more,
           "a job after a pause: sum %d", atomic_load(&pool_sum));
    sb_placement_release();
    sb_pool_destroy(pool);
}

/* host_noise: waiting for quiet returns at once when nothing else runs,
 * and waits for a thread that spins (as OpenMP's do after a region). */
static atomic_int spin_until_ms;
static void *spinner(void *arg)
{
    (void)arg;
    while (sb_clock_ms() < atomic_load(&spin_until_ms))
        ;
    return NULL;
}

static void test_host_noise(void)
{
    double waited = sb_host_wait_quiet(50);
    if (waited < 0)
        return;                                               /* no /proc here */
    CHECKF(waited < 20, "waited %.1f ms with nothing running", waited);
    pthread_t t;
    atomic_store(&spin_until_ms, (int)sb_clock_ms() + 30);
    if (pthread_create(&t, NULL, spinner, NULL) == 0) {
        busy_ms(1);
        waited = sb_host_wait_quiet(200);
        pthread_join(t, NULL);
        CHECKF(waited >= 15 && waited < 200, "waited %.1f ms for a thread spinning 30 ms", waited);
    }
    int cpu0 = sb_placement_order(&cpu0, 1) ? cpu0 : 0;
    CHECK(sb_host_steal_ms(&cpu0, 1) >= 0);
    int none = 100000;
    CHECK(sb_host_steal_ms(&none, 1) < 0);
}

/* A device variant whose every pass waits on the host's computing moves
 * with the host's noise: on the H100 host k-means' cuda-seed and
 * cuda-copyonce rows moved up to 1.9x between two runs of record, 20 of
 * the 22 GPU rows beyond 1.25x, none flagged, since only CPU rows took the
 * host probes.  Exactly the device variants driven by the host's k-means
 * loop (in their file or a header it includes) are SB_HOST_BOUND now,
 * and their rows take the host rows' flags. */
static void test_host_bound_rows(void)
{
    int flagged = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (!(v->flags & SB_DEVICE))
            continue;
        static char text[1 << 18];
        test_slurp_rung(v->file, text, sizeof text);
        int host_loop = strstr(text, "sb_kmeans_host_loop(") != NULL;
        CHECKF(host_loop == !!(v->flags & SB_HOST_BOUND), "%s (%s): %s the host's k-means loop but is %sflagged "
               "SB_HOST_BOUND", v->who, v->file, host_loop ? "runs" : "does not run",
               (v->flags & SB_HOST_BOUND) ? "" : "not ");
        flagged += host_loop;
    }
    CHECKF(flagged == 3, "%d host-bound device variants (k-means cuda-seed, cuda-copyonce, cuda-devsums: 3)", flagged);
    CHECK(sb_noise_host_row(0) && sb_noise_host_row(SB_THREADED) && sb_noise_host_row(SB_DEVICE | SB_HOST_BOUND) &&
          !sb_noise_host_row(SB_DEVICE));
    sb_row row;
    memset(&row, 0, sizeof row);
    row.cpu_slowdown = 1.3;                          /* its CPU ran the fixed loop 30 % slower */
    CHECK(sb_noise_row_flags(&row, sb_noise_host_row(SB_DEVICE | SB_HOST_BOUND)) & SB_NOISE_FLAG_UNSTABLE);
    CHECK(!(sb_noise_row_flags(&row, sb_noise_host_row(SB_DEVICE)) & SB_NOISE_FLAG_UNSTABLE));
}

const sb_test tests_rounds[] = {
    { "rounds: each round its share of the samples; a round 40 % slower makes the row unstable (so does steal)",
      test_rounds_share_and_flag, SB_TEST_ALONE },
    { "rounds: a later round warms a fast row again, a row longer than its warm-up not at all",
      test_rounds_warmup },
    { "rounds: a slow row's check run is a sample, two more (one a round) only up to 3 budgets",
      test_rounds_slow_rows },
    { "rounds: a slow row's runs are read against the host's memory speed; beyond 1.25x it is unstable",
      test_memory_probe_flags },
    { "rounds: the CPU speed probe holds a team of CPUs to the best of teams of its size", test_speed_probe_by_team },
    { "placement: every usable CPU once, cores first; the caller held and given back", test_placement },
    { "pool: worker i on thread i's CPU; back-to-back jobs find the workers awake, later ones wake them",
      test_pool_spins_then_sleeps },
    { "host noise: quiet at once when alone; waits for a spinning thread; steal read per CPU", test_host_noise },
    { "host noise: the device variants that wait on the host's k-means loop are host-bound, flagged as host rows",
      test_host_bound_rows },
};
const int tests_rounds_count = sizeof tests_rounds / sizeof tests_rounds[0];
