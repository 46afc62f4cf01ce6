/* spawn.c - running a program without a shell, with a time limit. */
#include "test_groups.h"

#include "segbench/spawn.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Does the file (up to 4 MB of it) hold text? */
static int file_has(const char *path, const char *text)
{
    static char buf[4 << 20];
    FILE *fp = fopen(path, "r");
    size_t got = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp)
        fclose(fp);
    buf[got] = '\0';
    return strstr(buf, text) != NULL;
}

/* Contained (sb_spawn_contain, for a student's code): what a program
 * leaves running -- a child in the background, one in a session of its
 * own -- is ended when it ends, and counted; 50 MB of output keep the
 * log to its first 2 MB and last 1 MB, the line between saying how much
 * was left out, and the last line is there; no file grows past the
 * limit. */
static void test_contained(void)
{
    sb_spawn_limits lim = { .file_bytes = 1 << 20 };
    CHECK(sb_spawn_contain(&lim) == 0);
    char *const leaver[] = { "sh", "-c", "sleep 600 & setsid sleep 600 & exit 0", NULL };
    int rc = sb_spawn_limited(leaver, NULL, NULL, 60);
    CHECKF(rc == 0 && sb_spawn_strays() >= 2, "exit %d, %d left running", rc, sb_spawn_strays());
    /* a child that ends by itself a moment after its parent (bubblewrap's
     * process in the sandbox, taking its namespace down) is no stray */
    char *const ending[] = { "sh", "-c", "sleep 0.02 & exit 0", NULL };
    rc = sb_spawn_limited(ending, NULL, NULL, 60);
    CHECKF(rc == 0 && sb_spawn_strays() == 0, "exit %d, %d said left running of a child that ended by itself", rc,
           sb_spawn_strays());
    const char *log = test_path("loud.log");
    char *const loud[] = { "sh", "-c", "head -c 50000000 /dev/zero | tr '\\0' x; echo; echo the last line", NULL };
    rc = sb_spawn_limited(loud, NULL, log, 60);
    struct stat st;
    static char tail[4096];
    FILE *fp = fopen(log, "r");
    size_t got = 0;
    if (fp && fseek(fp, -(long)(sizeof tail - 1), SEEK_END) == 0)
        got = fread(tail, 1, sizeof tail - 1, fp);
    if (fp)
        fclose(fp);
    tail[got] = '\0';
    CHECKF(rc == 0 && stat(log, &st) == 0 && st.st_size < (3 << 20) + 200 && strstr(tail, "the last line\n") &&
               file_has(log, "bytes of output left out here"),
           "exit %d, a log of %lld bytes ending: %.200s", rc, (long long)st.st_size, tail + (got > 200 ? got - 200 : 0));
    /* a file past the limit (1 MB here): the write fails, the writer ends */
    const char *big = test_path("big.bin");
    char *const writer[] = { "sh", "-c", "head -c 2000000 /dev/zero > \"$0\"", (char *)big, NULL };
    rc = sb_spawn_limited(writer, NULL, NULL, 60);
    CHECKF(rc != 0 && stat(big, &st) == 0 && st.st_size == (1 << 20), "exit %d, a file of %lld bytes", rc,
           (long long)st.st_size);
    sb_spawn_release();
}

/* Contained with limits on memory and CPU time (a student's grade): a
 * shell that holds 64 MB in a variable fails under a 32 MB limit and
 * not without it; a loop that spins ends on SIGXCPU at its CPU second. */
static void test_contained_limits(void)
{
    char *const hog[] = { "sh", "-c", "x=$(head -c 64000000 /dev/zero | tr '\\0' x); echo ${#x}", NULL };
    sb_spawn_limits none = { 0 }, lim = { .memory_bytes = 32 << 20, .cpu_seconds = 1 };
    CHECK(sb_spawn_contain(&none) == 0);
    int free_rc = sb_spawn_limited(hog, NULL, test_path("hog-free.log"), 60);
    sb_spawn_release();
    CHECK(sb_spawn_contain(&lim) == 0);
    int held_rc = sb_spawn_limited(hog, NULL, test_path("hog-held.log"), 60);
    CHECKF(free_rc == 0 && held_rc != 0, "64 MB in a shell: exit %d without a limit, %d under 32 MB", free_rc, held_rc);
    char *const spin[] = { "sh", "-c", "while :; do :; done", NULL };
    double t0 = now_s();
    int rc = sb_spawn_limited(spin, NULL, NULL, 60);
    double took = now_s() - t0;
    CHECKF(rc == 128 + SIGXCPU && took < 20, "a spinning loop under 1 s of CPU: exit %d after %.1f s", rc, took);
    sb_spawn_release();
}

/* Contained where control groups can be made (root, usually): the
 * limits hold for a program and everything it starts together.  A fork
 * bomb stops at the process limit whoever grades it (RLIMIT_NPROC exempts
 * root: before, 60 background sleeps all started); four spinners' CPU
 * time is summed (before, each ran its own second, and the program ended
 * well); four children under the memory limit each but over it together
 * are stopped, and that is said.  Where no group can be made, the line
 * that says why. */
static void test_contained_group(void)
{
    sb_spawn_limits lim = { .processes = 20, .cpu_seconds = 1, .memory_bytes = 96 << 20 };
    CHECK(sb_spawn_contain(&lim) == 0);
    const char *why = sb_spawn_group_missing();
    if (why) {
        CHECKF(strstr(why, "no control group could be made beneath this process's own"), "%s", why);
        sb_spawn_release();
        return;
    }
    /* 30 sleeps in the background: the shell's fork past the limit fails (dash then ends, exit 2); those
     * that started are ended as strays */
    char *const bomb[] = { "sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 "
                           "27 28 29 30; do sleep 5 & done", NULL };
    int rc = sb_spawn_limited(bomb, NULL, NULL, 60);
    CHECKF(sb_spawn_strays() > 0 && sb_spawn_strays() < 20, "exit %d, %d sleeps started under a limit of 20", rc,
           sb_spawn_strays());
    char *const spinners[] = { "sh", "-c", "for i in 1 2 3 4; do (while :; do :; done) & done; wait", NULL };
    double t0 = now_s();
    rc = sb_spawn_limited(spinners, NULL, NULL, 60);
    double took = now_s() - t0;
    CHECKF(rc == 128 + SIGXCPU && took < 10, "four spinners under 1 s of CPU together: exit %d after %.1f s", rc, took);
    char *const hogs[] = { "sh", "-c", "for i in 1 2 3 4; do (x=$(head -c 40000000 /dev/zero | tr '\\0' x); sleep 2) & "
                           "done; wait", NULL };
    rc = sb_spawn_limited(hogs, NULL, test_path("hogs.log"), 60);
    CHECKF(sb_spawn_over_memory(), "four 40 MB children under 96 MB together: exit %d, not said over its memory", rc);
    sb_spawn_release();
}

const sb_test tests_spawn[] = {
    { "spawn: contained in a control group (where one can be made), the limits hold for all its processes together",
      test_contained_group },
    { "spawn: a time limit kills the program and its children (124); exit codes and signals come back", test_limited },
    { "spawn: contained, what a program leaves running is ended, a flood of output keeps the log's head and tail, "
      "a file stops at the limit",
      test_contained },
    { "spawn: contained with limits, a program over its memory fails and one over its CPU time ends on SIGXCPU",
      test_contained_limits },
};
const int tests_spawn_count = sizeof tests_spawn / sizeof tests_spawn[0];
