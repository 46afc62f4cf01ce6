/* test_main.c - the CPU test suite (`make test`).
 *
 *   test_cpu [-j N] [-v] [NAME-PART[|NAME-PART...]]
 *
 * -j N runs N tests at once, each in a process of its own (default: one
 * per online CPU; SB_TEST_JOBS in the environment sets it too; -j 1 runs
 * them in this process, in order); -v gives each test's time and the ten
 * slowest.  A name part runs only the tests whose names hold it.  The
 * groups are every tests/<module>/ file's table, listed by
 * scripts/test_groups.sh (build/gen/test_groups.inc): a new test file
 * registers itself by existing. */
#define _DEFAULT_SOURCE
#include "test.h"

#include "test_groups.h"

#include "test_groups.inc"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_jobs(const char *text)
{
    char *end;
    long n = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || n < 1 || n > 256)
        return -1;
    return (int)n;
}

int main(int argc, char **argv)
{
    sb_test_options opt = { .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), .verbose = 0 };
    const char *env = getenv("SB_TEST_JOBS"), *filter = NULL;
    if (env && *env && (opt.jobs = parse_jobs(env)) < 0) {
        fprintf(stderr, "test_cpu: SB_TEST_JOBS=%s is not a count of 1 to 256\n", env);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0)
            opt.verbose = 1;
        else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            if ((opt.jobs = parse_jobs(argv[++i])) < 0) {
                fprintf(stderr, "test_cpu: -j %s is not a count of 1 to 256\n", argv[i]);
                return 2;
            }
        } else if (argv[i][0] == '-' || filter) {
            fprintf(stderr, "usage: test_cpu [-j N] [-v] [NAME-PART[|NAME-PART...]]\n");
            return 2;
        } else
            filter = argv[i];
    }
    if (opt.jobs < 1)
        opt.jobs = 1;
    /* the benches of the suite run on tiny images: a small probe of the
     * host's copy bandwidth is enough for them (machine/env.c) */
    setenv("SB_CEILING_MB", "8", 0);
    /* and their reports' plots need not be drawn: their scripts and data
     * are written (report_plots.c); test_plots_in_one_gnuplot draws, and
     * CI's make bench draws a whole report's (70 PNGs: 2 s a report, some
     * 30 reports in the suite) */
    setenv("SB_PLOTS", "scripts", 0);
    /* the CPU suite reads the same on a GPU host as on CI: the GPU hidden
     * from the CUDA runtime of every segbench it runs (its tests of "a
     * machine without a GPU" failed on the H200 host; test_gpu is the GPU's
     * suite) */
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    static const struct {
        const sb_test *tests;
        const int *count;
    } table[] = { SB_TEST_GROUPS };
    enum { NGROUPS = sizeof table / sizeof table[0] };
    const sb_test *groups[NGROUPS];
    int counts[NGROUPS];
    for (int i = 0; i < NGROUPS; i++) {
        groups[i] = table[i].tests;
        counts[i] = *table[i].count;
    }
    int failed = sb_test_run(groups, counts, NGROUPS, filter, &opt);
    return failed ? 1 : 0;
}
