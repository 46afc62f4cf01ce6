/* stream_pass.c - the instances of a variant and the passes of frames
 * through them (stream_pass.h), for the stream protocol (stream.c). */
#include "measure/stream_pass.h"

#include "variants/agreement.h"
#include "variants/outputs.h"
#include "measure/protocol.h"

#include "segbench/clock.h"
#include "segbench/device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct worker {
    stream_pass *p;
    stream_instance *in;
} worker;

/* The run of a frame; in turn, after the run enqueued before it (the
 * lock also orders the enqueueing, so turns follow the host's order).
 * Chained (t->chain), in a pass of whole frames (f >= 0): frame f's run
 * is enqueued after frame f - 1's, and a warm frame (frame->start) takes
 * its start from that run.  `skip`: the frame failed before its run; it
 * still takes its turn, so the frames after it are not left waiting.
 * *dropped: the pass stopped (stream_turn_abandon) before this frame's
 * turn came, and it was not run. */
static sb_status instance_run(const sb_variant *v, stream_instance *in, stream_turn *t, int f, const sb_case *frame,
                              int skip, int *dropped, sb_error *err)
{
    if (!t)
        return skip ? SB_OK : v->ops->run(in->s.state, err);
    int device = sb_is_device(v), ordered = t->chain && f >= 0;
    pthread_mutex_lock(&t->lock);
    while (ordered && t->next_frame != f && !t->abandoned)
        pthread_cond_wait(&t->moved, &t->lock);
    if (ordered && t->next_frame != f) {
        pthread_mutex_unlock(&t->lock);
        *dropped = 1;
        return SB_OK;
    }
    sb_status st = SB_OK;
    if (!skip) {
        if (device && t->last)
            st = sb_device_stream_wait(in->stream, t->last, err);
        if (!st && ordered && frame->start && t->last_by)
            st = t->chain(in->s.state, t->last_by->s.state, err);
        if (!st)
            st = v->ops->run(in->s.state, err);
        if (!st && device)
            st = sb_device_event_record(in->ran, in->stream, err);
        if (!st && device)
            t->last = in->ran;
    }
    if (ordered) {
        t->last_by = skip || st ? NULL : in;       /* no chain from a run that did not happen */
        t->next_frame = f + 1;
        pthread_cond_broadcast(&t->moved);
    }
    pthread_mutex_unlock(&t->lock);
    return st;
}

/* A pass stopped (an error, a failed check): the frames still waiting for
 * their turn are dropped -- the check pass deals its frames in advance,
 * and an instance that stops leaves its next frame's turn never taken. */
static void stream_turn_abandon(stream_turn *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    t->abandoned = 1;
    pthread_cond_broadcast(&t->moved);
    pthread_mutex_unlock(&t->lock);
}

/* Hand a frame to an instance: point its input at the frame's pixels
 * (same size, stride and channels: one sequence), or, where its host
 * makes the grey of a colour frame, make it into the instance's own --
 * unless `grey` is 0 (the copies pass: the copy engines alone, the
 * instance's last grey uploaded again).  A warm frame's start record
 * into the instance's, or, `chained`, a cold one: its run takes the start
 * on the device. */
static void frame_in(const sb_variant *v, stream_instance *in, const sb_case *frame, int grey, int chained)
{
    if (in->host_luma && grey) {
        double t0 = sb_clock_ms();
        sb_case_luma(frame->colour, &in->img);
        in->grey_min_ms = fmin(in->grey_min_ms, sb_clock_ms() - t0);
    }
    else if (!in->host_luma)
        in->img.data = sb_case_input(frame, v)->data;
    in->c.reference = frame->reference;
    if (in->start) {                   /* warm: the frame's own start, which its reference began from */
        if (frame->start && !chained)
            memcpy(in->start, frame->start, frame->algo->warm_size);
        else
            frame->algo->warm_from(in->start, NULL);
    }
}

void stream_frame_in(const sb_variant *v, stream_instance *in, const sb_case *frame) { frame_in(v, in, frame, 1, 0); }

/* Frame f of the pass through an instance: the pass's part of it
 * (*dropped: not run, instance_run). */
