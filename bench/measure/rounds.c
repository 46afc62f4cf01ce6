/* rounds.c - host rows in interleaved rounds (measure.h). */
#define _GNU_SOURCE            /* CPU_SETSIZE */
#include "measure/measure.h"

#include "machine/host_noise.h"
#include "measure/paired.h"
#include "measure/protocol.h"

#include "segbench/clock.h"
#include "segbench/placement.h"
#include "segbench/trace.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

/* The row's range in the profiler's timeline, and a step inside it. */
static void trace_begin(const sb_rounds_row *rr, const char *what)
{
    const sb_case *c = rr->c;
    char at[16] = "";
    if (rr->threads > 1)
        snprintf(at, sizeof at, "@%d", rr->threads);
    sb_trace_push("%s/%s%s/%s/%s", c->algo->name, rr->v->name, at, c->algo->stages[c->stage],
                  c->image ? c->image : "image");
    sb_trace_push("%s", what);
}

static void trace_end(void)
{
    sb_trace_pop();
    sb_trace_pop();
}

int sb_rounds_cpus(int threads, int *cpus, int max)
{
    int all = sb_placement_order(cpus, max);
    if (sb_placement_enabled() && threads < all)
        return threads;        /* threads 0..threads-1 on the order's first CPUs */
    return all;                /* unpinned, or more threads than CPUs: every CPU */
}

/* How fast the row's CPUs run now (host_noise.h), into rr->slowdown: once
 * they are quiet, since a probe beside the row's own spinning threads
 * would read their time slices. */
static void probe_speed(sb_rounds_row *rr)
{
    int cpus[CPU_SETSIZE];                 /* 4 KB: the stack (a static would be shared by every caller) */
    sb_host_wait_quiet(SB_QUIET_MAX_MS);
    int n = sb_rounds_cpus(rr->threads, cpus, CPU_SETSIZE);
    double slowdown = n > 0 ? sb_host_slowdown(rr->probes, cpus, n) : 0.0;
    if (slowdown > rr->slowdown)
        rr->slowdown = slowdown;
}

/* The cache probe on the row's CPUs (host_noise.h): is this a spell. */
static double cache_probe(const sb_rounds_row *rr)
{
    int cpus[CPU_SETSIZE];                 /* 4 KB: the stack */
    int n = sb_rounds_cpus(rr->threads, cpus, CPU_SETSIZE);
    return n > 0 ? sb_host_cache_probe_on(rr->probes, cpus, n) : sb_host_cache_probe_ms(rr->probes);
}

/* One run of a slow row, a sample, between two reads of the host's memory
 * speed (host_noise.h): a run of seconds has no rounds of its own to show
 * that a neighbour's memory traffic slowed it. */
static sb_status slow_run(sb_rounds_row *rr, double *ms, double *probe, sb_error *err)
{
    double before = sb_host_memory_slowdown(rr->probes), cache = cache_probe(rr);
    sb_status st = sb_session_sample(&rr->s, 0, ms, err);
    *probe = fmax(cache, cache_probe(rr));
    double after = sb_host_memory_slowdown(rr->probes);
    rr->mem_slowdown = fmax(rr->mem_slowdown, fmax(before, after));
    return st;
}

/* The row's CPUs to itself: wait until the threads of the rows before
 * stop spinning, then pin this row's (placement.h). */
static void hold_quiet(const sb_rounds_row *rr)
{
    sb_host_wait_quiet(SB_QUIET_MAX_MS);
    sb_placement_hold(rr->threads, strcmp(rr->v->backend, "openmp") == 0);
}

/* Samples a slow row takes in all: three where one run takes at most
 * SB_REFERENCE_MEDIAN_OF budgets, else its one. */
static int slow_samples(const sb_rounds_row *rr, const sb_timing_opts *o)
{
    return rr->first_ms <= SB_REFERENCE_MEDIAN_OF * o->budget_ms && o->max_reps >= 3 ? 3 : 1;
}

