/* limits.h - each stage's limit (a memory floor and an issue floor), its
 * fastest GPU rung's distance to it ("x limit"), and what bounds that rung
 * (a sentence read from its Nsight Compute profile, <algo>.profile.csv):
 * what the report prints and the grader judges against (limits.c says
 * how each is derived). */
#ifndef SEGBENCH_LIMITS_H
#define SEGBENCH_LIMITS_H

#include "variants/algo.h"
#include "io/rows.h"

/* One line of <algo>.profile.csv (bench/profile/ncu_import.h). */
typedef struct profile_line {
    char stage[32], variant[48], image[128], kernel[128];   /* kernel "(all)": the region's totals */
    int launches;
    double duration_ms, dram_bytes, dram_fraction, l2_pct, issue_pct, occupancy_pct;
    double warp_insts, sm_mhz, issue_floor_ms, top_stall_pct;
    char top_stall[48], commit[64], run_id[48];
    char code_id[24];          /* the profiled variant's code identity ("": a file older than the column) */
} profile_line;

typedef struct profile_set {
    profile_line *line;
    int count;
} profile_set;

/* results_dir/<algo>.profile.csv; 0 (and an empty profile) when there is none. */
int profile_read(const char *results_dir, const char *algo, profile_set *p);
void profile_free(profile_set *p);
/* The "(all)" line of one profiled run, or NULL. */
const profile_line *profile_total(const profile_set *p, const char *stage, const char *variant,
                                  const char *image);

typedef struct stage_limit {
    const sb_row *top;             /* the stage's fastest GPU row at the summary image (NULL: none) */
    const profile_line *prof;      /* its profile, or NULL */
    double mem_ms, issue_ms;       /* the two floors (issue: 0 without a profile) */
    double limit_ms, x;            /* the larger floor; kernel median over it */
    char floor[8];                 /* which floor is the limit: "memory" or "issue" */
    char kind[16];                 /* what bounds the rung: memory, issue, latency, launches, no profile */
    char bound[400];               /* ... in a sentence */
} stage_limit;

void stage_limit_compute(const sb_row *top, double copy_gbps, const profile_set *p, stage_limit *out);
/* The limit of one stage of an algorithm: its fastest CUDA rung at the
 * summary image (report_summary.c). */
void stage_limit_of(const sb_rows *rows, const sb_algo *algo, int stage, double copy_gbps,
                    const profile_set *p, stage_limit *lim);
/* The limit of one stage at `image` on another GPU: the larger of the
 * memory floor (algo's bytes at copy_gbps) and the issue floor of the
 * stage's fastest rung in the result set results_dir (its profiled warp
 * instructions at sm_count SMs' full issue rate, 4 a cycle at sm_mhz) --
 * the report's limit, moved to that GPU.  *issue_ms is 0 where the set has
 * no row or profile of that stage at that image.  Returns the limit in ms. */
double stage_limit_on(const char *results_dir, const sb_algo *algo, int stage, const char *image,
                      double bytes, double copy_gbps, int sm_count, double sm_mhz, double *issue_ms);
#endif
