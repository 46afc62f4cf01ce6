/* stream.c - frames through one variant with K in flight (stream.h). */
#include "measure/stream.h"

#include "variants/agreement.h"
#include "variants/outputs.h"
#include "measure/protocol.h"
#include "machine/env.h"

#include "segbench/clock.h"
#include "segbench/device.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A check pass whose frames took this long each is also the timed pass. */
#define SLOW_FRAME_MS 100.0
/* The one-frame parts: at least this many samples of each on each
 * distinct frame, and this much time over all of them. */
enum { BOUND_MIN_SAMPLES = 3, BOUND_SAMPLES = 256 };
#define BOUND_BUDGET_MS 200.0
/* Each engine of the bound (step 3) takes frames for this long in all,
 * each of its passes at least ENGINE_FRAMES of one frame's time alone. */
#define ENGINE_PASS_MS 100.0
#define ENGINE_FRAMES 8.0

void sb_stream_defaults(sb_stream_opts *o)
{
    memset(o, 0, sizeof *o);
    o->in_flight = 2;
    o->threads = 1;
    o->min_seconds = SB_ENERGY_MIN_S;
    o->max_frames = 1000000;
    o->warmup_ms = 200.0;
}

/* One instance of the variant: its own session (state, output, stream),
 * and the case it runs, whose input is pointed at each frame in turn. */
typedef struct instance {
    sb_case c;
    sb_image img;              /* the frame in flight: a frame's header, its pixels */
    int host_luma;             /* colour frames, a grey variant: img holds its own pinned
                                  pixels, the host's grey of each frame */
    sb_session s;
    void *stream;
    int last;                  /* the distinct frame it ran last, -1: none */
    void *ran;                 /* runs in turn: recorded after each of its runs */
    void *params;              /* warm: its own copy of the parameters, pointing at `start` */
    void *start;               /* warm: the start record of the frame it runs (frame_in copies it) */
} instance;

/* Runs in turn (sb_stream_opts.runs_in_turn): each frame's run starts on
 * the GPU once the run enqueued before it has ended. */
typedef struct turn {
    pthread_mutex_t lock;
    void *last;                /* the event after the last run enqueued; NULL: none yet */
} turn;

/* What a pass does with each frame: all of it, or one engine's share
 * alone (the bound, step 3). */
typedef enum pass_part {
    PART_FRAME,                /* upload, run, fetch */
    PART_COPIES,               /* the host's part, upload and fetch: the copy engines both ways at once */
    PART_KERNELS               /* the run alone, on the frame the instance holds */
} pass_part;

/* One pass of frames through the instances. */
typedef struct pass {
    instance *inst;
    int k;
    pass_part part;
    const sb_case *const *frames;
    int n;
    int total;                 /* frames to push (at most) */
    double seconds;            /* > 0: take no frame after this long */
    double deadline_ms;
    int check;                 /* poison, then compare each output with its reference */
    turn *turn;                /* runs in turn, or NULL: runs overlap freely */
    atomic_int next;           /* the next frame to hand out */
    atomic_int stop;           /* an error or a failed check: hand out no more */
    double *submit_ms, *done_ms;   /* per frame pushed */
    short *by;                 /* per frame pushed: the instance that ran it */
    pthread_mutex_t lock;      /* the fields below */
    sb_status st;
    sb_error err;
    int failed, checked;
    sb_agreement ag;
} pass;

typedef struct worker {
    pass *p;
    instance *in;
} worker;

/* The run of a frame; in turn, after the run enqueued before it (the
 * lock also orders the enqueueing, so turns follow the host's order). */
static sb_status instance_run(const sb_variant *v, instance *in, turn *t, sb_error *err)
{
    if (!t)
        return v->ops->run(in->s.state, err);
    pthread_mutex_lock(&t->lock);
    sb_status st = t->last ? sb_device_stream_wait(in->stream, t->last, err) : SB_OK;
    if (!st)
        st = v->ops->run(in->s.state, err);
    if (!st)
        st = sb_device_event_record(in->ran, in->stream, err);
    if (!st)
        t->last = in->ran;
    pthread_mutex_unlock(&t->lock);
    return st;
}

