/* measure.h - check, then time, one variant on one prepared image.
 *
 * The protocol (docs/measuring.md says it for a reader):
 *   1. check: prepare with poisoned outputs, run, fetch, compare with the
 *      reference.  Nothing is timed before this passes or fails.
 *      A slow row -- its check run took at least `budget_ms` -- needs no
 *      warm-up: that run is a kernel sample.  A device row stops there (its
 *      one sample; one more prepare + run + fetch its end to end, since its
 *      check prepare also poisons device memory); a host row takes two more
 *      runs where one takes at most SB_REFERENCE_MEDIAN_OF budgets (in its
 *      rounds, below), else stops too: repeating a run of seconds would
 *      cost minutes, and the report marks rows with fewer than 3 samples.
 *      The reference variant at one thread is such a row's cheapest case:
 *      the run that computed the reference (sb_case.ref_times) is its
 *      first sample, and its verdict is "reference".
 *      With `census` set, a device row's check run is the kernel census's
 *      (sb_measurement.census): CUPTI sees its launches.  Such a run is
 *      never a sample -- an observed launch costs host time -- so a slow
 *      device row observed this way runs once more, unobserved, for its
 *      one sample.
 *   2. warm-up: at least `warmup_min` runs and `warmup_ms` of them (fast
 *      rows run thousands of times, slow rows once more); a quarter of
 *      `warmup_ms` for a device row that follows another within 50 ms
 *      (the GPU is at its working clocks).  A host row's
 *      check run counts towards both: it ran in the same session, on the
 *      same buffers, so a host row whose check took `warmup_ms` is warm.
 *   3. kernel time: run() alone, bracketed by CUDA events on the variant's
 *      stream (after an L2 flush, outside the events) or by the monotonic
 *      clock for CPU variants.  Repeat until at least `min_reps` samples
 *      and the median's relative standard error is under `target_rse`, or
 *      `budget_ms` of sampling with at least min(3, min_reps) samples, or
 *      `max_reps` samples.
 *   4. check again on the last timed run's output (races that only show
 *      under repetition fail here).
 *      A device row's GPU clocks and throttle reasons are read just
 *      before the first and after the last timed run (gpu_clocks.h).
 *   5. per frame and end to end (host clock, pinned buffers, the same
 *      stopping rule, a quarter of the budget each).  Per frame is
 *      upload + run + fetch into the session's existing buffers: what a
 *      program streaming frames pays for each.  End to end is a whole
 *      cold run, prepare (the one-time setup: allocation) + upload + run
 *      + fetch, release outside; its prepare alone is the setup sample.
 *      A host variant has nothing to move: its per-frame samples are its
 *      kernel samples plus the session's fetch, its setup the session's
 *      prepare, and its end to end the sum, so neither is ever below the
 *      kernel time.
 */
#ifndef SEGBENCH_HARNESS_H
#define SEGBENCH_HARNESS_H

#include "variants/algo.h"
#include "variants/outputs.h"
#include "machine/gpu_clocks.h"
#include "machine/host_noise.h"

#include "segbench/device.h"
#include "segbench/stats.h"

#include <stdint.h>

/* A slow host row (one run at least the budget), the serial reference
 * included, is run twice more when one run takes at most this many budgets
 * (300 ms at the default 100 ms).  A trade: two more runs of every row
 * between 0.3 and 1 s would cost a default bench about 40-50 s on the H100
 * host, and such a row's one run is about 5 % off its median of three;
 * those up to 0.3 s cost 26 s there (docs/measuring.md). */
#define SB_REFERENCE_MEDIAN_OF 3

/* Kernels one census can list (the distinct kernel, block, shared memory
 * launches of one run). */
#define SB_CENSUS_MAX 32

/* The most rounds a row keeps (SB_ROUNDS_MAX of them timed, and a slow
 * row's three runs beside: rounds.c). */
enum { SB_ROUNDS_CAP = 11 };