static sb_status instance_frame(const sb_variant *v, stream_instance *in, int f, const sb_case *frame, stream_turn *t,
                                stream_part part, int *dropped, sb_error *err)
{
    const sb_variant_ops *ops = v->ops;
    sb_status st = SB_OK;
    int whole = part == STREAM_PART_FRAME;
    if (part != STREAM_PART_KERNELS) {
        frame_in(v, in, frame, part != STREAM_PART_COPIES, whole && t && t->chain);
        st = ops->upload ? ops->upload(in->s.state, err) : SB_OK;
    }
    if (part != STREAM_PART_COPIES) {
        sb_status ran = instance_run(v, in, t, whole ? f : -1, frame, st != SB_OK, dropped, err);
        st = st ? st : ran;
        if (*dropped)
            return st;
    }
    if (!st && part == STREAM_PART_KERNELS)
        st = sb_device_sync(in->stream, err);
    if (!st && part != STREAM_PART_KERNELS)
        st = ops->fetch(in->s.state, err);
    if (st && sb_is_device(v)) {
        sb_error ignored;
        sb_device_sync(in->stream, &ignored);
    }
    return st;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    stream_pass *p = w->p;
    stream_instance *in = w->in;
    const sb_variant *v = in->s.v;
    int mine = (int)(in - p->inst);        /* the check pass deals frame f to instance f % k */
    for (int taken = 0;; taken++) {
        if (atomic_load(&p->stop))
            break;
        if (p->deadline_ms > 0 && sb_clock_ms() > p->deadline_ms)
            break;
        int f = p->check ? mine + taken * p->k : atomic_fetch_add(&p->next, 1);
        if (f >= p->total)
            break;
        int d = f % p->n;
        const sb_case *frame = p->frames[d];
        if (p->check)
            sb_output_poison(in->s.out);
        sb_error err = { SB_OK, "" };
        p->submit_ms[f] = sb_clock_ms();
        p->by[f] = (short)mine;
        int dropped = 0;
        sb_status st = instance_frame(v, in, f, frame, p->turn, p->part, &dropped, &err);
        if (dropped)
            break;                 /* the pass stopped before its turn */
        p->done_ms[f] = sb_clock_ms();
        if (p->part == STREAM_PART_FRAME)
            in->last = d;          /* an engine pass leaves its output another frame's, or none */
        sb_agreement ag = { 0 };
        if (!st && p->check)
            sb_output_check(frame->algo, frame->input, frame->params, frame->reference, in->s.out, v->flags, &ag);
        pthread_mutex_lock(&p->lock);
        if (st && !p->st) {
            p->st = st;
            p->err = err;
        }
        if (!st && p->check) {
            p->checked++;
            if (!ag.ok && !p->failed) {
                p->failed = 1;
                p->ag = ag;
                snprintf(p->ag.metric, sizeof p->ag.metric, "frame %d of %d: %.200s", d + 1, p->n, ag.metric);
            } else if (!p->failed) {
                p->ag = ag;
            }
        }
        pthread_mutex_unlock(&p->lock);
        if (st || (p->check && !ag.ok)) {
            atomic_store(&p->stop, 1);
            stream_turn_abandon(p->turn);
        }
    }
    return NULL;
}

/* First submission to last result. */
double stream_pass_wall(const stream_pass *p)
{
    double first = 1e300, last = -1e300;
    for (int f = 0; f < p->total; f++) {
        if (p->done_ms[f] <= 0)
            continue;
        first = fmin(first, p->submit_ms[f]);
        last = fmax(last, p->done_ms[f]);
    }
    return last > first ? last - first : 0;
}

/* Push `total` frames through the k instances, one host thread each.
 * *wall_ms: first submission to last result. */
