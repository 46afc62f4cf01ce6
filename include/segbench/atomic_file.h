/* atomic_file.h - write a file completely or not at all.
 *
 * sb_atomic_open creates "<dir>/.<name>.tmp.<pid>.XXXXXX" beside the target;
 * sb_atomic_commit flushes, closes and renames it over the target;
 * sb_atomic_abort closes and deletes it.  Readers never see a half-written
 * file, and a failed run leaves no partial output.
 */
#ifndef SEGBENCH_ATOMIC_FILE_H
#define SEGBENCH_ATOMIC_FILE_H

#include <stdio.h>
#include <time.h>

#include "segbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_atomic_file {
    FILE *fp;
    char tmp_path[4096];
    char path[4096];
} sb_atomic_file;

sb_status sb_atomic_open(sb_atomic_file *af, const char *path, sb_error *err);
sb_status sb_atomic_commit(sb_atomic_file *af, sb_error *err);
void sb_atomic_abort(sb_atomic_file *af);

/* All outputs or none: between these two calls, sb_atomic_commit completes
 * each file under its temporary name only; sb_atomic_hold_end(1) then
 * renames them all into place (the first failure removes the rest), and
 * sb_atomic_hold_end(0) removes them all.  At most 8 files. */
void sb_atomic_hold_begin(void);
sb_status sb_atomic_hold_end(int keep, sb_error *err);

/* Write a whole text buffer atomically. */
sb_status sb_atomic_write_text(const char *path, const char *text, sb_error *err);

/* Temporary files: sb_atomic_open tracks its own; a caller that makes
 * others tracks them too.  After sb_temp_remove_on_signal, SIGINT, SIGTERM
 * and SIGHUP delete every tracked file before the process dies of the
 * signal (exit status 128 + signal in the shell: 130 for Ctrl-C); so does
 * SIGXFSZ (a file grown past `ulimit -f`).  Paths must stay valid while
 * tracked. */
void sb_temp_track(const char *tmp_path);
void sb_temp_untrack(const char *tmp_path);
void sb_temp_remove_on_signal(void);
/* Remove from `dir` the temporary files of segbench processes that no
 * longer run (a SIGKILL gives no chance to clean up), last changed before
 * `before`; returns how many.  Only names of sb_atomic_open's form. */
int sb_temp_sweep(const char *dir, time_t before);

/* Create a directory and its parents (like mkdir -p). */
sb_status sb_mkdirs(const char *path, sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