/* Hand a frame to an instance: point its input at the frame's pixels
 * (same size, stride and channels: one sequence), or, where its host
 * makes the grey of a colour frame, make it into the instance's own. */
static void frame_in(const sb_variant *v, instance *in, const sb_case *frame)
{
    if (in->host_luma)
        sb_case_luma(frame->colour, &in->img);
    else
        in->img.data = sb_case_input(frame, v)->data;
    in->c.reference = frame->reference;
    if (in->start) {                   /* warm: the frame's own start, which its reference began from */
        if (frame->start)
            memcpy(in->start, frame->start, frame->algo->warm_size);
        else
            frame->algo->warm_from(in->start, NULL);
    }
}

static sb_status instance_frame(const sb_variant *v, instance *in, const sb_case *frame, turn *t, pass_part part,
                                sb_error *err)
{
    const sb_variant_ops *ops = v->ops;
    sb_status st = SB_OK;
    if (part != PART_KERNELS) {
        frame_in(v, in, frame);
        st = ops->upload ? ops->upload(in->s.state, err) : SB_OK;
    }
    if (!st && part != PART_COPIES)
        st = instance_run(v, in, t, err);
    if (!st && part == PART_KERNELS)
        st = sb_device_sync(in->stream, err);
    if (!st && part != PART_KERNELS)
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
    pass *p = w->p;
    instance *in = w->in;
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
        sb_status st = instance_frame(v, in, frame, p->turn, p->part, &err);
        p->done_ms[f] = sb_clock_ms();
        if (p->part == PART_FRAME)
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
        if (st || (p->check && !ag.ok))
            atomic_store(&p->stop, 1);
    }
    return NULL;
}

/* First submission to last result. */
static double pass_wall(const pass *p)
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
static sb_status run_pass(pass *p, sb_energy_mark *before, sb_energy_mark *after, double *wall_ms, sb_error *err)
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
    *wall_ms = pass_wall(p);
    return st;
}

static void pass_free(pass *p)
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
static double pass_rate(const pass *p)
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    return n ? sb_quantile_sorted(ms, n, 0.5) : 0;
}

/* The host's part of a frame alone: making its grey (the median of
 * BOUND_MIN_SAMPLES), 0 where the host makes nothing.  The frame is then
 * in the instance's input. */
static double host_part(const sb_variant *v, instance *in, const sb_case *frame)
{
    double ms[BOUND_MIN_SAMPLES];
    int n = in->host_luma ? BOUND_MIN_SAMPLES : 1;
    for (int i = 0; i < n; i++) {
        double t0 = sb_clock_ms();
        frame_in(v, in, frame);
        ms[i] = sb_clock_ms() - t0;
    }
    return in->host_luma ? median_of(ms, n) : 0;
}

/* One frame's parts alone on one instance (medians): the host's, then a
 * device variant's upload, run and fetch each timed apart, or a host
 * variant's whole frame in *run.  At least BOUND_MIN_SAMPLES of each, for
 * about budget_ms. */
