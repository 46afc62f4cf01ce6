/* long_paths.c - a folder named on the command line that leaves no room
 * for segbench's files is refused at once, naming the option (before, its
 * paths were built in fixed buffers and cut without a word). */
#include "test.h"

#include "cli_util.h"

#include "base/files.h"

#include <stdio.h>
#include <string.h>

static void test_long_folders_refused(void)
{
    static char dir[SB_PATH_MAX];
    int n = snprintf(dir, sizeof dir, "%s", sb_test_dir());
    while (n < SB_PATH_MAX - SB_NAME_ROOM + 10)          /* folders of 100 characters: each a legal name */
        n += snprintf(dir + n, sizeof dir - (size_t)n, "/%.99s",
                      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    static const char *const lines[] = { "bench --set smoke --results %s", "report --results %s", "report --out %s",
                                         "lesson integral --results %s", "compare --baseline %s --current %s",
                                         "exercise integral/openmp --root %s" };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char line[2 * SB_PATH_MAX + 200];
        snprintf(line, sizeof line, lines[i], dir, dir);
        cli_result *r = cli("%s", line);
        CHECKF(r->code == 2 && strstr(r->err, "leaves no room for the files in it"), "'%.40s...': exit %d, %.300s",
               line, r->code, r->err);
    }
    CHECK(!test_exists(dir));
}

const sb_test tests_cli_long_paths[] = {
    { "cli: a folder too long for segbench's files is refused at once, naming its option", test_long_folders_refused },
};
const int tests_cli_long_paths_count = sizeof tests_cli_long_paths / sizeof tests_cli_long_paths[0];