typedef struct sb_timing_opts {
    int warmup_min;
    double warmup_ms;
    int min_reps, max_reps;
    double budget_ms;          /* sampling time per row (kernel), and half of it for e2e */
    double target_rse;         /* stop when the median's relative standard error is below */
    int flush_l2;              /* device variants: evict L2 before each timed run */
    char gpu_uuid[48];         /* device variants: the GPU whose clocks are read (gpu_clocks.h) */
    int census;                /* device variants: observe the check run's launches (the
                                  kernel census, device.h) into sb_measurement.census */
    int gpu_warm;              /* device variants: the GPU ran a row within SB_GPU_STILL_BUSY_MS
                                  (the caller keeps the time): its clocks are up, and the
                                  warm-up takes a quarter of warmup_ms (the row's clocks are
                                  read around its timing, and a slow-clocked row is flagged) */
    sb_host_probes *probes;    /* host rows: the caller's CPU and memory speed probes
                                  (host_noise.h), which flag a row run on a slow host;
                                  NULL: not probed */
    struct sb_paired *pairing;    /* host rows: the partner process they take turns with, sample
                                  by sample (paired.h; ab --paired); NULL or off: none */
    int rounds;                /* device rows: the kernel budget in this many rounds, each
                                  after the first on a fresh session (fresh allocations, a
                                  short warm-up); 0 or 1: one (host rows take theirs from
                                  the caller's interleaving: sb_rounds_open) */
} sb_timing_opts;
enum { SB_GPU_STILL_BUSY_MS = 250 };

void sb_timing_defaults(sb_timing_opts *o);

/* The parts of one whole run on the host clock. */
typedef struct sb_run_times {
    double setup_ms;           /* prepare: allocation (and a host variant's own set-up) */
    double frame_ms;           /* upload + run + fetch */
    double run_ms;             /* run() alone: meaningful for host variants only
                                  (a device run() just enqueues) */
    double run_cpu_ms;         /* run() on its thread's CPU clock: a serial run's work,
                                  without the waits of a core it shared */
    double mem_slowdown;       /* the reference's run: the worst host memory speed just
                                  before and after it (host_noise.h), 0: not probed */
    double cache_probe_ms;     /* a long reference run: the slower cache probe just before
                                  and after it (machine/cache_probe.h), 0: not probed */
    double began_ms;           /* the host clock (sb_clock_ms) when the upload began */
} sb_run_times;

/* One image made ready for one algorithm and stage. */
typedef struct sb_case {
    const sb_algo *algo;
    int stage;
    const void *params;
    const sb_image *input;     /* pinned copy, in the algorithm's format */
    const sb_image *colour;    /* algo->luma_input: the colour image input is the luma of
                                  (pinned), what SB_COLOUR_IN variants take; else NULL */
    const void *reference;     /* the reference variant's output */
    const sb_variant *reference_variant;
    sb_run_times ref_times;    /* the reference's one run (host clock), zeros if unknown */
    const char *image;         /* its name, for the profiler's ranges (NULL: "image") */
    const void *start;         /* a warm frame's start record (algo->warm_size bytes; params point
                                  at it), NULL: cold (frames.h, sb_frames_open_warm) */
} sb_case;

/* The image a variant is prepared with: the case's colour image for an
 * SB_COLOUR_IN variant, else its input. */
const sb_image *sb_case_input(const sb_case *c, const sb_variant *v);

/* grey = the luma of colour (3 channels), pixel by pixel with sb_luma_u8:
 * how a case makes its grey input (cases/cases.c), and how a stream's
 * host makes a grey variant's frame from a colour frame (stream.h).  grey
 * is as wide and as tall, 1 channel, its pixels already allocated. */
void sb_case_luma(const sb_image *colour, sb_image *grey);

/* A prepared variant: state, output and timer, ready to sample. */
typedef struct sb_session {
    const sb_case *c;
    const sb_variant *v;
    sb_exec exec;
    void *state;
    void *out;
    sb_device_timer *timer;
    double prepare_ms, fetch_ms;   /* host clock: the last prepare and fetch */
} sb_session;

