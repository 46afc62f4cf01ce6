/* protocol.h - the pieces of the measurement protocol that measure.c (one
 * row, start to end) and rounds.c (host rows in interleaved rounds) share,
 * defined in samples.c.  Private to measure/. */
#ifndef SEGBENCH_PROTOCOL_H
#define SEGBENCH_PROTOCOL_H

#include "measure/measure.h"

static inline int sb_is_device(const sb_variant *v) { return (v->flags & SB_DEVICE) != 0; }

/* Has a repetition loop gathered enough?  ms[0..n) are its samples, taken
 * since `started`: at least min_reps and the median's relative standard
 * error under target_rse (SB_STOP_RULE), or `budget` spent with at least
 * `few` (a row: min(3, min_reps); a round: 1; SB_STOP_BUDGET), or max_reps
 * (SB_STOP_MAX).  SB_STOP_NONE: not yet. */
sb_stop sb_enough_samples(const double *ms, int n, double started, const sb_timing_opts *o, double budget, int few);

/* Room for o->max_reps samples of each kind: kernel, end to end, per
 * frame and setup. */
sb_status sb_samples_alloc(sb_measurement *m, int n, sb_error *err);

/* Each of the n samples of a host row: one frame is the kernel sample and
 * the fetch, end to end adds the one setup (measure.h, step 5). */
void sb_host_row_times(sb_measurement *m, int n, double setup_ms, double fetch_ms);

/* A step of the protocol as a range inside the row's (trace.h), and the
 * step's wall time in m->step_ms: the clock runs from one step to the next
 * (ends with step SB_STEPS). */
typedef struct step_clock {
    sb_measurement *m;
    int step;                  /* the one running, SB_STEPS: none */
    double since;
} step_clock;

void sb_phase_named(step_clock *k, int step, const char *range);
void sb_phase(step_clock *k, int step);

#endif
