/* session.c - a variant's session on a case (measure.h): prepared,
 * uploaded, run and checked, sample by sample; and the one-off runs (the
 * reference's, a check alone).  What a row measures is built on these
 * (measure.c, rounds.c). */
#include "measure/measure.h"

#include "measure/protocol.h"
#include "variants/agreement.h"
#include "variants/outputs.h"

#include "segbench/clock.h"
#include "segbench/trace.h"

#include <string.h>

const sb_image *sb_case_input(const sb_case *c, const sb_variant *v)
{
    return (v->flags & SB_COLOUR_IN) && c->colour ? c->colour : c->input;
}

void sb_case_luma(const sb_image *colour, sb_image *grey)
{
    for (int y = 0; y < colour->height; y++) {
        const uint8_t *s = sb_image_row(colour, y);
        uint8_t *d = sb_image_row(grey, y);
        for (int x = 0; x < colour->width; x++)
            d[x] = sb_luma_u8(s[3 * x], s[3 * x + 1], s[3 * x + 2]);
    }
}

sb_status sb_session_open(sb_session *s, const sb_case *c, const sb_variant *v, int threads, void *stream,
                          int poison, sb_error *err)
{
    memset(s, 0, sizeof *s);
    s->c = c;
    s->v = v;
    s->exec.threads = threads;
    s->exec.stream = stream;
    s->exec.poison = poison;
    s->exec.who = v->who;
    sb_status st = sb_output_alloc_for(c->algo, v->flags, &s->out, c->input, c->params, err);
    if (st)
        return st;
    if (poison)
        sb_output_poison(s->out);
    if (sb_is_device(v) && (st = sb_device_timer_create(&s->timer, err))) {
        sb_session_close(s);
        return st;
    }
    double t0 = sb_clock_ms();
    st = v->ops->prepare(&s->state, sb_case_input(c, v), c->params, s->out, &s->exec, err);
    s->prepare_ms = sb_clock_ms() - t0;
    if (!st && v->ops->upload)
        st = v->ops->upload(s->state, err);
    if (st) {
        sb_session_close(s);
        return st;
    }
    return SB_OK;
}

sb_status sb_session_frame(sb_session *s, double *ms, sb_error *err)
{
    const sb_variant_ops *ops = s->v->ops;
    double t0 = sb_clock_ms();
    sb_status st = ops->upload ? ops->upload(s->state, err) : SB_OK;
    if (!st)
        st = ops->run(s->state, err);
    if (!st)
        st = ops->fetch(s->state, err);
    *ms = sb_clock_ms() - t0;
    if (st && sb_is_device(s->v)) {
        sb_error ignored;
        sb_device_sync(s->exec.stream, &ignored);
    }
    return st;
}

sb_status sb_session_sample(sb_session *s, int flush_l2, double *ms, sb_error *err)
{
    sb_status st;
    if (!sb_is_device(s->v)) {
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

sb_status sb_session_fetch(sb_session *s, sb_error *err)
{
    double t0 = sb_clock_ms();
    sb_status st = s->v->ops->fetch(s->state, err);
    s->fetch_ms = sb_clock_ms() - t0;
    return st;
}

sb_status sb_session_check(sb_session *s, sb_agreement *ag, sb_error *err)
{
    sb_status st = sb_session_fetch(s, err);
    if (st)
        return st;
    sb_output_check(s->c->algo, s->c->input, s->c->params, s->c->reference, s->out, s->v->flags, ag);
    return SB_OK;
}

void sb_session_close(sb_session *s)
{
    if (s->state)
        s->v->ops->release(s->state);
    if (s->timer)
        sb_device_timer_destroy(s->timer);
    if (s->out)
        sb_output_free(s->out);
    memset(s, 0, sizeof *s);
}

sb_status sb_run_once(const sb_case *c, const sb_variant *v, int threads, void *stream, void *out, int poison,
                      sb_run_times *t, sb_error *err)
{
    sb_exec exec = { threads, stream, poison, v->who };
    void *state = NULL;
    double t0 = sb_clock_ms();
    sb_status st = v->ops->prepare(&state, sb_case_input(c, v), c->params, out, &exec, err);
    double t1 = sb_clock_ms();
    if (!st && v->ops->upload)
        st = v->ops->upload(state, err);
    double t2 = sb_clock_ms(), c2 = sb_thread_cpu_ms();
    if (!st)
        st = v->ops->run(state, err);
    double t3 = sb_clock_ms(), c3 = sb_thread_cpu_ms();
    if (!st)
        st = v->ops->fetch(state, err);
    if (t) {
        t->setup_ms = t1 - t0;
        t->frame_ms = sb_clock_ms() - t1;
        t->began_ms = t1;
        t->run_ms = t3 - t2;
        t->run_cpu_ms = c3 - c2;
    }
    if (st && state && sb_is_device(v)) {
        sb_error ignored;
        sb_device_sync(stream, &ignored);
    }
    if (state)
        v->ops->release(state);
    return st;
}

sb_status sb_check_only(const sb_case *c, const sb_variant *v, int threads, void *stream, sb_agreement *ag,
                        sb_error *err)
{
    sb_session s;
    sb_trace_push("%s/%s/%s/%s check", c->algo->name, v->name, c->algo->stages[c->stage],
                  c->image ? c->image : "image");
    sb_status st = sb_session_open(&s, c, v, threads, stream, 1, err);
    if (!st) {
        double ms;
        st = sb_session_sample(&s, 0, &ms, err);
        if (!st)
            st = sb_session_check(&s, ag, err);
        sb_session_close(&s);
    }
    sb_trace_pop();
    return st;
}
