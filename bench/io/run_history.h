/* run_history.h - a machine's runs of record over time: every commit of
 * git history that changed results/<machine>/ (the published sets are
 * committed, each bench of some algorithms a commit), or folders of
 * result sets a user kept, each read as the rows it held then.  Readers
 * (compare/history.c) see one snapshot at a time, oldest first. */
#ifndef SEGBENCH_IO_RUN_HISTORY_H
#define SEGBENCH_IO_RUN_HISTORY_H

#include "io/env_json.h"
#include "io/rows.h"

#include "segbench/error.h"

/* One point of the history: a commit, or a folder. */
typedef struct sb_history_snap {
    char commit[48];          /* the git commit, in full ("" for a folder) */
    char label[80];           /* its short name (12 digits), or the folder as given */
    char date[32];            /* the commit's date (ISO 8601), or its env.json's */
    sb_run_info run;          /* env.json there: machine, GPU ("?" where none) */
    char driver[24];          /* env.json's cuda_driver_version there ("?" where none) */
} sb_history_snap;

/* The rows of one algorithm's CSV at a snapshot. */
typedef struct sb_history_csv {
    const char *algo;
    sb_rows rows;
} sb_history_csv;

/* Called once a snapshot with the CSVs that changed there (at the first:
 * every one there was); the rows are the walker's, freed after. */
typedef sb_status (*sb_history_visit)(void *ctx, const sb_history_snap *snap, const sb_history_csv *csv, int ncsv,
                                      sb_error *err);

/* results_root/machine/ over git history, run from the repository (the
 * paths are the working folder's): each commit that changed a file there,
 * oldest first, and last the folder as it is now where it holds what no
 * commit does yet (a run not yet committed: label "working tree"); the
 * last `last` of them (0: all).  Refused in one line when git has none
 * (no repository, no commit, a folder never committed). */
sb_status sb_history_walk_git(const char *results_root, const char *machine, int last, sb_history_visit visit,
                              void *ctx, sb_error *err);

/* Folders of result sets in the order given, each with every <algo>.csv
 * it holds.  A folder that is not a result set is refused. */
sb_status sb_history_walk_sets(const char *const *dirs, int n, sb_history_visit visit, void *ctx, sb_error *err);

#endif