/* prepare and upload: the session is ready to sample. */
sb_status sb_session_open(sb_session *s, const sb_case *c, const sb_variant *v, int threads, void *stream,
                          int poison, sb_error *err);
/* One timed run() in milliseconds. */
sb_status sb_session_sample(sb_session *s, int flush_l2, double *ms, sb_error *err);
/* One frame: upload + run + fetch into the session's buffers, host clock. */
sb_status sb_session_frame(sb_session *s, double *ms, sb_error *err);
/* fetch() alone: the output holds the last run's result. */
sb_status sb_session_fetch(sb_session *s, sb_error *err);
/* fetch() and compare with the reference. */
sb_status sb_session_check(sb_session *s, sb_agreement *ag, sb_error *err);
void sb_session_close(sb_session *s);

/* prepare, upload, run and fetch once into `out`, then release; *t (when
 * not NULL) gets the parts' times: setup_ms + frame_ms is one end-to-end
 * sample. */
sb_status sb_run_once(const sb_case *c, const sb_variant *v, int threads, void *stream, void *out, int poison,
                      sb_run_times *t, sb_error *err);

/* The protocol's steps, for the account of where a run's time goes
 * (host clock, each step's whole wall time: launches, L2 flushes and
 * waits included, not only what the samples measure). */
enum { SB_STEP_CHECK, SB_STEP_WARMUP, SB_STEP_TIMED, SB_STEP_FRAMES, SB_STEP_COLD, SB_STEPS };
extern const char *const sb_step_names[SB_STEPS];   /* "check", "warm-up", ... */

/* Why a row's kernel samples stopped (protocol step 3), the worst over its
 * rounds: the noise rule (the median's relative standard error under
 * target_rse), the budget, max_reps, or a slow row's whole runs (step 1). */
typedef enum sb_stop { SB_STOP_NONE, SB_STOP_RULE, SB_STOP_BUDGET, SB_STOP_MAX, SB_STOP_SLOW } sb_stop;
/* "noise", "budget", "max_reps", "slow"; "" for SB_STOP_NONE */
const char *sb_stop_name(sb_stop why);

typedef struct sb_measurement {
    double step_ms[SB_STEPS];  /* this row's wall time in each step */
    sb_stop stopped;           /* why its kernel samples stopped */
    sb_agreement agreement;
    sb_gpu_clocks clocks_start, clocks_end;   /* device rows: around the kernel timing */
    sb_summary kernel, e2e, frame, setup;
    double *kernel_ms, *e2e_ms, *frame_ms, *setup_ms;   /* the samples (owned; free with
                                                             sb_measurement_free) */
    int census_n;              /* kernels in census; -1: not taken (not asked, not a device
                                  row, CUPTI unavailable, or the check could not run) */
    sb_kernel_info census[SB_CENSUS_MAX];
    int rounds;                /* rounds with samples: round_ms's count */
    double round_ms[SB_ROUNDS_CAP];   /* each round's median (a slow row: each run), the
                                  evidence a verdict rests on (evidence.h) */
    double round_spread;       /* the largest |round median / median - 1| */
    double steal;              /* the share of its CPUs' time that other tenants took while
                                  it ran (host_noise.h), -1: not known */
    double slowdown;           /* host rows: how much slower than their best its CPUs ran a
                                  fixed loop around its rounds (host_noise.h), 0: not known */
    double mem_slowdown;       /* slow host rows: how much slower than its best the host's
                                  memory read just before and after each run, 0: not probed */
    double serial_ms;          /* threaded rows: the kernel median of the serial reference
                                  measured beside it in its rounds, 0: not known */
    int works;                 /* the run's work read after each round (a slow row: each run;
                                  sb_output_work): round_work's count; 0: none read, or the
                                  algorithm counts none */
    sb_work work_lo, work_hi;  /* each work count's least and most over those reads */
    double round_work[SB_ROUNDS_CAP];   /* each read's first count (passes, rounds) */
    double round_probe[SB_ROUNDS_CAP];  /* host rows: each round's (a slow row: each run's) cache
                                  probe, the slower of its reads just before and after, ms
                                  (machine/cache_probe.h); round_ms's count */
    int unpaired;              /* host rows paired (paired.h): some sample's neighbour
                                  was not the partner's same sample, so the row's samples do
                                  not pair with the partner's */
} sb_measurement;

