/* files.h - whole files and paths: the one way segbench reads a file
 * into memory, and the one limit on the length of a path it builds. */
#ifndef SEGBENCH_FILES_H
#define SEGBENCH_FILES_H

#include <stddef.h>

#include "segbench/error.h"

/* The longest path segbench builds, terminator included (Linux's
 * PATH_MAX).  A path that would be longer is an error, never cut. */
enum { SB_PATH_MAX = 4096 };

/* The longest name segbench adds to a folder it was given ("/integral.
 * samples.csv", "/gallery/<image>-regions.png", an image's name): a folder
 * named on the command line must leave this much room, so that every path
 * made from it fits (sb_dir_arg). */
enum { SB_NAME_ROOM = 512 };

/* A folder named on the command line (--results, --out, --root, ...): an
 * error naming the option when it is too long to hold segbench's files. */
sb_status sb_dir_arg(const char *dir, const char *what, sb_error *err);

/* printf into out[SB_PATH_MAX]; SB_ERR_LIMIT, naming the path's start,
 * when it does not fit. */
sb_status sb_path(char *out, sb_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The whole of a file as a NUL-terminated string (malloc'd: *text) and
 * its length (len may be NULL).  A file larger than max_bytes is refused
 * (SB_ERR_LIMIT); one that cannot be opened or read is SB_ERR_IO. */
sb_status sb_file_read(const char *path, size_t max_bytes, char **text, size_t *len, sb_error *err);
/* The same for a file that may be absent: its text, or NULL. */
char *sb_read_text(const char *path);

/* Remove path and all below it (a link is removed, never followed); a
 * path that is not there is no error. */
sb_status sb_remove_tree(const char *path, sb_error *err);

#endif
