/* quality.h - quality measures of each (stage, image), as CSV.
 *
 * results/<machine-id>/<algo>.quality.csv, one line per measure:
 *     algo,stage,image,width,height,metric,value
 * computed on the reference's output (every variant's output is checked
 * equal to it before it is timed) against the image's ground truth.
 */
#ifndef SEGBENCH_QUALITY_H
#define SEGBENCH_QUALITY_H

#include <stdio.h>

#include "algo.h"

typedef struct sb_quality_row {
    char stage[32], image[128];
    int width, height;
    char metric[48];
    double value;
} sb_quality_row;

typedef struct sb_quality_rows {
    sb_quality_row *row;
    int count, cap;
} sb_quality_rows;

/* Add every measure of q; SB_ERR_NOMEM when out of memory. */
sb_status sb_quality_add(sb_quality_rows *rows, const char *stage, const char *image, int width, int height,
                         const sb_quality *q, sb_error *err);
void sb_quality_free(sb_quality_rows *rows);
sb_status sb_quality_write_csv(const sb_quality_rows *rows, const char *algo, const char *path, sb_error *err);

/* The report's quality tables for one algorithm (nothing when the results
 * have no <algo>.quality.csv). */
void sb_report_quality(FILE *md, const char *results_dir, const sb_algo *algo);

#endif