sb_status sb_rounds_open(sb_rounds_row *rr, const sb_case *c, const sb_variant *v, int threads, int rounds,
                         const sb_timing_opts *o, sb_measurement *m, sb_error *err)
{
    memset(rr, 0, sizeof *rr);
    memset(m, 0, sizeof *m);
    m->census_n = -1;
    m->steal = -1.0;
    rr->c = c;
    rr->v = v;
    rr->threads = threads;
    rr->m = m;
    rr->probes = o->probes;
    rr->rounds = rounds < 1 ? 1 : rounds > SB_ROUNDS_MAX ? SB_ROUNDS_MAX : rounds;
    int most = o->max_reps;
    if (o->pairing && o->pairing->on) {      /* samples in turns with the partner's: paired.h */
        char label[400];
        snprintf(label, sizeof label, "%s/%s@%d/%s/%s", c->algo->name, v->name, threads, c->algo->stages[c->stage],
                 c->image ? c->image : "image");
        rr->pairing = o->pairing;
        rr->key = sb_paired_key(label);
        most = most > o->pairing->reps * rr->rounds ? most : o->pairing->reps * rr->rounds;
    }
    sb_status st = sb_samples_alloc(m, most, err);
    if (st)
        return st;
    step_clock k = { m, SB_STEPS, 0.0 };
    trace_begin(rr, "start");
    sb_phase(&k, SB_STEP_CHECK);
    hold_quiet(rr);
    /* paired: no row is slow, every row takes the same samples on both sides */
    if (!rr->pairing && v == c->reference_variant && threads == 1 && c->ref_times.run_ms >= o->budget_ms) {
        /* the run that made the case's reference is the first sample */
        rr->reference = rr->slow = 1;
        rr->first_ms = c->ref_times.run_ms;
        rr->mem_slowdown = c->ref_times.mem_slowdown;
        m->agreement.ok = 1;
        snprintf(m->agreement.verdict, sizeof m->agreement.verdict, "reference");
        if (slow_samples(rr, o) > 1) {
            sb_phase(&k, SB_STEP_TIMED);
            st = sb_session_open(&rr->s, c, v, 1, NULL, 0, err);
            rr->open = st == SB_OK;
        }
    } else {
        st = sb_session_open(&rr->s, c, v, threads, NULL, 1, err);
        rr->open = st == SB_OK;
        if (!st && !(st = sb_session_sample(&rr->s, 0, &rr->first_ms, err)))
            st = sb_session_check(&rr->s, &m->agreement, err);
        rr->slow = !rr->pairing && rr->first_ms >= o->budget_ms;
        if (!st && rr->slow)                       /* a sample: the memory's speed after it */
            rr->mem_slowdown = sb_host_memory_slowdown(rr->probes);
    }
    if (!st && rr->slow) {                     /* a run of seconds needs no warm-up */
        m->kernel_ms[rr->n++] = rr->first_ms;
        rr->part_probe[rr->parts] = rr->reference ? c->ref_times.cache_probe_ms
                                                  : cache_probe(rr);
        rr->part_ms[rr->parts++] = rr->first_ms;
        sb_work_note(m, rr->reference ? c->reference : rr->s.out);   /* that run's work */
    }
    sb_phase(&k, SB_STEPS);
    sb_placement_release();
    trace_end();
    return st;
}

/* The round's warm-up: the first round's counts the check run (measure.h,
 * step 2); a later one re-warms what the other rows' rounds evicted, for
 * a quarter of warmup_ms -- no run at all for a row whose runs take that
 * long, which re-reads its data from memory in its first microseconds. */
static sb_status round_warmup(sb_rounds_row *rr, int round, const sb_timing_opts *o, sb_error *err)
{
    double warm_ms = o->warmup_ms / 4, ms;
    int warm_min = 1;
    if (round == 0) {
        warm_ms = o->warmup_ms - rr->first_ms;
        warm_min = rr->first_ms >= o->warmup_ms ? 0 : o->warmup_min;
    } else if (rr->median_ms >= warm_ms) {
        return SB_OK;          /* one run would be the whole warm-up: none */
    }
    double t0 = sb_clock_ms();
    for (int i = 0; i < warm_min || sb_clock_ms() - t0 < warm_ms; i++) {
        sb_status st = sb_session_sample(&rr->s, 0, &ms, err);
        if (st)
            return st;
        if (i > 1000)
            break;
    }
    return SB_OK;
}

/* The work of the round's last run (measure.h), read outside its timing. */
static sb_status note_work(sb_rounds_row *rr, sb_error *err)
{
    sb_status st = sb_session_fetch(&rr->s, err);
    if (!st)
        sb_work_note(rr->m, rr->s.out);
    return st;
}

/* The round's share of the timed runs: the protocol's rule (measure.h,
 * step 3) on budget / rounds, min_reps / rounds (rounded up) and an even
 * share of the max_reps left, except that a row too slow for its share
 * takes one run a round once the round's budget is spent: three rounds
 * give it the three samples a row takes at least, at the cost the one-row
 * protocol paid for them. */
static sb_status round_timed(sb_rounds_row *rr, int round, const sb_timing_opts *o, sb_error *err)
{
    int left = rr->rounds - round;
    sb_timing_opts share = *o;
    share.min_reps = (o->min_reps + rr->rounds - 1) / rr->rounds;
    share.max_reps = (o->max_reps - rr->n) / left;
    if (share.max_reps < 1 && !rr->pairing)
        return SB_OK;
    double *ms = rr->m->kernel_ms + rr->n;
    int n = 0;
    double probe = cache_probe(rr), t0 = sb_clock_ms();
    sb_stop why;
    do {
        sb_status st = sb_session_sample(&rr->s, 0, &ms[n], err);
        if (st)
            return st;
        if (rr->pairing) {           /* the partner times its sample n now (paired.h), once this
                                         sample's threads stop spinning on the CPUs it will use */
            sb_host_wait_quiet(SB_QUIET_MAX_MS);
            rr->unpaired |= !sb_paired_turn(rr->pairing, rr->key, rr->n + n);
        }
        n++;
    } while (!(why = rr->pairing ? (n >= rr->pairing->reps ? SB_STOP_MAX : SB_STOP_NONE)
                                  : sb_enough_samples(ms, n, t0, &share, o->budget_ms / rr->rounds, 1)));
    if (why > rr->stopped)
        rr->stopped = why;
    rr->n += n;
    sb_summary s;
    sb_summarize(ms, n, &s);
    rr->part_probe[rr->parts] = fmax(probe, cache_probe(rr));
    rr->part_ms[rr->parts++] = s.median;
    rr->median_ms = s.median;
    return note_work(rr, err);
}