/* The work an output holds now, as the read after a round (a slow row's
 * run): where the counts differ between reads, the row's work varied. */
void sb_work_note(sb_measurement *m, const void *out);

/* The whole protocol for one row.  A broken contract is reported in
 * m->agreement, not as an error; errors are failures to run at all. */
sb_status sb_measure(const sb_case *c, const sb_variant *v, int threads, void *stream,
                     const sb_timing_opts *o, sb_measurement *m, sb_error *err);
void sb_measurement_free(sb_measurement *m);

/* Host rows in interleaved rounds (bench: the host rows of one image and
 * stage, docs/measuring.md).  sb_rounds_open checks the row (protocol
 * step 1) and keeps its session; each sb_rounds_next is one round -- the
 * row's CPUs quiet (host_noise.h), a warm-up (the first round's as in
 * step 2, later ones one run and a quarter of warmup_ms), and the round's
 * share of the budget of timed runs (step 3) -- so that rows measured
 * round-robin share every burst of noise; sb_rounds_close checks again and
 * summarises (steps 4, 5) into the measurement, with its rounds' spread.
 * A slow row (its check run, or the serial reference's run, took the
 * budget) has that run as a sample, and where one run takes at most
 * SB_REFERENCE_MEDIAN_OF budgets takes two more, spread over the rounds.
 * sb_measure runs a host row as one round.  On an error from open or
 * next, sb_rounds_release frees the row instead of close. */
enum { SB_ROUNDS = 3, SB_ROUNDS_MAX = 8 };
#define SB_ROUND_UNSTABLE 0.10     /* a round's median this far from the row's: unstable */

typedef struct sb_rounds_row {
    const sb_case *c;
    const sb_variant *v;
    int threads;
    sb_measurement *m;
    sb_host_probes *probes;    /* the caller's (sb_timing_opts): NULL, not probed */
    sb_session s;
    int open;                  /* s holds a prepared session */
    int reference;             /* the serial reference, its case's run its first sample */
    int slow;                  /* one run took the budget: whole runs, no warm-up */
    double first_ms;           /* the check run (or the reference's run) */
    double median_ms;          /* the last round's median */
    int rounds, rounds_done;
    int n;                     /* kernel samples so far */
    int parts;                 /* entries of part_ms */
    double slowdown;           /* the worst sb_host_slowdown around its rounds */
    double mem_slowdown;       /* a slow row: the worst sb_host_memory_slowdown around its runs */
    double part_ms[SB_ROUNDS_CAP];   /* each round's median; a slow row's runs each */
    double part_probe[SB_ROUNDS_CAP];   /* the cache probe around each part (cache_probe.h) */
    sb_stop stopped;           /* the worst reason a round stopped */
    struct sb_paired *pairing;    /* on: its samples taken in turns with the partner's */
    uint64_t key;              /* the row, as the pairing token names it */
    int unpaired;              /* a sample's neighbour was not the partner's same sample */
} sb_rounds_row;

/* The CPUs a host row of `threads` runs on: its own when pinned
 * (placement.h), else every CPU the process may use; returns how many. */
int sb_rounds_cpus(int threads, int *cpus, int max);

sb_status sb_rounds_open(sb_rounds_row *rr, const sb_case *c, const sb_variant *v, int threads, int rounds,
                         const sb_timing_opts *o, sb_measurement *m, sb_error *err);
sb_status sb_rounds_next(sb_rounds_row *rr, const sb_timing_opts *o, sb_error *err);
sb_status sb_rounds_close(sb_rounds_row *rr, sb_error *err);
void sb_rounds_release(sb_rounds_row *rr);

/* Check only (no timing). */
sb_status sb_check_only(const sb_case *c, const sb_variant *v, int threads, void *stream, sb_agreement *ag,
                        sb_error *err);

#endif