static sb_status frame_parts(const sb_variant *v, instance *in, const sb_case *frame, const sb_stream_opts *o,
                             double budget_ms, double *host_ms, double *up_ms, double *run_ms, double *down_ms,
                             int *ran, sb_error *err)
{
    double up[BOUND_SAMPLES], run[BOUND_SAMPLES], down[BOUND_SAMPLES];
    int n = 0;
    sb_status st = SB_OK;
    *host_ms = host_part(v, in, frame);
    double started = sb_clock_ms();
    if (!sb_is_device(v)) {
        /* the serial reference's own run on this frame is this row's, where it is the same code:
           its CPU time, which the references' pass, K at once, did not lengthen by sharing a core
           (its wall time did: the bound it gave was beaten) */
        int reused = v == frame->reference_variant && o->threads == 1 && frame->ref_times.run_ms >= SLOW_FRAME_MS &&
                     frame->ref_times.run_cpu_ms > 0;
        if (reused)
            run[n++] = frame->ref_times.run_cpu_ms;
        while (!st && n < BOUND_SAMPLES &&
               (n == 0 || (run[0] < SLOW_FRAME_MS && (n < BOUND_MIN_SAMPLES || sb_clock_ms() - started < budget_ms)))) {
            double t0 = sb_clock_ms();
            st = v->ops->run(in->s.state, err);
            if (!st)
                st = v->ops->fetch(in->s.state, err);
            run[n++] = sb_clock_ms() - t0;
        }
        *up_ms = *down_ms = 0;
        *run_ms = st ? 0 : median_of(run, n);
        *ran = n > reused;
        return st;
    }
    while (!st && n < BOUND_SAMPLES && (n < BOUND_MIN_SAMPLES || sb_clock_ms() - started < budget_ms)) {
        double t0 = sb_clock_ms();
        st = v->ops->upload(in->s.state, err);
        if (!st)
            st = sb_device_sync(in->stream, err);
        up[n] = sb_clock_ms() - t0;
        if (!st)
            st = sb_session_sample(&in->s, 0, &run[n], err);
        t0 = sb_clock_ms();
        if (!st)
            st = v->ops->fetch(in->s.state, err);
        down[n] = sb_clock_ms() - t0;
        n += !st;
    }
    if (st) {
        sb_error ignored;
        sb_device_sync(in->stream, &ignored);
        return st;
    }
    *up_ms = median_of(up, n);
    *run_ms = median_of(run, n);
    *down_ms = median_of(down, n);
    *ran = 1;
    return SB_OK;
}

/* A host variant's bound from one frame's time alone: K frames side by
 * side, none faster than alone, and a serial row's at most one a core. */
static void host_bound(const sb_stream_opts *o, sb_stream_result *r)
{
    double frame_ms = r->host_ms + r->run_ms;
    int side = o->in_flight, cores = sb_usable_cores();
    if (o->threads == 1 && cores > 0 && cores < side)
        side = cores;
    r->bound_fps = frame_ms > 0 ? side * 1000.0 / frame_ms : 0;
    snprintf(r->bound_by, sizeof r->bound_by, "cpus");
}

/* One frame's parts alone on one instance, averaged over the distinct
 * frames (a frame's work may depend on its content: GrabCut's max-flow
 * rounds, k-means' passes); or another K's (parts_of). */
static sb_status one_frame_parts(const sb_variant *v, instance *in, const sb_case *const *frames, int nframes,
                                 const sb_stream_opts *o, sb_stream_result *r, sb_error *err)
{
    if (o->parts_of) {                 /* measured with another K: the parts are the same */
        r->host_ms = o->parts_of->host_ms;
        r->upload_ms = o->parts_of->upload_ms;
        r->run_ms = o->parts_of->run_ms;
        r->fetch_ms = o->parts_of->fetch_ms;
        return SB_OK;
    }
    for (int d = 0; d < nframes; d++) {
        double host, up, run, down;
        int ran;
        sb_status st =
            frame_parts(v, in, frames[d], o, BOUND_BUDGET_MS / nframes, &host, &up, &run, &down, &ran, err);
        if (st)
            return st;
        r->host_ms += host / nframes;
        r->upload_ms += up / nframes;
        r->run_ms += run / nframes;
        r->fetch_ms += down / nframes;
        if (ran)
            in->last = d;          /* its output now holds this frame's (step 5 checks it) */
    }
    return SB_OK;
}

/* One engine's rate alone (pass_rate): frames for pass_ms through the
 * first j instances and their threads, doing only that engine's share of
 * each, after as long again untimed (the host's clocks ramp up after the
 * one-frame parts: a copies pass timed cold read 25 % under the stream it
 * bounds). */
