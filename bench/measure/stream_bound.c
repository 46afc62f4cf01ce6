/* stream_bound.c - the stream protocol's step 3 (measure/stream.h): one
 * frame's parts alone, and the bound -- a GPU row's slower engine at its
 * best alone, a CPU row's perfect scaling. */
#include "measure/stream_pass.h"

#include "measure/protocol.h"
#include "machine/env.h"

#include "segbench/clock.h"
#include "segbench/device.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The one-frame parts: at least this many samples of each on each
 * distinct frame, and this much time over all of them. */
enum { BOUND_MIN_SAMPLES = 3, BOUND_SAMPLES = 256 };
#define BOUND_BUDGET_MS 200.0
/* Each engine of the bound takes frames for this long in all, each of its
 * passes at least ENGINE_FRAMES of one frame's time alone. */
#define ENGINE_PASS_MS 100.0
#define ENGINE_FRAMES 8.0

/* The host's part of a frame alone: making its grey, 0 where the host
 * makes nothing.  The bound is the most the host could give, so this is
 * its fastest grey, as an engine's rate is its best: at least
 * BOUND_MIN_SAMPLES and up to HOST_SAMPLES of them, for about
 * HOST_BUDGET_MS.  (A median of three, the first on a frame not yet in
 * the caches, was beaten by streams by 5-9 % at 3840x2160 on the H200;
 * the fastest still was, by 7 % with 2 in flight, 2026-11-30: it is timed
 * on the caller's core, and the instances' cores make greys at their own
 * speeds -- so after the timed pass the instances' own fastest greys
 * lower it where they were faster: stream_bound_greys.)
 * The frame is then in the instance's input. */
enum { HOST_SAMPLES = 16 };
#define HOST_BUDGET_MS 20.0
static double host_part(const sb_variant *v, stream_instance *in, const sb_case *frame)
{
    if (!in->host_luma) {
        stream_frame_in(v, in, frame);
        return 0;
    }
    double best = INFINITY, started = sb_clock_ms();
    for (int i = 0; i < HOST_SAMPLES && (i < BOUND_MIN_SAMPLES || sb_clock_ms() - started < HOST_BUDGET_MS); i++) {
        double t0 = sb_clock_ms();
        stream_frame_in(v, in, frame);
        best = fmin(best, sb_clock_ms() - t0);
    }
    return best;
}

/* One frame's parts alone on one instance (medians): the host's, then a
 * device variant's upload, run and fetch each timed apart, or a host
 * variant's whole frame in *run.  At least BOUND_MIN_SAMPLES of each, for
 * about budget_ms. */
