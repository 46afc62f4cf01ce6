/* frames_ahead.c - the stream frames' references that time no row, made
 * beside the GPU rows.
 *
 * A scene whose serial-reference row --host-limit leaves out still needs
 * its frames' references, for the GPU rows to check against: seconds a
 * frame at 1920x1080 and 3840x2160 (mean-shift, GrabCut, SLIC), made once
 * each and timing nothing.  Made where they are needed, the stream rows
 * wait for them; made here, on a thread of their own while the GPU rows
 * of the algorithm's last batch are measured (case.c), they are ready when
 * the streams start.  The thread makes the scenes one after another, each
 * scene's frames side by side on up to a quarter of the cores
 * (cases/frames.h), so that with the batch's openers (ahead.c) at most
 * half the cores are busy beside the GPU row's own thread; it is joined
 * before the batch's host rows, which run with nothing beside them. */
#include "run/state.h"

#include "machine/host_noise.h"
#include "measure/protocol.h"

#include "segbench/clock.h"

#include <stdlib.h>
#include <string.h>

typedef struct scene_ahead {
    const sb_sequence *seq;
    void *params;                 /* the stage's parameters for the scene's rectangle */
    sb_frames fr;                 /* made, when st == SB_OK */
    sb_status st;
    sb_error err;
    int taken;
} scene_ahead;

struct frames_ahead {
    const sb_algo *algo;
    int stage, jobs, n;
    scene_ahead scene[RUN_AHEAD_SCENES_MAX];
    pthread_t thread;
    int running;                  /* started, not yet joined */
    double busy_ms;
};

static void *ahead_main(void *arg)
{
    struct frames_ahead *a = arg;
    sb_host_quiet_exempt_self(1);
    double t0 = sb_clock_ms();
    for (int i = 0; i < a->n; i++) {
        scene_ahead *s = &a->scene[i];
        s->st = sb_frames_open(&s->fr, a->algo, a->stage, s->params, s->seq, a->jobs, &s->err);
    }
    a->busy_ms = sb_clock_ms() - t0;
    sb_host_quiet_exempt_self(0);
    return NULL;
}

void run_frames_ahead_begin(bench_run *r, const sb_algo *algo, const sb_sequence *const *scenes, int n)
{
    if (r->frames_ahead || r->o->stream == SB_STREAM_OFF)
        return;
    struct frames_ahead *a = calloc(1, sizeof *a);
    if (!a)
        return;                   /* then run_streams makes them, as without */
    a->algo = algo;
    a->stage = algo->stream_stage;
    a->jobs = sb_usable_cores() / SB_AHEAD_CORES_EACH;
    for (int i = 0; i < n && a->n < RUN_AHEAD_SCENES_MAX; i++) {
        const sb_sequence *seq = scenes[i];
        scene_ahead *s = &a->scene[a->n];
        int usable = 1;
        char why[256];
        sb_error err;
        if (sb_case_params(algo, a->stage, seq->rect, &s->params, &usable, why, sizeof why, &err) || !usable) {
            free(s->params);      /* run_streams says why, at its turn */
            s->params = NULL;
            continue;
        }
        s->seq = seq;
        a->n++;
    }
    if (a->jobs < 1)
        a->jobs = 1;
    r->frames_ahead = a;
    a->running = a->n > 0 && pthread_create(&a->thread, NULL, ahead_main, a) == 0;
    if (!a->running)
        a->n = 0;                 /* none made here: run_streams makes them */
}

void run_frames_ahead_join(bench_run *r)
{
    struct frames_ahead *a = r->frames_ahead;
    if (!a || !a->running)
        return;
    double t0 = sb_clock_ms();
    pthread_join(a->thread, NULL);
    a->running = 0;
    double waited = sb_clock_ms() - t0;
    run_spend(r, RUN_SPENT_REFERENCES, waited);
    if (a->busy_ms > waited)
        run_spend(r, RUN_SPENT_REFERENCES_BESIDE, a->busy_ms - waited);
}

int run_frames_ahead_take(bench_run *r, const sb_sequence *seq, sb_frames *fr, sb_status *st, sb_error *err)
{
    struct frames_ahead *a = r->frames_ahead;
    run_frames_ahead_join(r);
    for (int i = 0; a && i < a->n; i++) {
        scene_ahead *s = &a->scene[i];
        if (s->seq != seq || s->taken)
            continue;
        s->taken = 1;
        *st = s->st;
        if (s->st)
            *err = s->err;
        else
            *fr = s->fr;
        return 1;
    }
    return 0;
}

void run_frames_ahead_drop(bench_run *r)
{
    struct frames_ahead *a = r->frames_ahead;
    if (!a)
        return;
    run_frames_ahead_join(r);
    for (int i = 0; i < RUN_AHEAD_SCENES_MAX; i++) {
        if (i < a->n && !a->scene[i].taken && !a->scene[i].st)
            sb_frames_close(&a->scene[i].fr);
        free(a->scene[i].params);
    }
    free(a);
    r->frames_ahead = NULL;
}
