/* stream.h - frames per second: a sequence of frames through one variant
 * with K frames in flight, the way a program that processes video runs it.
 *
 * K instances of the variant are prepared once, each with its own output
 * (pinned host memory when a GPU is present) and, on the GPU, its own CUDA
 * stream; K host threads each drive one instance, taking the next frame
 * as soon as their last one is back: upload, run, fetch.  So on the GPU
 * the upload of one frame, the kernels of another and the download of a
 * third overlap, and on the CPU K frames run side by side, one per thread
 * (frame-level parallelism, where a threaded row parallelises one frame).
 * A frame is handed to an instance by pointing its input at the frame's
 * pinned pixels (variant.h: upload copies from the input it was prepared
 * with, read at each call), so no host copy is timed that a program
 * decoding into pinned buffers would not make.
 *
 * Colour frames (colour_frames; an algorithm whose variants take grey
 * made from colour, sb_algo.luma_input: the integral image).  A camera
 * gives colour: an SB_COLOUR_IN variant takes each frame as it is and
 * makes the grey on the GPU, and any other variant's host makes it first,
 * in the instance's own thread and pinned buffer (sb_case_luma), inside
 * the frame's latency -- the host's part of the frame (host_ms).
 *
 * Warm frames (warm) begin from an earlier frame's result: from a start
 * record the harness hands each frame with its pixels (the result of the
 * frame K before, opened so: frames.h), or, chained (chain: runs in turn
 * and a variant whose result stays on the device), from the run of the
 * frame just before it, which the frame's run waits for anyway: the runs
 * are enqueued in frame order and the variant's chain op copies the
 * start on the GPU (segbench/warm_chain.h).  A chained frame's upload is
 * given a cold record, so its exact check fails if the chain does not
 * take the start.  The bound's parts (step 3), which run one frame apart
 * from the others, take the record: the same centres.
 *
 * Runs in turn (runs_in_turn).  Frames' runs may overlap freely, or each
 * frame's run may wait on an event recorded after the run enqueued before
 * it, so the GPU runs one frame's kernels at a time while the others copy.
 * Kernels that fill the GPU, run freely, can fall into lock-step: the
 * block scheduler serves two waiting kernels in turn, two frames' passes
 * alternate, each run takes twice as long, and the copies of both frames
 * then coincide instead of hiding under a run (H100, k-means at 4K with 2
 * in flight: 790 frames/s free, 1,415 in turn; docs/measuring.md).
 * Kernels that leave the GPU room gain from running at once (k-means at
 * 640x480: 14,226 free, 8,487 in turn).
 *
 * The protocol:
 *   1. check pass: every distinct frame at least once and every instance
 *      at least once, K in flight, each output poisoned before its frame
 *      and compared with the serial reference of that frame under the
 *      algorithm's contract.  Nothing is timed before it passes.
 *   2. warm-up pass: frames for `warmup_ms`.
 *   3. the bound.  First one frame's parts alone on one instance (the
 *      same for every K, so the rows of one variant, scene and source
 *      measure them once, with their first K, and the others take them:
 *      parts_of): a device variant's upload, run and fetch each timed
 *      apart (medians on each distinct frame, their mean over the frames,
 *      whose work may differ), a host variant's whole frame.  Then a
 *      device variant's engines alone through the same instances and
 *      threads: the copies (upload and fetch: both copy directions at
 *      once; no grey made) and the kernels (each instance's run on a
 *      frame it holds, free or in turn as the row's, on each distinct
 *      frame in turn, the clip's rate its frames over the sum of their
 *      times), each with 1..K in flight after as long again untimed, its
 *      best rate kept.  A stream does each engine's share of every frame
 *      with at most K at an engine at once, so its rate is at most the
 *      slower engine's best: that is the bound.  Where the host makes
 *      each frame's grey, K frames per host_ms bounds it too.  A host
 *      variant has no engine apart from the row, and gets a model, not a
 *      bound: perfect scaling, K frames per one frame's time alone (a
 *      serial row's at most one a core).  The serial reference's slow
 *      frames take their time alone from the references' runs -- their
 *      CPU time, since the references ran K at once and their wall time
 *      includes waits for a shared core.
 *   4. timed pass: `frames` frames, or (frames = 0) frames taken until
 *      `min_seconds` have passed (at least SB_ENERGY_MIN_S by default, so
 *      the energy counters can be read) or, where enough_frames is set,
 *      until that many frames are in if sooner; the counters read around
 *      it.  Each frame's latency runs from
 *      its submission (its instance starts the upload) to its result on
 *      the host (fetch returned).
 *      The pass's thirds give the row's spread (each third the same whole
 *      number of turns through the sequence, so content-dependent frames
 *      weigh alike): a third whose rate is more than SB_STREAM_UNSTABLE
 *      from the three's flags it.
 *   5. each instance's last output checked again against the reference
 *      of the frame it last ran (races that show only under load).
 * A slow row -- its check pass's frames took at least STREAM_SLOW_FRAME_MS (100 ms) each
 * and the pass lasted min_seconds -- has its check pass as its timed
 * pass (the comparisons are then a small part of its time): a stream
 * of seconds-long frames is not run three times.  The serial reference's
 * row with the references' pass's k (reference_pass) has that pass as
 * its check and timed pass, where the pass is slow so: not run four times.
 *
 * The caller opens the energy counters first (sb_energy_open, energy.h).
 */
#ifndef SEGBENCH_STREAM_H
#define SEGBENCH_STREAM_H

#include "machine/energy.h"
#include "measure/measure.h"
#include "segbench/warm_chain.h"

#include <stdatomic.h>

