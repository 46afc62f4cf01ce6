/* commands.h - the segbench subcommands and what they share. */
#ifndef SEGBENCH_COMMANDS_H
#define SEGBENCH_COMMANDS_H

#include "harness/dataset.h"
#include "cli/options.h"
#include "harness/registry.h"
#include "io/results.h"

/* The commands, each with its option table (defined beside its code). */
extern const sb_command sb_cmd_list, sb_cmd_run, sb_cmd_bench, sb_cmd_check, sb_cmd_compare, sb_cmd_env,
    sb_cmd_report, sb_cmd_profile, sb_cmd_lesson, sb_cmd_exercise, sb_cmd_grade;

/* Every command, in the order `segbench help` lists them (cmd_common.c):
 * main dispatches from it and the tests check every entry's help. */
extern const sb_command *const SB_COMMANDS[];
extern const int SB_COMMAND_COUNT;

sb_status cmd_list(int argc, char **argv, sb_error *err);
sb_status cmd_run(int argc, char **argv, sb_error *err);
sb_status cmd_bench(int argc, char **argv, sb_error *err);
sb_status cmd_check(int argc, char **argv, sb_error *err);
sb_status cmd_compare(int argc, char **argv, sb_error *err);
sb_status cmd_env(int argc, char **argv, sb_error *err);
sb_status cmd_report(int argc, char **argv, sb_error *err);
sb_status cmd_profile(int argc, char **argv, sb_error *err);
sb_status cmd_lesson(int argc, char **argv, sb_error *err);
sb_status cmd_exercise(int argc, char **argv, sb_error *err);
sb_status cmd_grade(int argc, char **argv, sb_error *err);

/* --set NAME or the given files; files win when both are given.  rect: the
 * --rect for the files (NULL: each file's default rectangle); with a set it
 * is refused (a set's rectangles are in its manifest). */
sb_status sb_select_images(const char *set, char *const *files, int nfiles, const int *rect, sb_dataset *ds,
                           sb_error *err);
/* Does bench time the algorithm on this image: usable by it, within its
 * bench size (unless size_caps is 0) and the memory budget? */
int sb_bench_takes_image(const sb_algo *algo, const sb_dataset_image *im, int size_caps);
/* The image the report's summary shows the algorithm at: the largest one
 * bench times, synthetic images first (NULL: none). */
const sb_dataset_image *sb_summary_image(const sb_dataset *ds, const sb_algo *algo, int size_caps);

/* --rect X,Y,W,H */
sb_status sb_parse_rect(const char *value, int rect[4], sb_error *err);

/* 1, 2, 4, ... up to the online core count, and the core count itself. */
int sb_default_threads(int *threads, int max);

/* One warning line when `threads` is above the online core count: times
 * of an oversubscribed variant measure the scheduler as much as the code. */
void sb_warn_oversubscribed(const char *what, int threads);

/* Parse "algo/variant" or "algo/variant@threads". */
sb_status sb_parse_variant_spec(const char *spec, const sb_variant **v, int *threads, sb_error *err);

/* Write the speedup tables of `rows` for one algorithm (markdown). */
void sb_report_speedup_tables(const sb_rows *rows, const sb_algo *algo, FILE *fp);
/* The whole-process table from results_dir/cli.json, when there is one (report_cli.c). */
void sb_report_cli(FILE *md, const char *results_dir);
/* report/MACHINES.md: the result sets in dirs (under results_root) side by
 * side, compared with `baseline` (NULL: the reference machine of
 * results_root/published.txt, else the first), and, when tasks_path is not
 * NULL, the cluster tasks it lists (slurm-tasks.tsv: task, target, node,
 * machine, status, detail) (report_machines.c). */
sb_status sb_report_machines(char dirs[][1200], int ndirs, const char *results_root, const char *baseline,
                             const char *out_path, const char *tasks_path, sb_error *err);
/* `report --results DIR`: report/<DIR's name>/ (or `out`) and, without
 * `out`, report/MACHINES.md; no other machine's report is touched. */
sb_status sb_report_result_set(const char *results, const char *out, const char *baseline, sb_error *err);

#endif
