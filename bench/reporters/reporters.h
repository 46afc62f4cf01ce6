/* reporters.h - the set of reporters a bench or check run writes
 * through (reporter.h says what one is), and each reporter's maker. */
#ifndef SEGBENCH_REPORTERS_REPORTERS_H
#define SEGBENCH_REPORTERS_REPORTERS_H

#include "io/gallery_index.h"
#include "reporters/csv_log.h"
#include "reporters/reporter.h"

#include <stdio.h>

/* What the run asks of its outputs. */
typedef struct sb_reporters_config {
    int files;                    /* the CSV files and --json (bench); 0: the console alone (check) */
    int census;                   /* <algo>.kernels.csv: a device row's kernels can be observed here */
    int json;                     /* --json */
    int quiet;                    /* --quiet: no row lines, the warnings still */
} sb_reporters_config;

enum { SB_REPORTERS_MAX = 16 };       /* sb_reporters_init adds 11 at most; the reporters test counts them */

typedef struct sb_console_state {
    int quiet;
} sb_console_state;

/* The quality CSV of the algorithm begun, and (a resumed run) its text. */
typedef struct sb_quality_state {
    sb_csv_log log;
    char *text;
} sb_quality_state;

/* gallery/index.tsv, open from the run's beginning to its end. */
typedef struct sb_gallery_state {
    sb_gallery_index index;
    char dir[SB_PATH_MAX];        /* <results>/gallery */
    int open;
} sb_gallery_state;

/* repeat.csv as it is made (written whole as the re-measure ends). */
typedef struct sb_repeat_state {
    FILE *fp;                     /* into text */
    char *text;
    size_t len;
} sb_repeat_state;

/* The stream CSV's rows so far, for the algorithm being streamed. */
typedef struct sb_streams_state {
    sb_stream_row *rows;
    int n, cap;
    int files;                    /* <algo>.stream.csv files written this run */
} sb_streams_state;

typedef struct sb_reporters {
    sb_reporter list[SB_REPORTERS_MAX];
    int n;
    int begun;                    /* how many of them began the current algorithm */
    const char *dir;
    sb_console_state console;
    sb_file_reporter samples, rows, kernels;
    sb_quality_state quality;
    sb_streams_state streams;
    sb_repeat_state repeat;
    sb_gallery_state gallery;
} sb_reporters;

/* The set for cfg, writing under dir (which must outlive it). */
void sb_reporters_init(sb_reporters *rs, const sb_reporters_config *cfg, const char *dir);
/* Every reporter's begin, in order (keep: a resumed run appends). */
sb_status sb_reporters_begin(sb_reporters *rs, const sb_algo *algo, int keep, sb_error *err);
/* One row to every reporter, in order; the first failure stops it. */
sb_status sb_reporters_row(sb_reporters *rs, const sb_row_report *rr, sb_error *err);
/* Every begun reporter's end (finished: the algorithm's rows all
 * reached them); the first failure is returned, every end still runs. */
sb_status sb_reporters_end(sb_reporters *rs, const sb_algo *algo, const sb_rows *measured, int finished,
                           sb_error *err);

/* The run begun (algos: its patterns), its record changed, its end. */
sb_status sb_reporters_run_begin(sb_reporters *rs, const char *algos, sb_error *err);
sb_status sb_reporters_record(sb_reporters *rs, const sb_env *env, sb_error *err);
void sb_reporters_run_end(sb_reporters *rs);
/* A case's gallery lines to every reporter that takes them. */
sb_status sb_reporters_gallery(sb_reporters *rs, const sb_gallery_report *gr, sb_error *err);

/* One stream row to every reporter that takes them, in order; the end
 * of the algorithm's scenes (finished: every stream row came) to each. */
sb_status sb_reporters_stream_row(sb_reporters *rs, const sb_stream_row *row, sb_error *err);
sb_status sb_reporters_streams_end(sb_reporters *rs, const sb_algo *algo, int finished, sb_error *err);
/* The re-measure to every reporter that takes it (reporter.h). */
sb_status sb_reporters_repeat_begin(sb_reporters *rs, const char *kept, sb_error *err);
sb_status sb_reporters_repeat_row(sb_reporters *rs, const sb_repeat_report *rr, sb_error *err);
sb_status sb_reporters_repeat_end(sb_reporters *rs, int finished, sb_error *err);
/* How many <algo>.stream.csv files the run has written. */
int sb_reporters_stream_files(const sb_reporters *rs);

/* A case's quality to every reporter that takes it. */
sb_status sb_reporters_quality(sb_reporters *rs, const sb_quality_report *qr, sb_error *err);
/* Is the case's quality in the resumed run's file already? */
int sb_reporters_quality_known(const sb_reporters *rs, const sb_algo *algo, const char *stage, const char *image);

/* Is a census reporter open for the algorithm begun? */
int sb_reporters_take_census(const sb_reporters *rs);

/* The makers (one file each). */
void sb_console_reporter(sb_reporter *rep, sb_console_state *state);
void sb_samples_reporter(sb_reporter *rep, sb_file_reporter *f);
void sb_rows_csv_reporter(sb_reporter *rep, sb_file_reporter *f);
void sb_kernels_reporter(sb_reporter *rep, sb_file_reporter *f);
void sb_json_reporter(sb_reporter *rep);
void sb_streams_reporter(sb_reporter *rep, sb_streams_state *state);
void sb_quality_reporter(sb_reporter *rep, sb_quality_state *state);
void sb_repeat_reporter(sb_reporter *rep, sb_repeat_state *state);
void sb_record_reporter(sb_reporter *rep);
void sb_catalogue_reporter(sb_reporter *rep);
void sb_gallery_reporter(sb_reporter *rep, sb_gallery_state *state);

/* kernels.c: the census k[0..n) of one row appended to log, each
 * (stage, variant, kernel, block, dynamic shared memory) not in *seen
 * yet (a growing text the caller frees); segbench profile's census
 * writes through it too. */
sb_status sb_kernels_put(FILE *log, char **seen, const char *stage, const char *variant, const char *image,
                         const sb_kernel_info *k, int n, sb_error *err);

#endif