static sb_status engine_pass(pass *p, pass_part part, int j, int max_frames, double pass_ms, double *fps,
                             sb_error *err)
{
    int k = p->k;
    p->k = j;
    p->part = part;
    p->check = 0;
    sb_status st = SB_OK;
    double wall = 0;
    for (int timed = 0; timed < 2 && !st; timed++) {
        p->total = max_frames;
        p->seconds = pass_ms / 1000.0;
        st = run_pass(p, NULL, NULL, &wall, err);
        *fps = st ? 0 : pass_rate(p);
        pass_free(p);
    }
    p->k = k;
    p->part = PART_FRAME;
    return st;
}

/* An engine's bound with K in flight: its best rate alone with 1..K in
 * flight.  A stream has at most K frames at that engine at once, and
 * fewer can be faster (kernels that fill the GPU fall into lock-step two
 * at a time: k-means at 4K streamed 871 frames/s with 2 in flight, its
 * kernels alone 587 with 2 and 1,310 with 1). */
static sb_status engine_fps(pass *p, pass_part part, int max_frames, double pass_ms, double frame_ms, double *fps,
                            sb_error *err)
{
    *fps = 0;
    sb_status st = SB_OK;
    for (int j = 1; j <= p->k && !st; j++) {
        double rate = 0;           /* at least ENGINE_FRAMES of one frame's time alone each */
        st = engine_pass(p, part, j, max_frames, fmax(pass_ms / p->k, ENGINE_FRAMES * frame_ms), &rate, err);
        *fps = fmax(*fps, rate);
    }
    return st;
}

/* The kernels alone, on each distinct frame in turn (a frame's work may
 * depend on its content: k-means' passes, and a warm clip's first frames
 * are cold): every instance holds frame d, uploaded outside the timing,
 * and runs it for its share of ENGINE_PASS_MS.  The clip's rate is its
 * frames over the sum of their times. */
static sb_status kernels_fps(const sb_variant *v, pass *p, const sb_case *const *frames, int n, int max_frames,
                             double run_ms, double *fps, sb_error *err)
{
    double ms = 0;
    sb_status st = SB_OK;
    *fps = 0;
    for (int d = 0; d < n && !st; d++) {
        for (int i = 0; i < p->k && !st; i++) {
            instance *in = &p->inst[i];
            frame_in(v, in, frames[d]);
            st = v->ops->upload ? v->ops->upload(in->s.state, err) : SB_OK;
            if (!st)
                st = sb_device_sync(in->stream, err);
        }
        double rate = 0;
        if (!st)
            st = engine_fps(p, PART_KERNELS, max_frames, ENGINE_PASS_MS / n, run_ms, &rate, err);
        if (!st && rate <= 0)
            return SB_OK;          /* no time to be had: no bound (*fps stays 0) */
        ms += 1000.0 / rate / n;
    }
    *fps = !st && ms > 0 ? 1000.0 / ms : 0;
    return st;
}

/* Protocol step 3: the bound.  A device variant's is its slowest engine's
 * rate with K in flight: a stream does at least each engine's share of
 * every frame, with no more in flight, so it cannot beat that engine
 * alone. */
static sb_status measure_bound(const sb_variant *v, pass *p, const sb_case *const *frames, int nframes,
                               const sb_stream_opts *o, sb_stream_result *r, sb_error *err)
{
    sb_status st = one_frame_parts(v, &p->inst[0], frames, nframes, o, r, err);
    if (st || !sb_is_device(v)) {
        if (!st)
            host_bound(o, r);
        return st;
    }
    if ((st = engine_fps(p, PART_COPIES, o->max_frames, ENGINE_PASS_MS, r->host_ms + r->upload_ms + r->fetch_ms,
                         &r->copies_fps, err)) ||
        (st = kernels_fps(v, p, frames, nframes, o->max_frames, r->run_ms, &r->kernels_fps, err)))
        return st;
    if (r->copies_fps <= 0 || r->kernels_fps <= 0)
        return SB_OK;              /* an engine too quick to time: no bound */
    int copies = r->copies_fps <= r->kernels_fps;
    r->bound_fps = copies ? r->copies_fps : r->kernels_fps;
    snprintf(r->bound_by, sizeof r->bound_by, "%s", copies ? "copies" : "kernels");
    if (r->host_ms > 0 && o->in_flight * 1000.0 / r->host_ms < r->bound_fps) {   /* K threads making greys */
        r->bound_fps = o->in_flight * 1000.0 / r->host_ms;
        snprintf(r->bound_by, sizeof r->bound_by, "host");
    }
    return SB_OK;
}

