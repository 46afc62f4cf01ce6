/* test.h - a minimal test runner.
 *
 * A test is a void function; CHECK records a failed condition (with file,
 * line and an optional message) and the test goes on.  The runner prints
 * one line per test and, last, "N passed, N failed".
 */
#ifndef SEGBENCH_TEST_H
#define SEGBENCH_TEST_H

#include <stdio.h>

typedef struct sb_test {
    const char *name;
    void (*fn)(void);
    int flags;                 /* SB_TEST_* below, or 0 */
} sb_test;

/* Its verdict needs an idle machine: it runs after the others, with no
 * other test beside it. */
#define SB_TEST_ALONE 1
/* It takes many seconds: started before the others beside it, so that
 * the suite does not end waiting on it alone (its output still comes in
 * the list's order). */
#define SB_TEST_LONG 2

void sb_test_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#define CHECK(cond)                                                    \
    do {                                                               \
        if (!(cond))                                                   \
            sb_test_fail(__FILE__, __LINE__, "%s", #cond);             \
    } while (0)

#define CHECKF(cond, ...)                                              \
    do {                                                               \
        if (!(cond))                                                   \
            sb_test_fail(__FILE__, __LINE__, __VA_ARGS__);             \
    } while (0)

typedef struct sb_test_options {
    int jobs;                  /* tests at once, each in its own process; 1: all in this one, in order */
    int verbose;               /* each test's time, and the slowest ten at the end */
} sb_test_options;

/* Run the tests whose name contains `filter` (NULL: all); returns the
 * number that failed.  The last line printed is "N passed, N failed". */
int sb_test_run(const sb_test *const *groups, const int *counts, int ngroups, const char *filter,
                const sb_test_options *opt);

/* A fresh directory under /tmp for this test (this process with one job),
 * removed when it ends. */
const char *sb_test_dir(void);

#endif
