/* rows.h - the rows of a benchmark run, as CSV.
 *
 * results/<machine-id>/<algo>.csv holds one row per (stage, variant,
 * threads, image) with the summaries, and the commit, date and run id that
 * measured it; <algo>.samples.csv beside it holds every raw sample, so a
 * later `segbench compare` can test against this run as a baseline.
 *
 * `bench` appends each row to both files as soon as it is measured
 * (sb_csv_log): its sample lines first, each naming the run, then the row,
 * so a row in the file has its samples.  A run that is stopped or killed
 * keeps every finished row, and `bench --resume` carries on from there
 * after sb_results_repair has dropped what a kill or a full disk left
 * half-done.  A record cut off in the middle is dropped by every reader.
 */
#ifndef SEGBENCH_RESULTS_H
#define SEGBENCH_RESULTS_H

#include "base/csv.h"

#include "base/files.h"

#include "segbench/error.h"
#include "segbench/stats.h"

#include <stdio.h>

typedef struct sb_row {
    char algo[32], stage[32], variant[48], backend[32];
    int threads;
    char image[128];
    int width, height;
    sb_summary kernel, e2e;  /* run() alone; a whole cold run (setup + one frame) */
    sb_summary frame, setup; /* upload + run + fetch into existing buffers; prepare
                                (n = 0 in files older than these columns) */
    double bytes;            /* the stage's byte floor */
    double gbps;             /* bytes / kernel median */
    double peak_fraction;    /* gbps / the measured copy bandwidth it runs on */
    char agreement[16];      /* exact, within, FAIL */
    char metric[240];
    char commit[64];         /* the commit that measured it ("unknown" in old files) */
    char date[32];           /* UTC, ISO 8601 */
    char run_id[48];         /* the bench run that measured it */
    char flags[64];          /* noise warnings, ';'-separated: spread, over_peak, throttled, ... (noise.h) */
    int sm_mhz[2], mem_mhz[2];   /* device rows: GPU clocks just before and after the timed runs (0: unknown) */
    char clock_reasons[64];  /* the throttling reasons seen then ("sw_power_cap"), or "" (gpu_clocks.h) */
    int rounds;              /* the rounds (a slow host row: runs) its median is over: host
                                rows interleaved, device rows each on a fresh session; 0: a
                                device row of a file before device rounds, or older */
    double round_spread;     /* the largest |round median / median - 1| */
    double steal;            /* the share of its CPUs' time taken by other tenants while its
                                rounds ran; -1: not known */
    double cpu_slowdown;     /* how much slower than their best its CPUs ran a fixed loop
                                around its rounds (machine/host_noise.h); 0: not known */
    double mem_slowdown;     /* a slow row (runs of the budget or more): how much slower than
                                its best the host's memory read around its runs; 0: not probed */
    char stopped[12];        /* why its kernel samples stopped: noise, budget, max_reps, slow (measure.h); "": not known */
    char code_id[24];        /* the code identity of the variant that ran (base/code_id.h);
                                "": a file older than this column (io/code_ids.h finds it from git) */
    double *kernel_ms, *e2e_ms, *frame_ms, *setup_ms;   /* raw samples, or NULL */
    char work[64];           /* the work its runs did, where the algorithm counts it ("passes
                                13", "rounds 410..415, relabels 14": a range where its rounds
                                differed; variants/outputs.h); "": none counted, or an older file */
    double *round_ms;        /* each round's kernel median (the samples file's "round" line),
                                the evidence of a verdict (measure/evidence.h); or NULL */
    int nround;              /* its count */
    double *round_work;      /* each round's first work count (the samples file's "work"
                                line), or NULL */
    int nwork;               /* its count */
    double *round_probe;     /* host rows: each round's cache probe, the slower of its reads
                                just before and after the round's runs, ms (the samples
                                file's "probe" line; machine/cache_probe.h), or NULL */
    int nprobe;              /* its count */
} sb_row;

struct sb_catalogue;
typedef struct sb_rows {
    sb_row *row;
    int count, cap;
    const struct sb_catalogue *catalogue;   /* the variants they were measured with (io/catalogue.h),
                                               not owned; NULL: this binary's */
} sb_rows;

