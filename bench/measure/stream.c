/* stream.c - frames through one variant with K in flight (stream.h): the
 * protocol; its instances and passes are stream_pass.c, its bound
 * stream_bound.c. */
#include "measure/stream_pass.h"

#include "variants/agreement.h"
#include "variants/outputs.h"
#include "measure/protocol.h"

#include "segbench/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_stream_defaults(sb_stream_opts *o)
{
    memset(o, 0, sizeof *o);
    o->in_flight = 2;
    o->threads = 1;
    o->min_seconds = SB_ENERGY_MIN_S;
    o->max_frames = 1000000;
    o->warmup_ms = 200.0;
}

const char *sb_stream_step_name(int step)
{
    static const char *const names[] = { "", "checking each frame", "warming up", "measuring its bound", "timing",
                                         "checking the last frames" };
    return step >= 1 && step <= 5 ? names[step] : "";
}

static void tell_step(const sb_stream_opts *o, int step)
{
    if (o->step)
        atomic_store(o->step, step);
}

/* Latency percentiles and rate of a timed pass. */
static sb_status pass_summarise(const stream_pass *p, double wall_ms, sb_stream_result *r, sb_error *err)
{
    double *lat = malloc((size_t)p->total * sizeof *lat);
    if (!lat)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    for (int f = 0; f < p->total; f++)
        lat[f] = p->done_ms[f] - p->submit_ms[f];
    qsort(lat, (size_t)p->total, sizeof *lat, stream_cmp_double);
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

/* Protocol step 5: each instance's last output against its frame's reference. */
static void check_last(const sb_case *const *frames, stream_instance *inst, int k, const sb_variant *v,
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

/* A slow row's check pass (its frames at least STREAM_SLOW_FRAME_MS each, and
 * min_seconds in all): it is the row's timed pass too. */
static int slow_pass(double wall_ms, int k, int total, const sb_stream_opts *o)
{
    return total > 0 && wall_ms * k / total >= STREAM_SLOW_FRAME_MS && wall_ms >= o->min_seconds * 1000.0;
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
    stream_pass q = { .total = rp->total, .submit_ms = rp->submit_ms, .done_ms = rp->done_ms };
    return slow_pass(stream_pass_wall(&q), rp->k, rp->total, o);
}

/* What a stream cannot run, said (SB_OK: it can): no frame, too many in
 * flight, a variant that takes one at a time, frames of two sizes or two
 * layouts, a chained start without warm frames in turn, colour frames for an algorithm that takes its frames as they
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
    if (o->chain && (!o->warm || !o->runs_in_turn))
        return sb_fail(err, SB_ERR_USAGE, "%s: a start taken on the device from the frame before needs warm frames "
                       "and runs in turn", v->who);
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

/* The row's turn (stream_pass.h): used where its runs take turns, or are
 * chained. */
static void turn_open(stream_turn *t, const sb_stream_opts *o)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->moved, NULL);
    t->chain = o->chain;
}

static void turn_close(stream_turn *t)
{
    pthread_cond_destroy(&t->moved);
    pthread_mutex_destroy(&t->lock);
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
    stream_instance *inst = NULL;
    st = stream_instances_open(frames, n, v, o, &inst, err);
    if (st)
        return st;
    int k = o->in_flight;
    stream_pass p = { .inst = inst, .k = k, .frames = frames, .n = n };
    stream_turn t;
    turn_open(&t, o);
    r->runs_in_turn = o->runs_in_turn && sb_is_device(v);
    r->chained = o->chain != NULL;      /* (stream_refused: warm and in turn) */
    p.turn = r->runs_in_turn || r->chained ? &t : NULL;

    /* 1. check pass: the references' own (reference_pass), or one of its own */
    tell_step(o, 1);
    sb_energy_mark e0, e1;
    double wall;
    const sb_reference_pass *rp = takes_reference_pass(frames, n, v, o) ? o->reference_pass : NULL;
    int timed = 0, failed;
    if (rp) {
        stream_pass q = { .k = k, .n = n, .total = rp->total, .submit_ms = rp->submit_ms, .done_ms = rp->done_ms };
        r->checked = rp->total - rp->n;
        r->agreement = rp->ag;
        failed = !rp->ag.ok;
        if (!failed) {                                   /* a slow row: that pass is its timed pass */
            st = pass_summarise(&q, stream_pass_wall(&q), r, err);
            sb_energy_between(&rp->before, &rp->after, &r->energy);
            timed = 1;
        }
    } else {
        p.total = n > k ? n : k;
        p.check = 1;
        st = stream_run_pass(&p, &e0, &e1, &wall, err);
        r->checked = p.checked;
        r->agreement = p.ag;
        failed = !st && p.failed;
        if (!st && !failed && o->frames == 0 && slow_pass(wall, k, p.total, o)) {
            st = pass_summarise(&p, wall, r, err);      /* a slow row: the check pass is the timed pass */
            sb_energy_between(&e0, &e1, &r->energy);
            timed = 1;
        }
        stream_pass_free(&p);
    }
    if (failed) {                                        /* nothing is timed after a broken contract */
        stream_instances_close(inst, k);
        turn_close(&t);
        return SB_OK;
    }

    /* 2. warm-up */
    tell_step(o, 2);
    if (!st && !timed) {
        p.check = 0;
        p.total = o->max_frames;
        p.seconds = o->warmup_ms / 1000.0;
        st = stream_run_pass(&p, NULL, NULL, &wall, err);
        stream_pass_free(&p);
    }
    /* 3. the bound */
    tell_step(o, 3);
    if (!st)
        st = stream_measure_bound(v, &p, frames, n, o, r, err);
    for (int i = 0; !st && timed && sb_is_device(v) && i < k; i++)
        inst[i].last = -1;         /* its engine passes came after its last frame: the check pass checked them */
    /* 4. timed pass */
    tell_step(o, 4);
    if (!st && !timed) {
        p.check = 0;
        p.total = o->frames ? o->frames : o->max_frames;
        if (!o->frames && o->enough_frames > 0 && o->enough_frames < p.total)
            p.total = o->enough_frames;
        p.seconds = o->frames ? 0 : o->min_seconds;
        st = stream_run_pass(&p, &e0, &e1, &wall, err);
        if (!st)
            st = pass_summarise(&p, wall, r, err);
        sb_energy_between(&e0, &e1, &r->energy);
        stream_pass_free(&p);
    }
    if (!st) {
        tell_step(o, 5);
        if (sb_is_device(v))
            stream_bound_greys(inst, k, o, r);
        r->bound_fraction = r->bound_fps > 0 ? r->fps / r->bound_fps : 0;
        check_last(frames, inst, k, v, r);         /* 5. */
    }
    stream_instances_close(inst, k);
    turn_close(&t);
    return st;
}
