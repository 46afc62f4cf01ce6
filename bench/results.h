/* results.h - the rows of a benchmark run, as CSV.
 *
 * results/<machine-id>/<algo>.csv holds one row per (stage, variant,
 * threads, image) with the summaries; <algo>.samples.csv beside it holds
 * every raw sample, so a later `segbench compare` can test against this
 * run as a baseline.  Both are written atomically.
 */
#ifndef SEGBENCH_RESULTS_H
#define SEGBENCH_RESULTS_H

#include "segbench/error.h"
#include "segbench/stats.h"

typedef struct sb_row {
    char algo[32], stage[32], variant[48], backend[32];
    int threads;
    char image[128];
    int width, height;
    sb_summary kernel, e2e;
    double bytes;            /* the stage's byte floor */
    double gbps;             /* bytes / kernel median */
    double peak_fraction;    /* gbps / the measured copy bandwidth it runs on */
    char agreement[16];      /* exact, within, FAIL */
    char metric[240];
    double *kernel_ms, *e2e_ms;   /* raw samples, or NULL */
} sb_row;

typedef struct sb_rows {
    sb_row *row;
    int count, cap;
} sb_rows;

sb_row *sb_rows_add(sb_rows *rows);      /* NULL when out of memory */
void sb_rows_free(sb_rows *rows);

sb_status sb_rows_write_csv(const sb_rows *rows, const char *path, sb_error *err);
sb_status sb_rows_write_samples(const sb_rows *rows, const char *path, sb_error *err);
sb_status sb_rows_read_csv(const char *path, sb_rows *rows, sb_error *err);
/* Attach the samples in `path` to the matching rows (missing file: error). */
sb_status sb_rows_read_samples(const char *path, sb_rows *rows, sb_error *err);

/* Rows are identified by (algo, stage, variant, threads, image). */
int sb_row_same_key(const sb_row *a, const sb_row *b);

#endif
