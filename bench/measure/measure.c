/* measure.c - one row measured (sb_measure): a device row's protocol
 * here -- check, warm-up, timed runs, per frame, cold runs -- and a host
 * row's through the rounds (rounds.c, one round); the sessions they run
 * (session.c) and the stopping rule and step clock (samples.c) below
 * both, so that no two files call each other. */
#include "measure/measure.h"

#include "variants/agreement.h"
#include "machine/host_noise.h"
#include "variants/outputs.h"
#include "measure/protocol.h"

#include "segbench/clock.h"
#include "segbench/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a row too slow for min_reps in its budget settles for: 3. */
static int few_samples(const sb_timing_opts *o) { return o->min_reps < 3 ? o->min_reps : 3; }

/* One whole cold run of a device row as sample i of e2e and setup. */
static sb_status device_cold_sample(sb_session *s, sb_measurement *m, int i, sb_error *err)
{
    sb_run_times t;
    sb_status st = sb_run_once(s->c, s->v, s->exec.threads, s->exec.stream, s->out, 0, &t, err);
    m->setup_ms[i] = t.setup_ms;
    m->e2e_ms[i] = t.setup_ms + t.frame_ms;
    return st;
}


/* A slow device row: the check run (ms) is its one sample (an observed
 * one is not: it runs once more), and one cold run its end to end. */
static sb_status measure_slow(sb_session *s, double ms, int observed, sb_measurement *m, sb_error *err)
{
    sb_status st;
    if (observed && (st = sb_session_sample(s, 0, &ms, err)))
        return st;
    sb_work_note(m, s->out);      /* the check fetched the run's output */
    m->kernel_ms[0] = ms;
    m->round_ms[0] = ms;
    m->rounds = 1;
    m->stopped = SB_STOP_SLOW;
    sb_summarize(m->kernel_ms, 1, &m->kernel);
    if ((st = device_cold_sample(s, m, 0, err)))
        return st;
    m->frame_ms[0] = m->e2e_ms[0] - m->setup_ms[0];
    sb_summarize(m->e2e_ms, 1, &m->e2e);
    sb_summarize(m->setup_ms, 1, &m->setup);
    sb_summarize(m->frame_ms, 1, &m->frame);
    return SB_OK;
}

/* Warm-up of a device row: a quarter of it right after another. */
static sb_status measure_warmup(sb_session *s, const sb_timing_opts *o, sb_error *err)
{
    double t0 = sb_clock_ms(), warm_ms = o->warmup_ms, ms;
    if (o->gpu_warm)
        warm_ms /= 4;              /* the GPU ran the row before this one: its clocks are up */
    for (int i = 0; i < o->warmup_min || sb_clock_ms() - t0 < warm_ms; i++) {
        sb_status st = sb_session_sample(s, o->flush_l2, &ms, err);
        if (st)
            return st;
        if (i > 1000)
            break;
    }
    return SB_OK;
}

/* One round's share of the kernel time (measure.h, step 3): the budget,
 * min_reps and max_reps divided among the rounds; its median kept as the
 * round's evidence. */
static sb_status timed_round(sb_session *s, const sb_timing_opts *o, int rounds, sb_measurement *m, int *n,
                             sb_error *err)
{
    sb_timing_opts share = *o;
    share.min_reps = (o->min_reps + rounds - 1) / rounds;
    share.max_reps = o->max_reps / rounds > 0 ? o->max_reps / rounds : 1;
    double *ms = m->kernel_ms + *n, t0 = sb_clock_ms();
    int got = 0;
    sb_stop why;
    do {
        sb_status st = sb_session_sample(s, o->flush_l2, &ms[got], err);
        if (st)
            return st;
        got++;
    } while (!(why = sb_enough_samples(ms, got, t0, &share, o->budget_ms / rounds, few_samples(&share))));
    m->stopped = why > m->stopped ? why : m->stopped;
    sb_summary sum;
    sb_summarize(ms, got, &sum);
    m->round_ms[m->rounds++] = sum.median;
    *n += got;
    /* the round's work, read outside its timing (a fetch of the last run) */
    sb_status st = sb_session_fetch(s, err);
    if (!st)
        sb_work_note(m, s->out);
    return st;
}

/* Kernel time in rounds, GPU clocks read around them: the first on the
 * checked and warmed session, each later one on a fresh session (fresh
 * allocations, which the next round would otherwise share with this
 * one) after a short warm-up (its clocks are up); then the last timed
 * run's output must still agree. */
