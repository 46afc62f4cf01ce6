/* paired.c - two processes that take their samples in turns
 * (measure/paired.h): the token alternates, each side knows when its
 * partner's neighbouring sample was the same row's same one, a partner
 * that has gone leaves the other running alone, and a malformed
 * SB_PAIRED is refused. */
#include "test.h"

#include "measure/paired.h"
#include "segbench/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum { TURNS = 6 };

/* One side: its turns over rows keys[], each row `per` samples; what it
 * wrote to the shared log, and each turn's answer, into paired[]. */
static void side(int fd, int first, const uint64_t *keys, int per, int *paired, int log_fd)
{
    char env[64];
    snprintf(env, sizeof env, "%d,%s,%d", fd, first ? "first" : "second", per);
    setenv(SB_PAIRED_ENV, env, 1);
    sb_paired pair;
    sb_error err;
    if (sb_paired_begin(&pair, &err) != SB_OK)
        _exit(9);
    for (int t = 0; t < TURNS; t++) {
        char mark = first ? 'A' : 'B';
        if (write(log_fd, &mark, 1) != 1)              /* "my sample t now" */
            _exit(8);
        paired[t] = sb_paired_turn(&pair, keys[t], t % per);
    }
    sb_paired_end(&pair);
    unsetenv(SB_PAIRED_ENV);
}

/* A and B in two processes over keys_a and keys_b; the order their
 * samples ran in, and each side's answers. */
static void run_pair(const uint64_t *keys_a, const uint64_t *keys_b, int per, char *order, int *pa, int *pb)
{
    int sv[2], logp[2], back[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || pipe(logp) != 0 || pipe(back) != 0) {
        CHECK(!"socketpair or pipe");
        return;
    }
    pid_t child = fork();
    if (child == 0) {                                    /* B, second */
        close(sv[0]);
        close(logp[0]);
        close(back[0]);
        int mine[TURNS];
        side(sv[1], 0, keys_b, per, mine, logp[1]);
        _exit(write(back[1], mine, sizeof mine) == (ssize_t)sizeof mine ? 0 : 7);
    }
    close(sv[1]);
    close(back[1]);
    side(sv[0], 1, keys_a, per, pa, logp[1]);
    close(logp[1]);
    int status = 0;
    waitpid(child, &status, 0);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the second side exited %d", WEXITSTATUS(status));
    ssize_t n = read(logp[0], order, 2 * TURNS);
    order[n > 0 ? n : 0] = '\0';
    CHECK(read(back[0], pb, TURNS * sizeof *pb) == (ssize_t)(TURNS * sizeof *pb));
    close(logp[0]);
    close(back[0]);
}

static void test_turns(void)
{
    uint64_t row = sb_paired_key("kmeans/cpu@1/fixed10/a"), other = sb_paired_key("kmeans/cpu@1/fixed10/b");
    CHECK(row != other && row == sb_paired_key("kmeans/cpu@1/fixed10/a"));
    uint64_t same[TURNS], b_differs[TURNS];
    for (int t = 0; t < TURNS; t++)
        same[t] = b_differs[t] = t < 3 ? row : other;
    b_differs[3] = row;                                  /* B's fourth sample: another row's */
    char order[2 * TURNS + 1];
    int pa[TURNS], pb[TURNS];
    run_pair(same, same, 3, order, pa, pb);
    CHECKF(!strcmp(order, "ABABABABABAB"), "the samples ran as %s", order);
    for (int t = 0; t < TURNS; t++)
        CHECKF(pa[t] && pb[t], "turn %d: A %d, B %d", t, pa[t], pb[t]);
    run_pair(same, b_differs, 3, order, pa, pb);
    CHECKF(!strcmp(order, "ABABABABABAB"), "%s", order);
    for (int t = 0; t < TURNS; t++)
        CHECKF(pa[t] == (t != 3) && pb[t] == (t != 3), "turn %d: A %d, B %d", t, pa[t], pb[t]);
}

/* The partner gone: the turn comes back at once, unpaired; no variable:
 * off; a malformed one refused. */
static void test_alone_and_refused(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    close(sv[1]);
    char env[32];
    snprintf(env, sizeof env, "%d,first,5", sv[0]);
    setenv(SB_PAIRED_ENV, env, 1);
    sb_paired pair;
    sb_error err;
    CHECK(sb_paired_begin(&pair, &err) == SB_OK && pair.on && pair.reps == 5 && !pair.second);
    double t0 = sb_clock_ms();
    CHECK(sb_paired_turn(&pair, 1, 0) == 0 && pair.fd == -1 && sb_paired_turn(&pair, 1, 1) == 0);
    CHECK(sb_clock_ms() - t0 < 1000.0);
    sb_paired_end(&pair);
    unsetenv(SB_PAIRED_ENV);
    CHECK(sb_paired_begin(&pair, &err) == SB_OK && !pair.on && sb_paired_turn(&pair, 1, 0) == 0);
    const char *bad[] = { "x", "3,third,5", "3,first,0", "3,first,5,6", "99999,first,5" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(SB_PAIRED_ENV, bad[i], 1);
        CHECKF(sb_paired_begin(&pair, &err) == SB_ERR_USAGE && strstr(err.msg, SB_PAIRED_ENV), "%s: %s", bad[i],
               err.msg);
    }
    unsetenv(SB_PAIRED_ENV);
}

const sb_test tests_paired[] = {
    { "paired: two processes' samples alternate, A B A B; a turn whose neighbour was another row's is unpaired",
      test_turns },
    { "paired: a partner gone leaves the other alone at once; no SB_PAIRED is off; a malformed one refused",
      test_alone_and_refused },
};
const int tests_paired_count = sizeof tests_paired / sizeof tests_paired[0];
