/* samples.c - how many samples a row takes and where its time goes
 * (measure.h): the timing defaults, the stopping rule, a row's sample
 * arrays and the host rows' derived times, and the step clock that
 * charges each step of the protocol its wall time. */
#include "measure/measure.h"

#include "measure/protocol.h"
#include "segbench/clock.h"
#include "segbench/trace.h"

#include <stdlib.h>
#include <string.h>

void sb_timing_defaults(sb_timing_opts *o)
{
    memset(o, 0, sizeof *o);   /* every field not set below: off (no probes, no warm GPU) */
    o->warmup_min = 1;      /* with the check run before it: a 2-second row needs no more */
    o->warmup_ms = 20.0;
    o->min_reps = 10;
    o->max_reps = 2000;
    o->budget_ms = 1000.0;
    o->target_rse = 0.005;
    o->flush_l2 = 1;
}


sb_stop sb_enough_samples(const double *ms, int n, double started, const sb_timing_opts *o, double budget, int few)
{
    if (n >= o->max_reps)
        return SB_STOP_MAX;
    if (n < o->min_reps)   /* rows too slow for min_reps in the budget settle for `few` */
        return n >= few && sb_clock_ms() - started >= budget ? SB_STOP_BUDGET : SB_STOP_NONE;
    if (sb_clock_ms() - started >= budget)
        return SB_STOP_BUDGET;
    if (n % 5)
        return SB_STOP_NONE;           /* re-summarise every few samples */
    sb_summary s;
    sb_summarize(ms, n, &s);
    return sb_median_rel_se(&s) < o->target_rse ? SB_STOP_RULE : SB_STOP_NONE;
}

const char *sb_stop_name(sb_stop why)
{
    static const char *const names[] = { "", "noise", "budget", "max_reps", "slow" };
    return why >= SB_STOP_NONE && why <= SB_STOP_SLOW ? names[why] : "";
}

sb_status sb_samples_alloc(sb_measurement *m, int n, sb_error *err)
{
    double **all[] = { &m->kernel_ms, &m->e2e_ms, &m->frame_ms, &m->setup_ms };
    for (int i = 0; i < 4; i++)
        if (!(*all[i] = calloc((size_t)n, sizeof **all[i]))) {
            sb_measurement_free(m);
            return sb_fail(err, SB_ERR_NOMEM, "out of memory for timing samples");
        }
    return SB_OK;
}

void sb_host_row_times(sb_measurement *m, int n, double setup_ms, double fetch_ms)
{
    for (int i = 0; i < n; i++) {
        m->frame_ms[i] = m->kernel_ms[i] + fetch_ms;
        m->e2e_ms[i] = setup_ms + m->frame_ms[i];
    }
    m->setup_ms[0] = setup_ms;
    sb_summarize(m->frame_ms, n, &m->frame);
    sb_summarize(m->e2e_ms, n, &m->e2e);
    sb_summarize(m->setup_ms, 1, &m->setup);
}

const char *const sb_step_names[SB_STEPS] = { "check", "warm-up", "timed", "frames", "cold runs" };

void sb_phase_named(step_clock *k, int step, const char *range)
{
    double now = sb_clock_ms();
    if (k->step < SB_STEPS)
        k->m->step_ms[k->step] += now - k->since;
    k->step = step;
    k->since = now;
    if (step < SB_STEPS) {
        sb_trace_pop();
        sb_trace_push("%s", range);
    }
}

void sb_phase(step_clock *k, int step) { sb_phase_named(k, step, step < SB_STEPS ? sb_step_names[step] : ""); }

void sb_work_note(sb_measurement *m, const void *out)
{
    sb_work w;
    sb_output_work(out, &w);
    if (w.n == 0 || m->works >= SB_ROUNDS_CAP)
        return;
    if (m->works == 0) {
        m->work_lo = m->work_hi = w;
    } else {
        for (int i = 0; i < w.n && i < m->work_lo.n; i++) {
            if (w.value[i] < m->work_lo.value[i])
                m->work_lo.value[i] = w.value[i];
            if (w.value[i] > m->work_hi.value[i])
                m->work_hi.value[i] = w.value[i];
        }
    }
    m->round_work[m->works++] = (double)w.value[0];
}

void sb_measurement_free(sb_measurement *m)
{
    free(m->kernel_ms);
    free(m->e2e_ms);
    free(m->frame_ms);
    free(m->setup_ms);
    m->kernel_ms = m->e2e_ms = m->frame_ms = m->setup_ms = NULL;
}