/* Latency percentiles and rate of a timed pass. */
static sb_status pass_summarise(const pass *p, double wall_ms, sb_stream_result *r, sb_error *err)
{
    double *lat = malloc((size_t)p->total * sizeof *lat);
    if (!lat)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    for (int f = 0; f < p->total; f++)
        lat[f] = p->done_ms[f] - p->submit_ms[f];
    qsort(lat, (size_t)p->total, sizeof *lat, cmp_double);
    r->p50_ms = sb_quantile_sorted(lat, p->total, 0.50);
    r->p99_ms = sb_quantile_sorted(lat, p->total, 0.99);
    r->max_ms = lat[p->total - 1];
    free(lat);
    r->frames = p->total;
    r->seconds = wall_ms / 1000.0;
    r->fps = wall_ms > 0 ? p->total * 1000.0 / wall_ms : 0;
    /* the pass in thirds, each the same whole number of turns through the
     * sequence (frames are handed out in order), so a frame whose work
     * depends on its content weighs alike in each: a third's rate, its
     * frames over the time from the last result of the third before to its
     * own last, against the three thirds' */
    r->spread = 0;
    int m = p->n > 0 ? p->total / (3 * p->n) * p->n : 0;
    double start = 1e300, end[3] = { 0, 0, 0 };
    for (int f = 0; f < p->total; f++)
        start = fmin(start, p->submit_ms[f]);
    for (int f = 0; m > 0 && f < 3 * m; f++)
        end[f / m] = fmax(end[f / m], p->done_ms[f]);
    double whole = m > 0 ? 3.0 * m / (end[2] - start) : 0;
    for (int t = 0; t < 3 && m > 0 && whole > 0; t++) {
        double from = t == 0 ? start : end[t - 1];
        if (end[t] > from)
            r->spread = fmax(r->spread, fabs(m / (end[t] - from) / whole - 1.0));
    }
    r->few = p->total < SB_STREAM_FEW * p->k;
    return SB_OK;
}

static void instances_close(instance *inst, int k)
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
 * which frame_in fills with each frame's before the frame runs. */
static sb_status instance_warm(instance *in, const sb_case *first, sb_error *err)
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

static sb_status instances_open(const sb_case *const *frames, int n, const sb_variant *v, const sb_stream_opts *o,
                                instance **out, sb_error *err)
{
    int k = o->in_flight;
    instance *inst = calloc((size_t)k, sizeof *inst);
    if (!inst)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = SB_OK;
    for (int i = 0; i < k && !st; i++) {
        instance *in = &inst[i];
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
        instances_close(inst, k);
        return st;
    }
    *out = inst;
    return SB_OK;
}

/* Protocol step 5: each instance's last output against its frame's reference. */
static void check_last(const sb_case *const *frames, instance *inst, int k, const sb_variant *v,
                       sb_stream_result *r)
{
    for (int i = 0; i < k; i++) {
        if (inst[i].last < 0)
            continue;
        const sb_case *frame = frames[inst[i].last];
        sb_agreement ag;
        sb_output_check(frame->algo, frame->input, frame->params, frame->reference, inst[i].s.out, v->flags, &ag);
        r->checked++;
        if (!ag.ok) {
            r->agreement = ag;
            snprintf(r->agreement.metric, sizeof r->agreement.metric, "after the timed frames, frame %d: %.190s",
                     inst[i].last + 1, ag.metric);
            return;
        }
    }
}

