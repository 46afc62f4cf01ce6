/* compare.h - `segbench compare`'s work: is B faster than A, beyond
 * noise?  Two variants timed interleaved on the same images, or two saved
 * result sets row by row (compare.c says how the verdict is reached). */
#ifndef SEGBENCH_COMPARE_H
#define SEGBENCH_COMPARE_H

#include "cases/select.h"

#include "segbench/error.h"

#define COMPARE_SAMPLES 21
#define COMPARE_MIN_DIFF 0.03
#define COMPARE_ALPHA 0.01

typedef struct compare_opts {
    const char *spec[2];           /* A and B: algo/variant[@threads] */
    sb_image_choice images;        /* A B: --set, --image, --rect */
    const char *algos, *variants, *stages;
    int samples;
    double min_diff, alpha;
    int flush_l2;
    const char *baseline, *current;
    int fail_on_slower;
    const char *export_json, *export_csv;
} compare_opts;

/* The comparison, its table printed as it goes, its verdict, and the
 * exports; SB_ERR_AGREEMENT when a row broke its contract, SB_ERR_SLOWER
 * when B is slower somewhere and fail_on_slower is set. */
sb_status sb_compare_run(const compare_opts *o, sb_error *err);

#endif
