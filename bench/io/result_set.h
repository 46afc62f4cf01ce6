/* result_set.h - what a results/<machine>/ directory is made of, in the
 * words `report` and `compare --baseline` use to warn a reader: a run that
 * did not finish, rows from several runs or commits. */
#ifndef SEGBENCH_RESULT_SET_H
#define SEGBENCH_RESULT_SET_H

#include "io/env_json.h"

#include <stddef.h>

enum { SB_SET_NOTE_MAX = 300, SB_SET_MAX_NOTES = 16 };


typedef struct sb_result_set {
    int finished;               /* env.json says the latest run got to its end */
    int runs;                   /* distinct run ids among the rows */
    int commits;                /* distinct commits among the rows */
    int rows;
    sb_run_info run;
    char notes[SB_SET_MAX_NOTES][SB_SET_NOTE_MAX];   /* one line each, for a reader */
    int nnotes;
} sb_result_set;

/* The published result sets (results_root/published.txt: one machine id
 * a line, the reference machine first).  sb_published_index gives the
 * line of `machine` (0 for the reference), or -1 when it is not listed;
 * sb_published_reference copies the reference's id ("" when none). */
/* The n-th machine id of published.txt (comments and blank lines
 * skipped) into out; 0 when there are not that many. */
int sb_published_at(const char *results_root, int n, char *out, size_t size);
int sb_published_index(const char *results_root, const char *machine);
void sb_published_reference(const char *results_root, char *out, size_t size);
/* results_root/<the reference machine>: the set whose numbers lessons and
 * grades quote when not told otherwise. */
void sb_reference_results_dir(const char *results_root, char *out, size_t size);

/* Survey dir (never fails: what cannot be read becomes a note). */
void sb_result_set_survey(const char *dir, sb_result_set *rs);

/* "commit abc1234, run R" of the rows of one algorithm's CSV, or
 * "commits a, b (runs R1, R2)" when they differ. */
void sb_result_set_provenance(const char *csv_path, char *out, size_t size);

#endif