/* A slow row's check pass (its frames at least SLOW_FRAME_MS each, and
 * min_seconds in all): it is the row's timed pass too. */
static int slow_pass(double wall_ms, int k, int total, const sb_stream_opts *o)
{
    return total > 0 && wall_ms * k / total >= SLOW_FRAME_MS && wall_ms >= o->min_seconds * 1000.0;
}

/* The serial reference's row, one thread a frame, with the k its frames'
 * references were made with (reference_pass): where that pass was a slow
 * row's, it is this row's check and timed pass. */
static int takes_reference_pass(const sb_case *const *frames, int n, const sb_variant *v, const sb_stream_opts *o)
{
    const sb_reference_pass *rp = o->reference_pass;
    if (!rp || rp->n != n || rp->total < n || rp->k != o->in_flight || v != frames[0]->reference_variant ||
        o->threads != 1 || o->frames || o->colour_frames)
        return 0;
    pass q = { .total = rp->total, .submit_ms = rp->submit_ms, .done_ms = rp->done_ms };
    return slow_pass(pass_wall(&q), rp->k, rp->total, o);
}

/* What a stream cannot run, said (SB_OK: it can): no frame, too many in
 * flight, a variant that takes one at a time, frames of two sizes or two
 * layouts, colour frames for an algorithm that takes its frames as they
 * are.  r->colour_frames: whether it streams colour frames. */
static sb_status stream_refused(const sb_case *const *frames, int n, const sb_variant *v, const sb_stream_opts *o,
                                sb_stream_result *r, sb_error *err)
{
    if (n < 1 || o->in_flight < 1 || o->in_flight > SB_STREAM_MAX_IN_FLIGHT)
        return sb_fail(err, SB_ERR_USAGE, "a stream needs at least one frame and 1..%d frames in flight",
                       SB_STREAM_MAX_IN_FLIGHT);
    if (o->in_flight > 1 && (v->flags & SB_ONE_AT_A_TIME))
        return sb_fail(err, SB_ERR_USAGE, "%s keeps state every instance shares (a __constant__ array): two frames "
                       "in flight would overwrite each other's; stream it with --in-flight 1", v->who);
    for (int i = 1; i < n; i++)
        if (frames[i]->input->width != frames[0]->input->width ||
            frames[i]->input->height != frames[0]->input->height ||
            frames[i]->input->stride != frames[0]->input->stride ||
            frames[i]->input->channels != frames[0]->input->channels)
            return sb_fail(err, SB_ERR_USAGE, "frame %d of the sequence is %dx%d, frame 1 %dx%d: a stream's frames "
                           "are of one size", i + 1, frames[i]->input->width, frames[i]->input->height,
                           frames[0]->input->width, frames[0]->input->height);
    r->colour_frames = o->colour_frames || (v->flags & SB_COLOUR_IN);
    if (r->colour_frames && !frames[0]->colour)
        return sb_fail(err, SB_ERR_USAGE, "%s takes its frames as they are: colour frames are for an algorithm that "
                       "takes their grey (the integral image)", frames[0]->algo->name);
    for (int i = 1; i < n && r->colour_frames; i++)
        if (frames[i]->colour->stride != frames[0]->colour->stride)
            return sb_fail(err, SB_ERR_USAGE, "frame %d of the sequence is laid out unlike frame 1 in colour: a "
                           "stream's frames are of one format", i + 1);
    return SB_OK;
}

/* The distinct frames' mean first work count, from their references, and
 * what it counts. */
static double work_per_frame(const sb_case *const *frames, int n, char *key, size_t size)
{
    double sum = 0;
    key[0] = '\0';
    for (int i = 0; i < n; i++) {
        sb_work w;
        sb_output_work(frames[i]->reference, &w);
        if (w.n < 1)
            return 0;
        sum += (double)w.value[0];
        snprintf(key, size, "%s", w.key[0]);
    }
    return n > 0 ? sum / n : 0;
}

