/* spawn.c - running a program without a shell, with a time limit. */
#include "test_groups.h"

#include "segbench/spawn.h"

#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A student's endless loop must not hold a class's grading: past the
 * limit the program and what it started are killed (124, as timeout(1)
 * says); an exit status comes back as it is, a signal as a shell says it. */
static void test_limited(void)
{
    double t0 = now_s();
    char *const sleeper[] = { "sh", "-c", "sleep 30 & sleep 30", NULL };
    int code = sb_spawn_limited(sleeper, NULL, NULL, 0.3);
    double took = now_s() - t0;
    CHECKF(code == SB_SPAWN_TIMED_OUT && took < 5, "exit %d after %.2f s", code, took);
    char *const three[] = { "sh", "-c", "exit 3", NULL };
    CHECK(sb_spawn_limited(three, NULL, NULL, 10) == 3);
    char *const segv[] = { "sh", "-c", "kill -SEGV $$", NULL };
    code = sb_spawn_limited(segv, NULL, NULL, 10);
    CHECKF(code == 128 + 11, "exit %d", code);
    char *const none[] = { "/nonexistent/program", NULL };
    CHECK(sb_spawn_limited(none, NULL, NULL, 10) == 127);
    char *const quick[] = { "true", NULL };
    CHECK(sb_spawn_limited(quick, NULL, NULL, 0) == 0);     /* no limit */
}

const sb_test tests_spawn[] = {
    { "spawn: a time limit kills the program and its children (124); exit codes and signals come back", test_limited },
};
const int tests_spawn_count = sizeof tests_spawn / sizeof tests_spawn[0];
