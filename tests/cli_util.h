/* cli_util.h - running the segbench binary from the tests, as a user would. */
#ifndef SEGBENCH_CLI_UTIL_H
#define SEGBENCH_CLI_UTIL_H

#include <stddef.h>

typedef struct cli_result {
    int code;              /* exit status (128 + n for a signal, as a shell says), -1 when unknown */
    char out[65536];
    char err[65536];
} cli_result;

/* Run the segbench beside this test binary with the formatted arguments
 * (a shell line: quote what needs it).  The result is static. */
cli_result *cli(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* The same with another segbench binary. */
cli_result *cli_exe(const char *exe, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The segbench beside this test binary (build/ or build-asan/). */
const char *test_segbench_path(void);
/* A file's text (truncated to size - 1), "" when it cannot be read. */
void test_slurp(const char *path, char *buf, size_t size);
/* Write text to path, whole; 0 when it could not be written. */
int test_write_text(const char *path, const char *text);
/* A rung file's text followed by that of every header it reaches through
 * quoted includes beside it or a folder up (what it keeps from its parent
 * and its ladder), each once; truncated to size - 1. */
void test_slurp_rung(const char *path, char *buf, size_t size);
/* A file's whole text, however long (free it); NULL when it cannot be read.
 * For files whose size the machine decides, such as a bench's samples. */
char *test_read_all(const char *path);
int test_exists(const char *path);
/* s in single quotes for a shell line (a quote inside as '\''); a ring of 8. */
const char *test_shq(const char *s);
int test_lines(const char *s);

#endif
