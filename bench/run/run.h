/* run.h - a `bench` (or `check`) run as a pipeline, in the order its data
 * flows.  cli/cmd_bench.c fills sb_bench_opts from the command line and
 * hands it to sb_bench_run; the steps live one file each:
 *
 *   start.c     the results folder, its lock, the run id (or the run
 *               being resumed), the machine's bandwidth ceilings
 *   plan.c      which rows each (image, stage) takes, and how many in all
 *   case.c      per algorithm, per image, per stage: the serial reference
 *               once (a case), then every planned row against it: the
 *               GPU rows as the cases open, the host rows after them
 *   ahead.c     a batch's cases opened in order, on threads of their own
 *               beside the GPU rows (--ahead)
 *   row.c       one row: checked, timed, flagged, appended to the files
 *   rounds.c    a case's host rows, timed in interleaved rounds
 *   repeat.c    the summary image's rows measured again at the end
 *   files.c     the algorithm's append logs, env.json, --json
 *   pictures.c  the gallery and the quality of the reference's output
 *   account.c   progress, failures, and where the time went
 *   census.c    <algo>.kernels.csv, the kernel census of device rows
 *   streams.c   the stream rows: each scene of the set, frames in flight,
 *               into <algo>.stream.csv (measure/stream.h)
 *   run.c       the steps above, in order
 *
 * single.c is the other run: `segbench run ALGO IN OUT`, one variant on one
 * image file, its output written (single.h).
 *
 * Which images and stages a run takes is cases/select.h; how one row is
 * measured is measure/measure.h. */
#ifndef SEGBENCH_RUN_H
#define SEGBENCH_RUN_H

#include "measure/measure.h"
#include "cases/select.h"

#include "segbench/error.h"

enum { SB_RUN_THREAD_COUNTS = 16 };
enum { SB_REPEAT_AUTO, SB_REPEAT_ON, SB_REPEAT_OFF };
enum { SB_STREAM_ON, SB_STREAM_OFF, SB_STREAM_ONLY };
enum { SB_AHEAD_AUTO, SB_AHEAD_ON, SB_AHEAD_OFF };

/* What one bench or check run does: the command line, parsed. */
typedef struct sb_bench_opts {
    int check_only;               /* check: agreement only, time nothing, write nothing */
    sb_image_choice images;       /* --set, --image, --rect */
    const char *algos, *variants, *stages;   /* comma lists of patterns, NULL = all */
    int threads[SB_RUN_THREAD_COUNTS], nthreads;
    int sweep_all;                /* sweep threads on every image and stage, not only the marked image */
    int resume;
    int json;                     /* also write <algo>.json */
    int wait;                     /* wait for the results folder's lock */
    int overwrite;                /* write into a published result set */
    int report;                   /* then report on the run */
    int no_size_caps;             /* bench: measure images above an algorithm's bench size too */
    sb_timing_opts timing;
    int rounds;                   /* host rows: interleaved rounds (measure.h); 1: one row at a time */
    int pin;                      /* host threads pinned (segbench/placement.h) */
    int repeat;                   /* SB_REPEAT_*: measure a sample again at the end (repeat.c) */
    int stream;                   /* SB_STREAM_*: the stream rows too, not, or alone (streams.c) */
    double stream_seconds;        /* each stream row's timed pass (measure/stream.h: min_seconds) */
    double host_limit_s;          /* > 0: leave out a host row (and a host stream row) one run of
                                     which is predicted to take longer (plan.c); 0: none */
    int ahead;                    /* SB_AHEAD_*: the next serial references beside the GPU rows (case.c) */
    const char *results_dir;      /* NULL: results/<machine-id> */
    int quiet;
} sb_bench_opts;

/* The whole run; SB_ERR_AGREEMENT when a row broke its contract (after
 * every file is written). */
sb_status sb_bench_run(const sb_bench_opts *o, sb_error *err);

#endif