/* A slow row's round: its share of the whole runs still wanted. */
static sb_status round_slow(sb_rounds_row *rr, int round, const sb_timing_opts *o, sb_error *err)
{
    int left = rr->rounds - round, want = slow_samples(rr, o) - rr->n;
    int take = want > 0 ? (want + left - 1) / left : 0;
    for (int i = 0; i < take && rr->open; i++) {
        double ms, probe;
        sb_status st = slow_run(rr, &ms, &probe, err);
        if (st)
            return st;
        rr->m->kernel_ms[rr->n++] = ms;
        rr->part_probe[rr->parts] = probe;
        rr->part_ms[rr->parts++] = ms;
        if ((st = note_work(rr, err)))
            return st;
    }
    return SB_OK;
}

sb_status sb_rounds_next(sb_rounds_row *rr, const sb_timing_opts *o, sb_error *err)
{
    int round = rr->rounds_done;
    if (round >= rr->rounds)
        return SB_OK;
    step_clock k = { rr->m, SB_STEPS, 0.0 };
    trace_begin(rr, "round");
    sb_phase(&k, SB_STEP_WARMUP);               /* 2. warm-up, on quiet CPUs */
    hold_quiet(rr);
    sb_status st = SB_OK;
    if (rr->slow) {
        probe_speed(rr);
        sb_phase(&k, SB_STEP_TIMED);
        st = round_slow(rr, round, o, err);
    } else if (!(st = round_warmup(rr, round, o, err))) {
        probe_speed(rr);
        sb_phase(&k, SB_STEP_TIMED);            /* 3. kernel time */
        st = round_timed(rr, round, o, err);
    }
    sb_phase(&k, SB_STEP_WARMUP);
    probe_speed(rr);                            /* the CPUs' speed before and after */
    rr->rounds_done++;
    sb_phase(&k, SB_STEPS);
    sb_placement_release();
    trace_end();
    return st;
}

/* The largest distance of a part (a round's median, a slow run) from the
 * row's median, as a fraction of it. */
static double parts_spread(const sb_rounds_row *rr, double median)
{
    double most = 0.0;
    for (int i = 0; i < rr->parts && median > 0; i++)
        most = fmax(most, fabs(rr->part_ms[i] / median - 1.0));
    return most;
}

sb_status sb_rounds_close(sb_rounds_row *rr, sb_error *err)
{
    sb_measurement *m = rr->m;
    step_clock k = { m, SB_STEPS, 0.0 };
    trace_begin(rr, "close");
    sb_status st = SB_OK;
    if (!rr->reference && rr->open && rr->n > 1) {
        sb_phase_named(&k, SB_STEP_CHECK, "check again");   /* 4. the last run's output */
        sb_agreement again;
        st = sb_session_check(&rr->s, &again, err);
        if (!st && m->agreement.ok && !again.ok) {
            m->agreement = again;
            strncat(m->agreement.metric, " (after repeated runs)",
                    sizeof m->agreement.metric - strlen(m->agreement.metric) - 1);
        }
    }
    sb_phase(&k, SB_STEPS);
    if (!st) {                                  /* 5. per frame and end to end, from the runs */
        sb_summarize(m->kernel_ms, rr->n, &m->kernel);
        if (rr->reference) {
            const sb_run_times *ref = &rr->c->ref_times;
            snprintf(m->agreement.metric, sizeof m->agreement.metric,
                     "the reference itself: its run defines the contract (slow row, %d sample%s)", rr->n,
                     rr->n > 1 ? "s" : "");
            sb_host_row_times(m, rr->n, ref->setup_ms, ref->frame_ms - ref->run_ms);
        } else {
            sb_host_row_times(m, rr->n, rr->s.prepare_ms, rr->s.fetch_ms);
        }
        m->rounds = rr->parts;
        memcpy(m->round_ms, rr->part_ms, (size_t)rr->parts * sizeof *rr->part_ms);
        memcpy(m->round_probe, rr->part_probe, (size_t)rr->parts * sizeof *rr->part_probe);
        m->stopped = rr->slow ? SB_STOP_SLOW : rr->stopped;
        m->round_spread = parts_spread(rr, m->kernel.median);
        m->slowdown = rr->slowdown;
        m->mem_slowdown = rr->mem_slowdown;
        m->unpaired = rr->pairing && (rr->unpaired || rr->n == 0);
    }
    trace_end();
    sb_rounds_release(rr);
    return st;
}

void sb_rounds_release(sb_rounds_row *rr)
{
    if (rr->open)
        sb_session_close(&rr->s);
    rr->open = 0;
}