enum { SB_STREAM_MAX_IN_FLIGHT = 64 };
/* Frames enough for a timed pass that reads no energy: its p99 the 6th
 * slowest frame, each of its thirds 200 frames.  A GPU row of a small
 * frame has them in a few hundredths of a second. */
enum { SB_STREAM_ENOUGH_FRAMES = 600 };
/* A stream row is flagged "few" with fewer frames than this per instance
 * (a slow CPU row: one or two waves of frames, whose thirds say nothing),
 * else "unstable" when a third of its timed pass ran at a rate more than
 * SB_STREAM_UNSTABLE from the whole's (the CPU rows' rounds,
 * docs/measuring.md, for a stream). */
enum { SB_STREAM_FEW = 3 };
#define SB_STREAM_UNSTABLE 0.10

struct sb_stream_result;

/* The frames' references made as a stream of the serial reference would
 * run them (frames.h): k frames at once, one thread each, over `total`
 * frames -- the n distinct ones, then repeats of them up to k, each
 * compared with its frame's reference (a reference that changed from run
 * to run would break the contract of every row) -- each frame's
 * submission and result times kept, and the energy counters read around
 * the pass.  The serial reference's stream row with k in flight takes it
 * as its check and timed pass where its frames are slow (the protocol's
 * slow row, below): the same runs are not made twice. */
typedef struct sb_reference_pass {
    int k, n, total;
    double *submit_ms, *done_ms;      /* per frame of the pass */
    sb_energy_mark before, after;
    sb_agreement ag;                  /* the repeats against the references */
} sb_reference_pass;

typedef struct sb_stream_opts {
    int in_flight;            /* K: frames in flight, one instance (and thread) each */
    int threads;              /* each instance's threads (a threaded CPU variant), >= 1 */
    int frames;               /* frames in the timed pass; 0: as many as fill min_seconds */
    double min_seconds;       /* the timed pass lasts at least this long (frames = 0) */
    int max_frames;           /* at most this many, whatever min_seconds asks */
    int enough_frames;        /* > 0: the timed pass also ends after this many frames (a pass
                                 whose energy is not read: a shorter min_seconds) */
    double warmup_ms;
    int runs_in_turn;         /* GPU: each frame's run waits for the run enqueued before it */
    int colour_frames;        /* frames arrive in colour (above); implied for SB_COLOUR_IN */
    int warm;                 /* the frames are warm (frames.h, sb_frames_open_warm): each instance
                                 takes each frame's start record with the frame */
    sb_warm_chain chain;      /* warm, runs in turn: each warm frame's start taken on the device from
                                 the run of the frame just before it (segbench/warm_chain.h; the
                                 frames opened warm with 1 in flight, its upload given a cold
                                 record); NULL: from its start record */
    const struct sb_stream_result *parts_of;   /* a row of this variant, frames and source
                                  measured before (another K): the bound's one-instance parts
                                  (step 3) are its, not measured again; NULL: measured */
    const sb_reference_pass *reference_pass;   /* the frames' references' pass, or NULL */
    atomic_int *step;         /* where the protocol is, 1..5 as below (5: done), for a watcher's
                                 progress line (sb_stream_step_name); NULL: not told */
} sb_stream_opts;

void sb_stream_defaults(sb_stream_opts *o);
/* What the protocol does at a step (sb_stream_opts.step): "checking each
 * frame", ..., "" outside 1..5. */
const char *sb_stream_step_name(int step);

typedef struct sb_stream_result {
    int in_flight, threads;
    int runs_in_turn;         /* the runs were in turn (sb_stream_opts) */
    int colour_frames;        /* the frames came in colour (sb_stream_opts) */
    int warm;                 /* the frames were warm (sb_stream_opts) */
    int chained;              /* their starts were taken on the device (sb_stream_opts.chain) */
    double work_per_frame;    /* the distinct frames' mean first work count (outputs.h: k-means'
                                 passes), from their references, which every frame matched; 0: none */
    char work_key[16];        /* what it counts ("passes"), "" where none */
    int frames;               /* frames timed */
    int distinct;             /* distinct frames in the sequence */
    int checked;              /* frames compared with their reference */
    double seconds;           /* the timed pass: first submission to last result */
    double fps;
    double p50_ms, p99_ms, max_ms;   /* per-frame latency */
    double upload_ms, run_ms, fetch_ms;   /* one frame's parts alone (medians); a host
                                             variant's whole frame is run_ms */
    double host_ms;           /* colour frames, a grey variant: its host making the grey */
    double copies_fps, kernels_fps;   /* a device variant's engines alone with K in flight
                                         (step 3), else 0 */
    double bound_fps;         /* the bound (the protocol's step 3) */
    double bound_fraction;    /* fps / bound_fps: above 1 only where a measured bound was beaten by
                                 the noise of its passes (sb_stream_bound_held) */
    char bound_by[16];        /* "copies", "kernels", "host" (making the grey), or "cpus" for a
                                 host variant: perfect scaling, a model, not a bound */
    double spread;            /* the largest |rate of a third of the timed pass / the whole's - 1| */
    int few;                  /* fewer than SB_STREAM_FEW frames an instance: its thirds say little */
    sb_energy energy;         /* over the timed pass */
    sb_agreement agreement;   /* the first frame that broke the contract, else the last checked */
} sb_stream_result;

/* The whole protocol for one row: frames[0..n) are the sequence's
 * distinct frames (cases of one algorithm, stage and size; frame i of
 * the stream is frames[i % n]).  A broken contract is reported in
 * r->agreement (and nothing is timed after it), not as an error. */
sb_status sb_stream_measure(const sb_case *const *frames, int n, const sb_variant *v, const sb_stream_opts *o,
                            sb_stream_result *r, sb_error *err);

#endif
