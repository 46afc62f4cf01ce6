/* test_runner.c - the runner behind test.h. */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int runner_failed_checks;
static char runner_dir[64];

void sb_test_fail(const char *file, int line, const char *fmt, ...)
{
    runner_failed_checks++;
    if (runner_failed_checks > 20)
        return;                          /* enough to see what is wrong */
    fprintf(stdout, "    %s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}

const char *sb_test_dir(void)
{
    if (!runner_dir[0]) {
        snprintf(runner_dir, sizeof runner_dir, "/tmp/segbench-test-XXXXXX");
        if (!mkdtemp(runner_dir)) {
            perror("mkdtemp");
            exit(2);
        }
    }
    return runner_dir;
}

/* The filter is one or more name parts separated by '|': a test runs when its
 * name holds any of them (test_gpu's racecheck halves use this). */
static int runner_selected(const char *name, const char *filter)
{
    if (!filter)
        return 1;
    while (*filter) {
        size_t n = strcspn(filter, "|");
        char part[128];
        if (n > 0 && n < sizeof part) {
            memcpy(part, filter, n);
            part[n] = '\0';
            if (strstr(name, part))
                return 1;
        }
        filter += n + (filter[n] == '|');
    }
    return 0;
}

int sb_test_run(const sb_test *const *groups, const int *counts, int ngroups, const char *filter)
{
    int passed = 0, failed = 0;
    for (int g = 0; g < ngroups; g++)
        for (int i = 0; i < counts[g]; i++) {
            const sb_test *t = &groups[g][i];
            if (!runner_selected(t->name, filter))
                continue;
            runner_failed_checks = 0;
            t->fn();
            fflush(stdout);
            if (runner_failed_checks) {
                printf("FAIL %s (%d check%s)\n", t->name, runner_failed_checks, runner_failed_checks > 1 ? "s" : "");
                failed++;
            } else {
                printf("ok   %s\n", t->name);
                passed++;
            }
            fflush(stdout);
        }
    if (runner_dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", runner_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", runner_dir);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed;
}
