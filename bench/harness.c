/* harness.c - the measurement protocol described in harness.h. */
#include "harness.h"

#include "segbench/clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sb_timing_defaults(sb_timing_opts *o)
{
    o->warmup_min = 1;      /* with the check run before it: a 2-second row needs no more */
    o->warmup_ms = 20.0;
    o->min_reps = 10;
    o->max_reps = 2000;
    o->budget_ms = 1000.0;
    o->target_rse = 0.005;
    o->flush_l2 = 1;
}

static int is_device(const sb_variant *v) { return (v->flags & SB_DEVICE) != 0; }

sb_status sb_session_open(sb_session *s, const sb_case *c, const sb_variant *v, int threads, void *stream,
                          int poison, sb_error *err)
{
    memset(s, 0, sizeof *s);
    s->c = c;
    s->v = v;
    s->exec.threads = threads;
    s->exec.stream = stream;
    s->exec.poison = poison;
    sb_status st = c->algo->output_alloc(&s->out, c->input, c->params, err);
    if (st)
        return st;
    if (poison)
        c->algo->output_poison(s->out);
    if (is_device(v) && (st = sb_device_timer_create(&s->timer, err))) {
        sb_session_close(s);
        return st;
    }
    double t0 = sb_clock_ms();
    st = v->ops->prepare(&s->state, c->input, c->params, s->out, &s->exec, err);
    s->prepare_ms = sb_clock_ms() - t0;
    if (st) {
        s->state = NULL;
        sb_session_close(s);
        return st;
    }
    return SB_OK;
}

sb_status sb_session_sample(sb_session *s, int flush_l2, double *ms, sb_error *err)
{
    sb_status st;
    if (!is_device(s->v)) {
        double t0 = sb_clock_ms();
        st = s->v->ops->run(s->state, err);
        *ms = sb_clock_ms() - t0;
        return st;
    }
    if (flush_l2 && (st = sb_device_flush_l2(s->exec.stream, err)))
        return st;
    if ((st = sb_device_timer_begin(s->timer, s->exec.stream, err)))
        return st;
    st = s->v->ops->run(s->state, err);
    if (st) {
        sb_error ignored;
        sb_device_sync(s->exec.stream, &ignored);
        return st;
    }
    return sb_device_timer_end(s->timer, s->exec.stream, ms, err);
}

sb_status sb_session_check(sb_session *s, sb_agreement *ag, sb_error *err)
{
    double t0 = sb_clock_ms();
    sb_status st = s->v->ops->fetch(s->state, err);
    s->fetch_ms = sb_clock_ms() - t0;
    if (st)
        return st;
    s->c->algo->check(s->c->input, s->c->params, s->c->reference, s->out, s->v->flags, ag);
    return SB_OK;
}

void sb_session_close(sb_session *s)
{
    if (s->state)
        s->v->ops->release(s->state);
    if (s->timer)
        sb_device_timer_destroy(s->timer);
    if (s->out)
        s->c->algo->output_free(s->out);
    memset(s, 0, sizeof *s);
}

sb_status sb_run_once(const sb_case *c, const sb_variant *v, int threads, void *stream, void *out, int poison,
                      double *ms, double *run_ms, sb_error *err)
{
    sb_exec exec = { threads, stream, poison };
    void *state = NULL;
    double t0 = sb_clock_ms();
    sb_status st = v->ops->prepare(&state, c->input, c->params, out, &exec, err);
    double t1 = sb_clock_ms();
    if (!st)
        st = v->ops->run(state, err);
    if (run_ms)
        *run_ms = sb_clock_ms() - t1;
    if (!st)
        st = v->ops->fetch(state, err);
    if (ms)
        *ms = sb_clock_ms() - t0;
    if (state)
        v->ops->release(state);
    return st;
}

sb_status sb_check_only(const sb_case *c, const sb_variant *v, int threads, void *stream, sb_agreement *ag,
                        sb_error *err)
{
    sb_session s;
    sb_status st = sb_session_open(&s, c, v, threads, stream, 1, err);
    if (st)
        return st;
    double ms;
    st = sb_session_sample(&s, 0, &ms, err);
    if (!st)
        st = sb_session_check(&s, ag, err);
    sb_session_close(&s);
    return st;
}

/* Has the repetition loop gathered enough? */
static int enough_samples(const double *ms, int n, double started, const sb_timing_opts *o, double budget)
{
    if (n >= o->max_reps)
        return 1;
    int few = o->min_reps < 3 ? o->min_reps : 3;
    if (n < o->min_reps)   /* rows too slow for min_reps in the budget settle for 3 */
        return n >= few && sb_clock_ms() - started >= budget;
    if (sb_clock_ms() - started >= budget)
        return 1;
    if (n % 5)
        return 0;                      /* re-summarise every few samples */
    sb_summary s;
    sb_summarize(ms, n, &s);
    return sb_median_rel_se(&s) < o->target_rse;
}

