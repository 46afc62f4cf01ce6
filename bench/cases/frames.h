/* frames.h - the cases of a sequence's frames (dataset.h's sb_sequence),
 * for the stream rows: each frame loaded in the algorithm's format, copied
 * to pinned memory, and its own serial reference computed, the frames
 * side by side on several threads where the algorithm allows (its cases
 * share no pipeline memo, cases.h): a stream of four 1080p frames whose
 * references take 8 s each is ready in about 8 s, not 32.
 *
 * Side by side, the references are a stream of the serial reference with
 * one frame a thread (stream.h, sb_reference_pass): with `jobs` threads,
 * the distinct frames and then repeats of them until every thread has
 * had one, each repeat checked against its frame's first run.  The
 * serial reference's stream row takes that pass where it would run the
 * same frames again. */
#ifndef SEGBENCH_FRAMES_H
#define SEGBENCH_FRAMES_H

#include "cases/cases.h"
#include "measure/stream.h"

typedef struct sb_frames {
    int count;
    sb_case_data *cd;           /* count cases */
    const sb_case **c;          /* &cd[i].c, as sb_stream_measure takes them */
    double ref_ms;              /* the references' wall time */
    sb_reference_pass pass;     /* how they were made (pass.total 0: one at a time) */
    int warm;                   /* > 0: opened warm with this many in flight (sb_frames_open_warm) */
    void *params;               /* warm: each frame's parameters (count of algo->params_size) */
    void *starts;               /* warm: each frame's start record (count of algo->warm_size) */
} sb_frames;

/* params: the stage's parameters for the sequence (sb_case_params with its
 * rectangle).  jobs: at most this many frames at once (>= 1). */
sb_status sb_frames_open(sb_frames *fr, const sb_algo *algo, int stage, const void *params, const sb_sequence *seq,
                         int jobs, sb_error *err);

/* The references' progress: told how many of `total` are done, at least
 * every SB_FRAMES_PROGRESS_MS while they run and once at the end. */
enum { SB_FRAMES_PROGRESS_MS = 1000 };
typedef struct sb_frames_progress {
    void (*tell)(void *ctx, int done, int total, double elapsed_ms);
    void *ctx;
} sb_frames_progress;
/* sb_frames_open with progress (NULL: none): the references run on jobs
 * threads while this one watches them. */
sb_status sb_frames_open_watched(sb_frames *fr, const sb_algo *algo, int stage, const void *params,
                                 const sb_sequence *seq, int jobs, const sb_frames_progress *progress, sb_error *err);
/* The frames as a video runs them warm with k in flight (algo->warm_size
 * > 0): frame d begins from the result of frame d - k -- the newest a
 * program has when it takes frame d with k frames in flight -- and frames
 * 0..k-1, the clip's first, begin cold.  Each frame's start record is
 * made from the reference's output of frame d - k (exact variants give the
 * same, so a variant's frame starts where its own run of d - k would have
 * it start), its case's params point at it, and the references run in k
 * chains side by side, one frame of each after another (no repeats). */
sb_status sb_frames_open_warm(sb_frames *fr, const sb_algo *algo, int stage, const void *params,
                              const sb_sequence *seq, int k, const sb_frames_progress *progress, sb_error *err);
void sb_frames_close(sb_frames *fr);

#endif