sb_row *sb_rows_add(sb_rows *rows);      /* NULL when out of memory */
void sb_rows_free(sb_rows *rows);

extern const char *const SB_ROWS_CSV_HEADER;
extern const char *const SB_SAMPLES_CSV_HEADER;

/* One row as a line of <algo>.csv / <algo>.samples.csv (no header). */
void sb_row_put_csv(FILE *fp, const sb_row *r);
void sb_row_put_samples(FILE *fp, const sb_row *r);

sb_status sb_rows_write_csv(const sb_rows *rows, const char *path, sb_error *err);
sb_status sb_rows_write_samples(const sb_rows *rows, const char *path, sb_error *err);
/* The rows with their samples as JSON: {"rows": [{..., "kernel": {..., "samples_ms": [...]}}]}. */
sb_status sb_rows_write_json(const sb_rows *rows, const char *path, sb_error *err);
sb_status sb_rows_read_csv(const char *path, sb_rows *rows, sb_error *err);
/* sb_rows_read_csv without the rows of students' rungs (variants/registry.h,
 * SB_STUDENT_PREFIX): what the report, the lessons and make profile's
 * choice of rungs read, since those rows are no rungs of the ladders.
 * *students (NULL: not wanted) gets how many were left out. */
sb_status sb_rows_read_ladders(const char *path, sb_rows *rows, int *students, sb_error *err);
/* Attach the samples in `path` to the matching rows (missing file: error).
 * A sample line that names a run attaches only to that run's row. */
sb_status sb_rows_read_samples(const char *path, sb_rows *rows, sb_error *err);

/* What reading a samples file left unattached. */
typedef struct sb_samples_tally {
    int foreign;         /* lines of another run (or of none, when one is required) */
    int orphans;         /* lines whose row is not in the rows file */
    int duplicates;      /* a second line of one row and kind */
    int cut_off;         /* a last line without its end */
} sb_samples_tally;

typedef struct sb_repair {
    int rows_dropped;    /* rows of the run that lacked some of their samples */
    int lines_dropped;   /* sample lines of no kept row */
} sb_repair;

/* Before `bench --resume` appends to a run's files: keep the rows of
 * run_id that have all their samples (into *kept, with the samples),
 * rewrite both files to hold just those when anything else was found
 * (samples file first), and say what was dropped. */
sb_status sb_results_repair(const char *rows_path, const char *samples_path, const char *run_id, sb_rows *kept,
                            sb_repair *what, sb_error *err);

/* Rows are identified by (algo, stage, variant, threads, image). */
int sb_row_same_key(const sb_row *a, const sb_row *b);

/* The marks a reader needs beside a row's time, from its samples and its
 * flags column (compare/noise.h): " \u2020" measured once or twice, " \u2021"
 * noisy (spread, over the host peak, a cold run below a frame), " \u00a7"
 * unstable (its rounds disagreed, or steal); "" none.  NULL row: "". */
const char *sb_row_marks(const sb_row *r);
int sb_row_unstable(const sb_row *r);
/* A ratio of two rows (a speed-up) is as good as the worse of them: " \u00a7"
 * when either is unstable, else "". */
const char *sb_ratio_mark(const sb_row *a, const sb_row *b);

/* An append-only CSV file that lines are added to as they are made.
 * keep = 0 starts it afresh (atomically: the old file is replaced by one
 * holding just the header); keep = 1 keeps its complete lines, drops a
 * line cut off by a kill, and appends after them (a missing file is
 * started afresh).  Each sb_csv_log_line call reaches the file before it
 * returns. */
typedef struct sb_csv_log {
    FILE *fp;
    char path[SB_PATH_MAX];
} sb_csv_log;

sb_status sb_csv_log_open(sb_csv_log *log, const char *path, const char *header, int keep, sb_error *err);
sb_status sb_csv_log_flush(sb_csv_log *log, sb_error *err);
void sb_csv_log_close(sb_csv_log *log);

#endif