sb_status sb_stream_measure(const sb_case *const *frames, int n, const sb_variant *v, const sb_stream_opts *o,
                            sb_stream_result *r, sb_error *err)
{
    memset(r, 0, sizeof *r);
    r->in_flight = o->in_flight;
    r->threads = o->threads;
    r->distinct = n;
    r->warm = o->warm;
    r->work_per_frame = work_per_frame(frames, n, r->work_key, sizeof r->work_key);
    sb_status st = stream_refused(frames, n, v, o, r, err);
    if (st)
        return st;
    instance *inst = NULL;
    st = instances_open(frames, n, v, o, &inst, err);
    if (st)
        return st;
    int k = o->in_flight;
    pass p = { .inst = inst, .k = k, .frames = frames, .n = n };
    turn t = { .last = NULL };
    pthread_mutex_init(&t.lock, NULL);
    r->runs_in_turn = o->runs_in_turn && sb_is_device(v);
    p.turn = r->runs_in_turn ? &t : NULL;

    /* 1. check pass: the references' own (reference_pass), or one of its own */
    sb_energy_mark e0, e1;
    double wall;
    const sb_reference_pass *rp = takes_reference_pass(frames, n, v, o) ? o->reference_pass : NULL;
    int timed = 0, failed;
    if (rp) {
        pass q = { .k = k, .n = n, .total = rp->total, .submit_ms = rp->submit_ms, .done_ms = rp->done_ms };
        r->checked = rp->total - rp->n;
        r->agreement = rp->ag;
        failed = !rp->ag.ok;
        if (!failed) {                                   /* a slow row: that pass is its timed pass */
            st = pass_summarise(&q, pass_wall(&q), r, err);
            sb_energy_between(&rp->before, &rp->after, &r->energy);
            timed = 1;
        }
    } else {
        p.total = n > k ? n : k;
        p.check = 1;
        st = run_pass(&p, &e0, &e1, &wall, err);
        r->checked = p.checked;
        r->agreement = p.ag;
        failed = !st && p.failed;
        if (!st && !failed && o->frames == 0 && slow_pass(wall, k, p.total, o)) {
            st = pass_summarise(&p, wall, r, err);      /* a slow row: the check pass is the timed pass */
            sb_energy_between(&e0, &e1, &r->energy);
            timed = 1;
        }
        pass_free(&p);
    }
    if (failed) {                                        /* nothing is timed after a broken contract */
        instances_close(inst, k);
        pthread_mutex_destroy(&t.lock);
        return SB_OK;
    }

    /* 2. warm-up */
    if (!st && !timed) {
        p.check = 0;
        p.total = o->max_frames;
        p.seconds = o->warmup_ms / 1000.0;
        st = run_pass(&p, NULL, NULL, &wall, err);
        pass_free(&p);
    }
    /* 3. the bound */
    if (!st)
        st = measure_bound(v, &p, frames, n, o, r, err);
    for (int i = 0; !st && timed && sb_is_device(v) && i < k; i++)
        inst[i].last = -1;         /* its engine passes came after its last frame: the check pass checked them */
    /* 4. timed pass */
    if (!st && !timed) {
        p.check = 0;
        p.total = o->frames ? o->frames : o->max_frames;
        if (!o->frames && o->enough_frames > 0 && o->enough_frames < p.total)
            p.total = o->enough_frames;
        p.seconds = o->frames ? 0 : o->min_seconds;
        st = run_pass(&p, &e0, &e1, &wall, err);
        if (!st)
            st = pass_summarise(&p, wall, r, err);
        sb_energy_between(&e0, &e1, &r->energy);
        pass_free(&p);
    }
    if (!st) {
        r->bound_fraction = r->bound_fps > 0 ? r->fps / r->bound_fps : 0;
        check_last(frames, inst, k, v, r);         /* 5. */
    }
    instances_close(inst, k);
    pthread_mutex_destroy(&t.lock);
    return st;
}
