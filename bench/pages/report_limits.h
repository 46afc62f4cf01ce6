/* report_limits.h - each stage's limit (a memory floor and an issue floor),
 * its fastest GPU rung's distance to it ("x limit"), what bounds that rung
 * (a sentence read from its Nsight Compute profile), and each algorithm's
 * roofline (report_limits.c says how each is derived). */
#ifndef SEGBENCH_REPORT_LIMITS_H
#define SEGBENCH_REPORT_LIMITS_H

#include "pages/report_parts.h"
#include "profile/limits.h"

#include "io/rows.h"
#include "variants/algo.h"

#include <stdio.h>

/* "1.78x (memory)", or "-". */
void report_limit_cell(const stage_limit *lim, char *out, size_t size);

/* REPORT.md's limits table: header, a row per stage, what it means. */
void report_limits_header(FILE *md);
void report_limits_row(FILE *md, const char *algo, const stage_limit *lim);
void report_limits_legend(FILE *md);

/* One summary row per stage of one algorithm (markdown table rows), with
 * its x limit from the profile p (may be empty). */
void report_summary_rows(FILE *fp, const sb_rows *rows, const sb_algo *algo, double copy_gbps,
                         const profile_set *p, const struct stream_set *streams);

/* The algorithm page's roofline: every profiled rung a point (nothing
 * without a profile). */
sb_status report_roofline(plot_ctx *pc, const char *algo, const sb_rows *rows, const profile_set *p,
                          int sm_count, FILE *md, sb_error *err);

#endif