static sb_status frame_parts(const sb_variant *v, stream_instance *in, const sb_case *frame, const sb_stream_opts *o,
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
        const double slow = STREAM_SLOW_FRAME_MS;
        int reused = v == frame->reference_variant && o->threads == 1 && frame->ref_times.run_ms >= slow &&
                     frame->ref_times.run_cpu_ms > 0;
        if (reused)
            run[n++] = frame->ref_times.run_cpu_ms;
        while (!st && n < BOUND_SAMPLES &&
               (n == 0 || (run[0] < slow && (n < BOUND_MIN_SAMPLES || sb_clock_ms() - started < budget_ms)))) {
            double t0 = sb_clock_ms();
            st = v->ops->run(in->s.state, err);
            if (!st)
                st = v->ops->fetch(in->s.state, err);
            run[n++] = sb_clock_ms() - t0;
        }
        *up_ms = *down_ms = 0;
        *run_ms = st ? 0 : stream_median(run, n);
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
    *up_ms = stream_median(up, n);
    *run_ms = stream_median(run, n);
    *down_ms = stream_median(down, n);
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
static sb_status one_frame_parts(const sb_variant *v, stream_instance *in, const sb_case *const *frames, int nframes,
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

/* One engine's rate alone (stream_pass_rate): frames for pass_ms through the
 * first j instances and their threads, doing only that engine's share of
 * each, after as long again untimed (the host's clocks ramp up after the
 * one-frame parts: a copies pass timed cold read 25 % under the stream it
 * bounds). */
static sb_status engine_pass(stream_pass *p, stream_part part, int j, int max_frames, double pass_ms, double *fps,
                             sb_error *err)
{
    int k = p->k;
    p->k = j;
    p->part = part;
    p->check = 0;
    sb_status st = SB_OK;
    double wall = 0;
    *fps = 0;
    for (int timed = 0; timed < 2 && !st; timed++) {     /* the first pass untimed */
        p->total = max_frames;
        p->seconds = pass_ms / 1000.0;
        st = stream_run_pass(p, NULL, NULL, &wall, err);
        if (!st && timed)
            *fps = stream_pass_rate(p);
        stream_pass_free(p);
    }
    p->k = k;
    p->part = STREAM_PART_FRAME;
    return st;
}

/* An engine's bound with K in flight: its best rate alone with 1..K in
 * flight.  A stream has at most K frames at that engine at once, and
 * fewer can be faster (kernels that fill the GPU fall into lock-step two
 * at a time: k-means at 4K streamed 871 frames/s with 2 in flight, its
 * kernels alone 587 with 2 and 1,310 with 1). */
static sb_status engine_fps(stream_pass *p, stream_part part, int max_frames, double pass_ms, double frame_ms,
                            double *fps, sb_error *err)
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
static sb_status kernels_fps(const sb_variant *v, stream_pass *p, const sb_case *const *frames, int n, int max_frames,
                             double run_ms, double *fps, sb_error *err)
{
    double ms = 0;
    sb_status st = SB_OK;
    *fps = 0;
    for (int d = 0; d < n && !st; d++) {
        for (int i = 0; i < p->k && !st; i++) {
            stream_instance *in = &p->inst[i];
            stream_frame_in(v, in, frames[d]);
            st = v->ops->upload ? v->ops->upload(in->s.state, err) : SB_OK;
            if (!st)
                st = sb_device_sync(in->stream, err);
        }
        double rate = 0;
        if (!st)
            st = engine_fps(p, STREAM_PART_KERNELS, max_frames, ENGINE_PASS_MS / n, run_ms, &rate, err);
        if (!st && rate <= 0)
            return SB_OK;          /* no time to be had: no bound (*fps stays 0) */
        ms += 1000.0 / rate / n;
    }
    *fps = !st && ms > 0 ? 1000.0 / ms : 0;
    return st;
}

/* A device row's bound from its engines' rates: the slower one's, or,
 * where the host makes each frame's grey, K per its fastest grey if that
 * is slower still. */
static void device_bound(const sb_stream_opts *o, sb_stream_result *r)
{
    if (r->copies_fps <= 0 || r->kernels_fps <= 0)
        return;                    /* an engine too quick to time: no bound */
    int copies = r->copies_fps <= r->kernels_fps;
    r->bound_fps = copies ? r->copies_fps : r->kernels_fps;
    snprintf(r->bound_by, sizeof r->bound_by, "%s", copies ? "copies" : "kernels");
    /* K threads making greys, each at most at the fastest grey's rate: the host's own bound.  (The copies
       pass once made the greys too, and a stream beat it by up to 18 % at 1920x1080 with 2 in flight on the
       H200, 2026-11-30: greys made at once on every instance contend for the host's cores and memory, and
       a stream's staggered ones do not.) */
    if (r->host_ms > 0 && o->in_flight * 1000.0 / r->host_ms < r->bound_fps) {
        r->bound_fps = o->in_flight * 1000.0 / r->host_ms;
        snprintf(r->bound_by, sizeof r->bound_by, "host");
    }
}

/* Protocol step 3: the bound.  A device variant's is its slowest engine's
 * rate with K in flight: a stream does at least each engine's share of
 * every frame, with no more in flight, so it cannot beat that engine
 * alone. */
sb_status stream_measure_bound(const sb_variant *v, stream_pass *p, const sb_case *const *frames, int nframes,
                               const sb_stream_opts *o, sb_stream_result *r, sb_error *err)
{
    sb_status st = one_frame_parts(v, &p->inst[0], frames, nframes, o, r, err);
    if (st || !sb_is_device(v)) {
        if (!st)
            host_bound(o, r);
        return st;
    }
    if ((st = engine_fps(p, STREAM_PART_COPIES, o->max_frames, ENGINE_PASS_MS, r->upload_ms + r->fetch_ms,
                         &r->copies_fps, err)) ||
        (st = kernels_fps(v, p, frames, nframes, o->max_frames, r->run_ms, &r->kernels_fps, err)))
        return st;
    device_bound(o, r);
    return SB_OK;
}

/* The instances' own greys (stream_pass.h): every grey of the timed pass
 * took at least the fastest any instance made, so K per it still bounds
 * the row, where the caller's core was slower. */
void stream_bound_greys(const stream_instance *inst, int k, const sb_stream_opts *o, sb_stream_result *r)
{
    double fastest = INFINITY;
    for (int i = 0; i < k; i++)
        if (inst[i].host_luma)
            fastest = fmin(fastest, inst[i].grey_min_ms);
    if (fastest < r->host_ms) {
        r->host_ms = fastest;
        device_bound(o, r);
    }
}