sb_status stream_run_pass(stream_pass *p, sb_energy_mark *before, sb_energy_mark *after, double *wall_ms, sb_error *err)
{
    p->submit_ms = calloc((size_t)p->total, sizeof *p->submit_ms);
    p->by = calloc((size_t)p->total, sizeof *p->by);
    p->done_ms = calloc((size_t)p->total, sizeof *p->done_ms);
    worker *w = calloc((size_t)p->k, sizeof *w);
    pthread_t *tid = calloc((size_t)p->k, sizeof *tid);
    if (!p->submit_ms || !p->done_ms || !p->by || !w || !tid) {
        free(w);
        free(tid);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory for a stream of %d frames", p->total);
    }
    atomic_init(&p->next, 0);
    atomic_init(&p->stop, 0);
    pthread_mutex_init(&p->lock, NULL);
    p->st = SB_OK;
    p->failed = p->checked = 0;
    if (before)
        sb_energy_mark_now(before);
    if (p->turn) {                             /* chained: the pass's frames from its first */
        p->turn->next_frame = 0;
        p->turn->last_by = NULL;
        p->turn->abandoned = 0;
    }
    p->deadline_ms = p->seconds > 0 ? sb_clock_ms() + p->seconds * 1000.0 : 0;
    int started = 0;
    sb_status st = SB_OK;
    for (int i = 0; i < p->k; i++) {
        w[i].p = p;
        w[i].in = &p->inst[i];
        if (pthread_create(&tid[i], NULL, worker_main, &w[i]) != 0) {
            atomic_store(&p->stop, 1);
            st = sb_fail(err, SB_ERR_NOMEM, "cannot start stream thread %d of %d", i + 1, p->k);
            break;
        }
        started++;
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    if (after)
        sb_energy_mark_now(after);
    pthread_mutex_destroy(&p->lock);
    free(w);
    free(tid);
    if (!st && p->st) {
        st = p->st;
        *err = p->err;
    }
    int pushed = p->check || atomic_load(&p->next) > p->total ? p->total : atomic_load(&p->next);
    p->total = pushed;                         /* a deadline may have stopped it early */
    *wall_ms = stream_pass_wall(p);
    return st;
}

void stream_pass_free(stream_pass *p)
{
    free(p->submit_ms);
    free(p->done_ms);
    free(p->by);
    p->submit_ms = p->done_ms = NULL;
    p->by = NULL;
}

/* A pass's rate as the sum of its instances' own: each one's frames over
 * its first submission to its last result.  Frames over the pass's wall
 * time count the tail where some instances had stopped, which a short
 * pass of slow frames (a host making 3.7 ms greys) makes a tenth of it. */
double stream_pass_rate(const stream_pass *p)
{
    double first[SB_STREAM_MAX_IN_FLIGHT], last[SB_STREAM_MAX_IN_FLIGHT], rate = 0;
    int n[SB_STREAM_MAX_IN_FLIGHT] = { 0 };
    for (int f = 0; f < p->total; f++) {
        int i = p->by[f];
        if (p->done_ms[f] <= 0)
            continue;
        first[i] = n[i] ? fmin(first[i], p->submit_ms[f]) : p->submit_ms[f];
        last[i] = n[i] ? fmax(last[i], p->done_ms[f]) : p->done_ms[f];
        n[i]++;
    }
    for (int i = 0; i < p->k; i++)
        if (n[i] && last[i] > first[i])
            rate += n[i] * 1000.0 / (last[i] - first[i]);
    return rate;
}

int stream_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stream_median(double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof *ms, stream_cmp_double);
    return n ? sb_quantile_sorted(ms, n, 0.5) : 0;
}

void stream_instances_close(stream_instance *inst, int k)
{
    for (int i = 0; i < k; i++) {
        sb_session_close(&inst[i].s);
        sb_device_event_destroy(inst[i].ran);
        sb_device_stream_destroy(inst[i].stream);
        if (inst[i].host_luma)
            sb_host_free(inst[i].img.data);
        free(inst[i].params);
        free(inst[i].start);
    }
    free(inst);
}

/* Warm: the instance's own parameters, pointing at its own start record,
 * which stream_frame_in fills with each frame's before the frame runs. */
static sb_status instance_warm(stream_instance *in, const sb_case *first, sb_error *err)
{
    const sb_algo *a = first->algo;
    if (!a->warm_size)
        return sb_fail(err, SB_ERR_USAGE, "%s: no warm start is defined for it", a->name);
    in->params = malloc(a->params_size);
    in->start = malloc(a->warm_size);
    if (!in->params || !in->start)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    memcpy(in->params, first->params, a->params_size);
    if (first->start)
        memcpy(in->start, first->start, a->warm_size);
    else
        a->warm_from(in->start, NULL);
    a->warm_attach(in->params, in->start);
    in->c.params = in->params;
    return SB_OK;
}

sb_status stream_instances_open(const sb_case *const *frames, int n, const sb_variant *v, const sb_stream_opts *o,
                                stream_instance **out, sb_error *err)
{
    int k = o->in_flight;
    stream_instance *inst = calloc((size_t)k, sizeof *inst);
    if (!inst)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = SB_OK;
    for (int i = 0; i < k && !st; i++) {
        stream_instance *in = &inst[i];
        const sb_case *first = frames[i % n];
        in->c = *first;
        in->img = *sb_case_input(first, v);
        if (v->flags & SB_COLOUR_IN)
            in->c.colour = &in->img;
        else
            in->c.input = &in->img;
        in->last = -1;
        if (o->warm && (st = instance_warm(in, first, err)))
            break;
        in->host_luma = o->colour_frames && !(v->flags & SB_COLOUR_IN);
        in->grey_min_ms = INFINITY;
        if (in->host_luma && !(in->img.data = sb_host_alloc(in->img.stride * (size_t)in->img.height))) {
            in->host_luma = 0;
            st = sb_fail(err, SB_ERR_NOMEM, "out of memory for a %dx%d frame", in->img.width, in->img.height);
            break;
        }
        if (sb_is_device(v) && (st = sb_device_stream_create(&in->stream, err)))
            break;
        if (sb_is_device(v) && o->runs_in_turn && (st = sb_device_event_create(&in->ran, err)))
            break;
        st = sb_session_open(&in->s, &in->c, v, o->threads, in->stream, 1, err);
    }
    if (st) {
        stream_instances_close(inst, k);
        return st;
    }
    *out = inst;
    return SB_OK;
}
