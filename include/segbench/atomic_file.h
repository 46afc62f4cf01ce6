/* atomic_file.h - write a file completely or not at all.
 *
 * sb_atomic_open creates "<dir>/.<name>.tmp.XXXXXX" beside the target;
 * sb_atomic_commit flushes, closes and renames it over the target;
 * sb_atomic_abort closes and deletes it.  Readers never see a half-written
 * file, and a failed run leaves no partial output.
 */
#ifndef SEGBENCH_ATOMIC_FILE_H
#define SEGBENCH_ATOMIC_FILE_H

#include <stdio.h>

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

/* Write a whole text buffer atomically. */
sb_status sb_atomic_write_text(const char *path, const char *text, sb_error *err);

/* Temporary files: sb_atomic_open tracks its own; a caller that makes
 * others tracks them too.  After sb_temp_remove_on_signal, SIGINT, SIGTERM
 * and SIGHUP delete every tracked file before the process dies of the
 * signal (exit status 128 + signal in the shell: 130 for Ctrl-C).  Paths
 * must stay valid while tracked. */
void sb_temp_track(const char *tmp_path);
void sb_temp_untrack(const char *tmp_path);
void sb_temp_remove_on_signal(void);

/* Create a directory and its parents (like mkdir -p). */
sb_status sb_mkdirs(const char *path, sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
