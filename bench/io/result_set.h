/* result_set.h - what a results/<machine>/ directory is made of, in the
 * words `report` and `compare --baseline` use to warn a reader: a run that
 * did not finish, rows from several runs or commits. */
#ifndef SEGBENCH_RESULT_SET_H
#define SEGBENCH_RESULT_SET_H

#include <stddef.h>

enum { SB_SET_NOTE_MAX = 300, SB_SET_MAX_NOTES = 16 };

/* What env.json says of the run that wrote a result set. */
typedef struct sb_run_info {
    char machine_id[96], set[64];
    char run_id[48];          /* "?" when env.json predates run ids */
    char commit[64];          /* with "-dirty" when the tree had changes */
    char options[400], algos[400];
    char finished[16];        /* "true", "false", or "?" */
    char planned[16], measured[16];
} sb_run_info;

/* Read dir/env.json; 0 (and "?" everywhere) when it cannot be read. */
int sb_run_info_read(const char *dir, sb_run_info *ri);

typedef struct sb_result_set {
    int finished;               /* env.json says the latest run got to its end */
    int runs;                   /* distinct run ids among the rows */
    int commits;                /* distinct commits among the rows */
    int rows;
    sb_run_info run;
    char notes[SB_SET_MAX_NOTES][SB_SET_NOTE_MAX];   /* one line each, for a reader */
    int nnotes;
} sb_result_set;

/* Survey dir (never fails: what cannot be read becomes a note). */
void sb_result_set_survey(const char *dir, sb_result_set *rs);

/* "commit abc1234, run R" of the rows of one algorithm's CSV, or
 * "commits a, b (runs R1, R2)" when they differ. */
void sb_result_set_provenance(const char *csv_path, char *out, size_t size);

#endif
