/* test_main.c - the CPU test suite (`make test`).  Optional argument: a
 * substring of the test names to run.  The groups are every tests/<module>/
 * file's table, listed by scripts/test_groups.sh (build/gen/test_groups.inc):
 * a new test file registers itself by existing. */
#include "test.h"

#include "test_groups.h"

#include "test_groups.inc"

int main(int argc, char **argv)
{
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
    int failed = sb_test_run(groups, counts, NGROUPS, argc > 1 ? argv[1] : NULL);
    return failed ? 1 : 0;
}
