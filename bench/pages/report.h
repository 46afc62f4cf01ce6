/* report.h - what the report offers the rest of segbench: `segbench
 * report` over result sets, the speedup tables bench prints after each
 * algorithm, and report/MACHINES.md. */
#ifndef SEGBENCH_REPORT_H
#define SEGBENCH_REPORT_H

#include "variants/algo.h"
#include "io/rows.h"
#include "base/files.h"
#include "compare/history.h"

#include <stdio.h>

/* Write the speedup tables of `rows` for one algorithm (markdown). */
void sb_report_speedup_tables(const sb_rows *rows, const sb_algo *algo, FILE *fp);
/* The whole-process table from results_dir/cli.json, when there is one (report_cli.c). */
void sb_report_cli(FILE *md, const char *results_dir);
/* report/MACHINES.md: the result sets in dirs (under results_root) side by
 * side, compared with `baseline` (NULL: the reference machine of
 * results_root/published.txt, else the first), and, when tasks_path is not
 * NULL, the cluster tasks it lists (slurm-tasks.tsv: task, target, node,
 * machine, status, detail) (report_machines.c). */
sb_status sb_report_machines(char dirs[][SB_PATH_MAX], int ndirs, const char *results_root, const char *baseline,
                             const char *out_path, const char *tasks_path, sb_error *err);
/* `report --results DIR`: report/<DIR's name>/ (or `out`) and, without
 * `out`, report/MACHINES.md; no other machine's report is touched. */
sb_status sb_report_result_set(const char *results, const char *out, const char *baseline, sb_error *err);

/* `segbench report`: every result set under root, each to
 * out/<name>/ (out NULL: report/), and MACHINES.md beside them. */
sb_status sb_report_all(const char *root, const char *out, const char *baseline, sb_error *err);

/* A class's leaderboard page at md_path (and its plot beside it, named
 * after it): the rows of exercise `variant` ("ALGO/student-RUNG") graded
 * with `seed` in the class CSV, each student's last, best first. */
sb_status report_leaderboard(const char *csv, const char *variant, unsigned long long seed, const char *md_path,
                             sb_error *err);
/* out_dir/history.md (and its plots in out_dir/plots/): each stage and
 * image's fastest variant over the history h, its steps and their causes
 * (report_history.c); title names the set ("results/h200/"), source where
 * the history came from ("git"), floors the noise floors it was judged by. */
sb_status sb_report_history(const sb_history *h, const char *title, const char *source, const char *floors,
                            const char *out_dir, sb_error *err);

#endif