sb_status sb_measure(const sb_case *c, const sb_variant *v, int threads, void *stream,
                     const sb_timing_opts *o, sb_measurement *m, sb_error *err)
{
    memset(m, 0, sizeof *m);
    m->kernel_ms = calloc((size_t)o->max_reps, sizeof *m->kernel_ms);
    m->e2e_ms = calloc((size_t)o->max_reps, sizeof *m->e2e_ms);
    if (!m->kernel_ms || !m->e2e_ms) {
        sb_measurement_free(m);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory for timing samples");
    }

    /* the reference at one thread, slow: the run that made the reference is its sample */
    if (v == c->reference_variant && threads == 1 && c->ref_run_ms >= o->budget_ms) {
        m->agreement.ok = 1;
        snprintf(m->agreement.verdict, sizeof m->agreement.verdict, "reference");
        snprintf(m->agreement.metric, sizeof m->agreement.metric,
                 "the reference itself: its one run defines the contract (slow row, 1 sample)");
        m->kernel_ms[0] = c->ref_run_ms;
        m->e2e_ms[0] = c->ref_e2e_ms;
        sb_summarize(m->kernel_ms, 1, &m->kernel);
        sb_summarize(m->e2e_ms, 1, &m->e2e);
        return SB_OK;
    }

    /* 1. check before anything is timed */
    sb_session s;
    sb_status st = sb_session_open(&s, c, v, threads, stream, 1, err);
    if (st)
        return st;
    double ms;
    if ((st = sb_session_sample(&s, 0, &ms, err)) || (st = sb_session_check(&s, &m->agreement, err)))
        goto done;

    /* a slow row: the check run is its one sample */
    if (ms >= o->budget_ms) {
        m->kernel_ms[0] = ms;
        sb_summarize(m->kernel_ms, 1, &m->kernel);
        if (!is_device(v))
            m->e2e_ms[0] = s.prepare_ms + ms + s.fetch_ms;
        else if ((st = sb_run_once(c, v, threads, stream, s.out, 0, &m->e2e_ms[0], NULL, err)))
            goto done;
        sb_summarize(m->e2e_ms, 1, &m->e2e);
        goto done;
    }

    /* 2. warm-up */
    double t0 = sb_clock_ms();
    for (int i = 0; i < o->warmup_min || sb_clock_ms() - t0 < o->warmup_ms; i++) {
        if ((st = sb_session_sample(&s, o->flush_l2, &ms, err)))
            goto done;
        if (i > 1000)
            break;
    }

    /* 3. kernel time */
    int n = 0;
    t0 = sb_clock_ms();
    do {
        if ((st = sb_session_sample(&s, o->flush_l2, &m->kernel_ms[n], err)))
            goto done;
        n++;
    } while (!enough_samples(m->kernel_ms, n, t0, o, o->budget_ms));
    sb_summarize(m->kernel_ms, n, &m->kernel);

    /* 4. the last timed run's output must still agree */
    sb_agreement again;
    if ((st = sb_session_check(&s, &again, err)))
        goto done;
    if (m->agreement.ok && !again.ok) {
        m->agreement = again;
        strncat(m->agreement.metric, " (after repeated runs)",
                sizeof m->agreement.metric - strlen(m->agreement.metric) - 1);
    }

    /* 5. end to end.  A CPU variant has nothing to transfer: its end to end
     * is each kernel sample plus the session's one prepare and fetch, so
     * it is never below its kernel time (timing separate runs for it let
     * 411 rows of a run of record show e2e < kernel).  A device variant
     * runs whole (allocate, upload, run, download), into the same output. */
    if (!is_device(v)) {
        for (int i = 0; i < m->kernel.n; i++)
            m->e2e_ms[i] = s.prepare_ms + m->kernel_ms[i] + s.fetch_ms;
        sb_summarize(m->e2e_ms, m->kernel.n, &m->e2e);
        goto done;
    }
    n = 0;
    t0 = sb_clock_ms();
    do {
        if ((st = sb_run_once(c, v, threads, stream, s.out, 0, &m->e2e_ms[n], NULL, err)))
            goto done;
        n++;
    } while (!enough_samples(m->e2e_ms, n, t0, o, o->budget_ms / 2));
    sb_summarize(m->e2e_ms, n, &m->e2e);

done:
    sb_session_close(&s);
    return st;
}

void sb_measurement_free(sb_measurement *m)
{
    free(m->kernel_ms);
    free(m->e2e_ms);
    m->kernel_ms = m->e2e_ms = NULL;
}
