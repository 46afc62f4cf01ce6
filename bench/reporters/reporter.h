/* reporter.h - where a row goes once the run has it: one interface, one
 * file a format.
 *
 * The run (bench/run/) measures; it hands each row it finishes, and each
 * algorithm's beginning and end, to a set of reporters, and formats
 * nothing itself.  A reporter is three calls and its own state:
 *
 *   record.c    env.json: the machine and the run, rewritten as its record changes
 *   catalogue.c variants.tsv: the variants the set is measured with
 *   gallery.c   gallery/index.tsv: each case's pictures and captions
 *   console.c   the row's line on stdout (measured, checked only, or
 *               skipped) and its noise warnings on stderr
 *   samples.c   <algo>.samples.csv: every raw sample of the row
 *   rows_csv.c  <algo>.csv: the row
 *   kernels.c   <algo>.kernels.csv: the kernel census of a device row
 *   json.c      --json: <algo>.json, written from the two CSVs as the
 *               algorithm ends (so a resumed run's rows are in it too)
 *   quality.c   <algo>.quality.csv: each case's quality measures
 *   repeat.c    repeat.csv: the summary rows measured again at the end
 *   streams.c   <algo>.stream.csv: the algorithm's stream rows, written
 *               whole once its scenes are done (the console prints each)
 *
 * The set (reporters.c) calls them in that order -- a row's samples reach
 * their file before the row does, so a row in the file always has its
 * samples (what a kill leaves between the two, --resume drops) -- and
 * stops at the first that fails: a row not written is a run that stops.
 * A new format is a new file here and one line in reporters.c
 * (Google Benchmark's BenchmarkReporter, hyperfine's exporters). */
#ifndef SEGBENCH_REPORTERS_REPORTER_H
#define SEGBENCH_REPORTERS_REPORTER_H

#include "variants/algo.h"
#include "algos/pictures.h"
#include "io/rows.h"
#include "io/stream_rows.h"
#include "machine/env.h"

#include "segbench/device.h"
#include "segbench/error.h"
#include "segbench/variant.h"

/* What became of a planned row. */
typedef enum sb_row_kind {
    SB_ROW_MEASURED,              /* checked and timed: row holds it */
    SB_ROW_CHECKED,               /* checked only (segbench check): verdict and metric */
    SB_ROW_SKIPPED                /* could not be taken here: why, detail */
} sb_row_kind;

/* One finished row, as every reporter sees it. */
typedef struct sb_row_report {
    sb_row_kind kind;
    const sb_algo *algo;
    const char *stage;
    const sb_variant *v;
    int threads;
    const char *image;
    const char *label;            /* "integral sum pthread t2 fruits", for warnings */
    const sb_row *row;            /* MEASURED: the row and its samples */
    const char *verdict, *metric; /* CHECKED: the agreement */
    const char *why, *detail;     /* SKIPPED */
    const sb_kernel_info *census; /* the kernels the row launched, or NULL */
    int census_n;
    int noise;                    /* MEASURED: its noise flags (compare/noise.h) */
    double serial_ms;             /* the serial reference's run on the case, 0 unknown */
    double host_peak_1, host_peak;/* the host's copy rate at 1 thread and at the row's */
} sb_row_report;

/* A case's quality measures (its reference's output against the truth). */
typedef struct sb_quality_report {
    const sb_algo *algo;
    const char *stage, *image;
    int width, height;
    const sb_quality *quality;
} sb_quality_report;

/* A row measured again at the end of the run, beside its first time. */
typedef struct sb_repeat_report {
    const sb_row *first;          /* as the run first measured it */
    double again_median_ms;
    int again_n;
    double ratio;                 /* again over first */
    int within;                   /* within 10 % */
    const char *machine;          /* the machine id of the run (the row's own provenance: its run id,
                                     commit and date) */
} sb_repeat_report;

/* A case's gallery pictures, made as it opened: "file<TAB>caption" lines. */
typedef struct sb_gallery_report {
    const sb_algo *algo;
    const char *image;
    const sb_gallery_album *album;   /* the case's pictures, encoded (algos/pictures.h) */
} sb_gallery_report;

typedef struct sb_reporter sb_reporter;
struct sb_reporter {
    const char *name;
    /* The run: begun (algos: the patterns it measures), and its record
     * (env.json's machine and run) each time it changes. */
    sb_status (*run_begin)(sb_reporter *self, const char *dir, const char *algos, sb_error *err);
    sb_status (*record)(sb_reporter *self, const char *dir, const sb_env *env, sb_error *err);
    /* The run's end, however it ended: whatever stays open, closed. */
    sb_status (*run_end)(sb_reporter *self, const char *dir, sb_error *err);
    /* The algorithm's outputs opened; keep: a resumed run appends to what
     * this run already wrote.  NULL: nothing to open. */
    sb_status (*begin)(sb_reporter *self, const char *dir, const sb_algo *algo, int keep, sb_error *err);
    sb_status (*row)(sb_reporter *self, const sb_row_report *rr, sb_error *err);
    /* A case's gallery pictures, in the cases' order. */
    sb_status (*gallery)(sb_reporter *self, const sb_gallery_report *gr, sb_error *err);
    /* A case's quality, in the cases' order. */
    sb_status (*quality)(sb_reporter *self, const sb_quality_report *qr, sb_error *err);
    /* The algorithm done (finished: all its rows reached the reporters;
     * measured: the rows this invocation measured of it, or NULL); its
     * outputs closed.  Called after every begin, whatever happened. */
    sb_status (*end)(sb_reporter *self, const char *dir, const sb_algo *algo, const sb_rows *measured, int finished,
                     sb_error *err);
    /* The stream rows, after the algorithm's rows: each as it is
     * measured, then the end of the algorithm's scenes (finished: all
     * its stream rows came).  NULL: not this reporter's. */
    sb_status (*stream_row)(sb_reporter *self, const sb_stream_row *row, sb_error *err);
    sb_status (*streams_end)(sb_reporter *self, const char *dir, const sb_algo *algo, int finished, sb_error *err);
    /* The re-measure at the run's end: begun (kept: repeat.csv's lines of
     * the set's other algorithms, from before), a row, ended. */
    sb_status (*repeat_begin)(sb_reporter *self, const char *kept, sb_error *err);
    sb_status (*repeat_row)(sb_reporter *self, const sb_repeat_report *rr, sb_error *err);
    sb_status (*repeat_end)(sb_reporter *self, const char *dir, int finished, sb_error *err);
    void *state;
};

#endif