static sb_status measure_timed(sb_session *s, const sb_timing_opts *o, sb_measurement *m, step_clock *k,
                               sb_error *err)
{
    sb_status st = SB_OK;
    int rounds = o->rounds < 1 ? 1 : o->rounds > SB_ROUNDS_MAX ? SB_ROUNDS_MAX : o->rounds, n = 0;
    sb_gpu_clocks_read(o->gpu_uuid, &m->clocks_start);
    for (int r = 0; r < rounds && !st; r++) {
        if (r > 0) {
            sb_phase(k, SB_STEP_WARMUP);
            const sb_case *c = s->c;
            const sb_variant *v = s->v;
            int threads = s->exec.threads;
            void *stream = s->exec.stream;
            sb_session_close(s);
            sb_timing_opts warm = *o;
            warm.gpu_warm = 1;
            if ((st = sb_session_open(s, c, v, threads, stream, 0, err)) || (st = measure_warmup(s, &warm, err)))
                break;
            sb_phase(k, SB_STEP_TIMED);
        }
        st = timed_round(s, o, rounds, m, &n, err);
    }
    sb_gpu_clocks_read(o->gpu_uuid, &m->clocks_end);
    if (st)
        return st;
    sb_summarize(m->kernel_ms, n, &m->kernel);
    if (m->rounds > 1)
        for (int r = 0; r < m->rounds; r++)
            m->round_spread = fmax(m->round_spread, fabs(m->round_ms[r] / m->kernel.median - 1.0));

    sb_phase_named(k, SB_STEP_CHECK, "check again");
    sb_agreement again;
    if ((st = sb_session_check(s, &again, err)))
        return st;
    if (m->agreement.ok && !again.ok) {
        m->agreement = again;
        strncat(m->agreement.metric, " (after repeated runs)",
                sizeof m->agreement.metric - strlen(m->agreement.metric) - 1);
    }
    return SB_OK;
}

/* Per frame and end to end of a device row, each for a quarter of the
 * budget (measure.h, step 5). */
static sb_status measure_frames(sb_session *s, const sb_timing_opts *o, sb_measurement *m, step_clock *k,
                                sb_error *err)
{
    sb_status st;
    sb_phase(k, SB_STEP_FRAMES);
    int n = 0;
    double t0 = sb_clock_ms();
    do {
        if ((st = sb_session_frame(s, &m->frame_ms[n], err)))
            return st;
        n++;
    } while (!sb_enough_samples(m->frame_ms, n, t0, o, o->budget_ms / 4, few_samples(o)));
    sb_summarize(m->frame_ms, n, &m->frame);
    sb_phase(k, SB_STEP_COLD);
    n = 0;
    t0 = sb_clock_ms();
    do {
        if ((st = device_cold_sample(s, m, n, err)))
            return st;
        n++;
    } while (!sb_enough_samples(m->e2e_ms, n, t0, o, o->budget_ms / 4, few_samples(o)));
    sb_summarize(m->e2e_ms, n, &m->e2e);
    sb_summarize(m->setup_ms, n, &m->setup);
    return SB_OK;
}

/* The whole protocol for a device row. */
static sb_status measure_device_row(const sb_case *c, const sb_variant *v, int threads, void *stream,
                                    const sb_timing_opts *o, sb_measurement *m, step_clock *k, sb_error *err)
{
    sb_status st = sb_samples_alloc(m, o->max_reps, err);
    if (st)
        return st;
    /* 1. check before anything is timed (observed by the census if asked),
     * once the host rows' threads have stopped spinning (host_noise.h):
     * they would compete with this thread's launches and copies */
    sb_phase(k, SB_STEP_CHECK);
    sb_host_wait_quiet(SB_QUIET_MAX_MS);
    sb_error unobserved;
    int observed = o->census && sb_census_begin(&unobserved) == SB_OK;
    sb_session s;
    st = sb_session_open(&s, c, v, threads, stream, 1, err);
    double ms = 0.0;
    if (!st && !(st = sb_session_sample(&s, 0, &ms, err)))
        st = sb_session_check(&s, &m->agreement, err);
    if (observed) {
        int n = sb_census_end(m->census, SB_CENSUS_MAX);
        m->census_n = st ? -1 : n;
    }
    if (!st && ms >= o->budget_ms) {
        st = measure_slow(&s, ms, observed, m, err);
    } else if (!st) {
        sb_phase(k, SB_STEP_WARMUP);                              /* 2. warm-up */
        st = measure_warmup(&s, o, err);
        if (!st) {
            sb_phase(k, SB_STEP_TIMED);                           /* 3. kernel time, 4. checked again */
            st = measure_timed(&s, o, m, k, err);
        }
        if (!st)
            st = measure_frames(&s, o, m, k, err);                /* 5. per frame and end to end */
    }
    sb_session_close(&s);
    return st;
}

/* A host row alone: the rounds protocol (rounds.c) with one round. */
static sb_status measure_host_row(const sb_case *c, const sb_variant *v, int threads, const sb_timing_opts *o,
                                  sb_measurement *m, sb_error *err)
{
    sb_rounds_row rr;
    sb_status st = sb_rounds_open(&rr, c, v, threads, 1, o, m, err);
    if (!st)
        st = sb_rounds_next(&rr, o, err);
    if (st) {
        sb_rounds_release(&rr);
        return st;
    }
    return sb_rounds_close(&rr, err);
}

sb_status sb_measure(const sb_case *c, const sb_variant *v, int threads, void *stream,
                     const sb_timing_opts *o, sb_measurement *m, sb_error *err)
{
    if (!sb_is_device(v))
        return measure_host_row(c, v, threads, o, m, err);
    memset(m, 0, sizeof *m);
    m->census_n = -1;
    m->steal = -1.0;
    sb_trace_push("%s/%s/%s/%s", c->algo->name, v->name, c->algo->stages[c->stage], c->image ? c->image : "image");
    sb_trace_push("start");               /* each sb_phase() pops the one before */
    step_clock k = { m, SB_STEPS, 0.0 };
    sb_status st = measure_device_row(c, v, threads, stream, o, m, &k, err);
    sb_phase(&k, SB_STEPS);
    sb_trace_pop();
    sb_trace_pop();
    return st;
}
