/* single.h - `segbench run ALGO IN OUT`: one variant on one image file,
 * checked against the reference, its output written as a picture
 * (atomically, all outputs or none), the time on stderr.  cli/cmd_run.c
 * parses the command line into sb_single_request. */
#ifndef SEGBENCH_SINGLE_H
#define SEGBENCH_SINGLE_H

#include "base/options.h"

#include "segbench/error.h"

enum { SB_SINGLE_ALGO_OPTIONS = 16 };

/* One `segbench run`, as its arguments ask. */
typedef struct sb_single_request {
    const char *pos[3];                 /* ALGO IN OUT */
    int threads, threads_given;
    const char *variant_name, *stage_name, *labels_path;
    char keys[SB_SINGLE_ALGO_OPTIONS][64];   /* the algorithm's own options (--k 16) */
    const char *values[SB_SINGLE_ALGO_OPTIONS];
    int nkeys;
    const sb_option *own_options;       /* run's own options, for "did you mean" */
    int own_count;
} sb_single_request;

sb_status sb_run_single(const sb_single_request *q, sb_error *err);

#endif
