/* stream_pass.h - inside measure/stream.c: the instances of a variant
 * and the passes of frames through them, which the protocol (stream.c)
 * and its bound (stream_bound.c) both run.  Not for other layers: they
 * take measure/stream.h. */
#ifndef SEGBENCH_STREAM_PASS_H
#define SEGBENCH_STREAM_PASS_H

#include "measure/stream.h"
#include "segbench/warm_chain.h"

#include <pthread.h>
#include <stdatomic.h>

/* A check pass whose frames took this long each is also the timed pass;
 * the serial reference's frames this slow lend the bound their runs. */
#define STREAM_SLOW_FRAME_MS 100.0

/* One instance of the variant: its own session (state, output, stream),
 * and the case it runs, whose input is pointed at each frame in turn. */
typedef struct stream_instance {
    sb_case c;
    sb_image img;              /* the frame in flight: a frame's header, its pixels */
    int host_luma;             /* colour frames, a grey variant: img holds its own pinned
                                  pixels, the host's grey of each frame */
    double grey_min_ms;        /* host_luma: the fastest grey it has made (INFINITY: none yet) */
    sb_session s;
    void *stream;
    int last;                  /* the distinct frame it ran last, -1: none */
    void *ran;                 /* runs in turn: recorded after each of its runs */
    void *params;              /* warm: its own copy of the parameters, pointing at `start` */
    void *start;               /* warm: the start record of the frame it runs (stream_frame_in
                                  copies it) */
} stream_instance;

/* Runs in turn (sb_stream_opts.runs_in_turn): each frame's run starts on
 * the GPU once the run enqueued before it has ended.  Chained (a warm
 * start taken on the device, sb_stream_opts.chain): in a pass of whole
 * frames the runs are enqueued in frame order, frame f's after frame
 * f - 1's, and a warm frame's chain op takes its start from that run. */
typedef struct stream_turn {
    pthread_mutex_t lock;
    pthread_cond_t moved;      /* chained: next_frame moved on */
    void *last;                /* the event after the last run enqueued; NULL: none yet */
    sb_warm_chain chain;       /* the variant's chain op where the row is chained, else NULL */
    int next_frame;            /* chained: the frame of the pass whose run is enqueued next */
    const struct stream_instance *last_by;   /* chained: the instance of that run before it, NULL:
                                                none this pass (or it failed) */
    int abandoned;             /* chained: the pass stopped; frames waiting for a turn are dropped */
} stream_turn;

/* What a pass does with each frame: all of it, or one engine's share
 * alone (the bound, step 3). */
typedef enum stream_part {
    STREAM_PART_FRAME,         /* upload, run, fetch */
    STREAM_PART_COPIES,        /* upload and fetch: the copy engines both ways at once (no grey made: the
                                  host's part is bounded apart, K per host_ms) */
    STREAM_PART_KERNELS        /* the run alone, on the frame the instance holds */
} stream_part;

/* One pass of frames through the instances. */
typedef struct stream_pass {
    stream_instance *inst;
    int k;
    stream_part part;
    const sb_case *const *frames;
    int n;
    int total;                 /* frames to push (at most) */
    double seconds;            /* > 0: take no frame after this long */
    double deadline_ms;
    int check;                 /* poison, then compare each output with its reference */
    stream_turn *turn;         /* runs in turn, or NULL: runs overlap freely */
    atomic_int next;           /* the next frame to hand out */
    atomic_int stop;           /* an error or a failed check: hand out no more */
    double *submit_ms, *done_ms;   /* per frame pushed */
    short *by;                 /* per frame pushed: the instance that ran it */
    pthread_mutex_t lock;      /* the fields below */
    sb_status st;
    sb_error err;
    int failed, checked;
    sb_agreement ag;
} stream_pass;

/* Hand a frame to an instance: point its input at the frame's pixels
 * (same size, stride and channels: one sequence), or, where its host
 * makes the grey of a colour frame, make it into the instance's own; a
 * warm frame's start record into the instance's. */
void stream_frame_in(const sb_variant *v, stream_instance *in, const sb_case *frame);

/* Push p->total frames (at most) through the p->k instances, one host
 * thread each, doing p->part of each; *wall_ms: first submission to last
 * result.  p->submit_ms, done_ms and by are the pass's until
 * stream_pass_free. */
sb_status stream_run_pass(stream_pass *p, sb_energy_mark *before, sb_energy_mark *after, double *wall_ms,
                          sb_error *err);
void stream_pass_free(stream_pass *p);
/* First submission to last result. */
double stream_pass_wall(const stream_pass *p);
/* The sum of the instances' own rates: each one's frames over its first
 * submission to its last result. */
double stream_pass_rate(const stream_pass *p);

int stream_cmp_double(const void *a, const void *b);
/* The median of ms[0..n) (sorted in place); 0 for none. */
double stream_median(double *ms, int n);

/* K = o->in_flight instances of v, each prepared with one of the frames
 * (its own session, stream and, warm, parameters); closed by
 * stream_instances_close. */
sb_status stream_instances_open(const sb_case *const *frames, int n, const sb_variant *v, const sb_stream_opts *o,
                                stream_instance **out, sb_error *err);
void stream_instances_close(stream_instance *inst, int k);

/* Protocol step 3 (stream_bound.c): one frame's parts alone, then the
 * bound, into r; p's instances are the row's. */
sb_status stream_measure_bound(const sb_variant *v, stream_pass *p, const sb_case *const *frames, int nframes,
                               const sb_stream_opts *o, sb_stream_result *r, sb_error *err);
/* After the timed pass, where the host makes each frame's grey: its part
 * is the fastest grey any of the k instances made on its own thread, where
 * that beat the caller's, and the bound follows it. */
void stream_bound_greys(const stream_instance *inst, int k, const sb_stream_opts *o, sb_stream_result *r);

#endif
