/* files.h - whole files and paths: the one way segbench reads a file
 * into memory, and the one limit on the length of a path it builds. */
#ifndef SEGBENCH_FILES_H
#define SEGBENCH_FILES_H

#include <stddef.h>

#include "segbench/error.h"

/* The longest path segbench builds, terminator included (Linux's
 * PATH_MAX).  A path that would be longer is an error, never cut. */
enum { SB_PATH_MAX = 4096 };

/* printf into out[SB_PATH_MAX]; SB_ERR_LIMIT, naming the path's start,
 * when it does not fit. */
sb_status sb_path(char *out, sb_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The whole of a file as a NUL-terminated string (malloc'd: *text) and
 * its length (len may be NULL).  A file larger than max_bytes is refused
 * (SB_ERR_LIMIT); one that cannot be opened or read is SB_ERR_IO. */
sb_status sb_file_read(const char *path, size_t max_bytes, char **text, size_t *len, sb_error *err);
/* The same for a file that may be absent: its text, or NULL. */
char *sb_read_text(const char *path);

#endif
