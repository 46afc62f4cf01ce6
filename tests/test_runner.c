/* test_runner.c - the runner behind test.h.
 *
 * With more than one job, each test runs in a process of its own (fork),
 * up to `jobs` at a time, with its own temporary directory and its output
 * kept in a file; the runner prints each test's output and verdict in the
 * order the tests are listed, whatever order they finish in, so the log
 * reads the same on every run.  A test that crashes fails alone instead of
 * ending the suite.  Tests flagged SB_TEST_ALONE (their verdict depends on
 * an idle machine) run last, one at a time.  With one job every test runs
 * in this process, in order (test_gpu, and a debugger, want that). */
#define _DEFAULT_SOURCE
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
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

static int remove_entry(const char *path, const struct stat *st, int kind, struct FTW *ftw)
{
    (void)st, (void)kind, (void)ftw;
    if (remove(path) != 0 && errno != ENOENT)
        fprintf(stderr, "could not remove %s: %s\n", path, strerror(errno));
    return 0;
}

/* Remove a directory this runner made, and all in it (no shell). */
static void remove_tree(char *dir)
{
    if (dir[0])
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    dir[0] = '\0';
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One test of this run: what it is, and once done, what it did. */
typedef struct job {
    const sb_test *t;
    pid_t pid;                 /* while it runs */
    int done;
    int failed_checks;         /* -1: the process died (signal) */
    int signal;
    double started, seconds;
    double cpu_seconds;        /* user + system, its own processes' too (forked runs only) */
} job;

typedef struct suite {
    job *jobs;
    int n;
    char out_dir[64];          /* each test's output, out-<index> */
    int passed, failed;
    int verbose;
} suite;

static void verdict_line(suite *s, const job *j)
{
    char took[64] = "";
    if (s->verbose && j->cpu_seconds > 0)
        snprintf(took, sizeof took, " (%.1f s, %.1f s of CPU)", j->seconds, j->cpu_seconds);
    else if (s->verbose)
        snprintf(took, sizeof took, " (%.1f s)", j->seconds);
    if (j->failed_checks == 0) {
        printf("ok   %s%s\n", j->t->name, took);
        s->passed++;
    } else if (j->failed_checks < 0) {
        printf("FAIL %s (killed by signal %d)%s\n", j->t->name, j->signal, took);
        s->failed++;
    } else {
        printf("FAIL %s (%d check%s)%s\n", j->t->name, j->failed_checks, j->failed_checks > 1 ? "s" : "", took);
        s->failed++;
    }
    fflush(stdout);
}

/* In the child: run the test with its output in `out`, exit with its
 * number of failed checks (at most 250). */
static void child_run(const sb_test *t, const char *out)
{
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
        _exit(251);
    close(fd);
    runner_dir[0] = '\0';                /* a directory of its own, made on first use */
    runner_failed_checks = 0;
    t->fn();
    fflush(stdout);
    fflush(stderr);
    remove_tree(runner_dir);
    _exit(runner_failed_checks > 250 ? 250 : runner_failed_checks);
}

static int start_job(suite *s, int i)
{
    char out[96];
    snprintf(out, sizeof out, "%s/out-%d", s->out_dir, i);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return -1;
    }
    if (pid == 0)
        child_run(s->jobs[i].t, out);
    s->jobs[i].pid = pid;
    s->jobs[i].started = now_s();
    return 0;
}

/* Wait for any one running test; record what it did. */
static void reap_one(suite *s)
{
    int status;
    pid_t pid;
    struct rusage ru;
    while ((pid = wait4(-1, &status, 0, &ru)) < 0 && errno == EINTR)
        ;
    for (int i = 0; i < s->n; i++) {
        job *j = &s->jobs[i];
        if (j->pid != pid || j->done)
            continue;
        j->seconds = now_s() - j->started;
        j->cpu_seconds = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
                         ru.ru_stime.tv_usec * 1e-6;
        j->done = 1;
        j->pid = 0;
        if (WIFEXITED(status))
            j->failed_checks = WEXITSTATUS(status);
        else {
            j->failed_checks = -1;
            j->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        }
    }
}

/* Print the finished tests' output and verdicts, in list order, up to the
 * first that has not finished. */
static void print_ready(suite *s, int *next)
{
    while (*next < s->n && s->jobs[*next].done) {
        char out[96], buf[4096];
        snprintf(out, sizeof out, "%s/out-%d", s->out_dir, *next);
        FILE *fp = fopen(out, "r");
        size_t got;
        while (fp && (got = fread(buf, 1, sizeof buf, fp)) > 0)
            fwrite(buf, 1, got, stdout);
        if (fp)
            fclose(fp);
        remove(out);
        verdict_line(s, &s->jobs[*next]);
        (*next)++;
    }
}

/* Run jobs [from, to) with at most `width` at once. */
static void run_batch(suite *s, int from, int to, int width, int *next)
{
    int running = 0;
    /* the long tests first (SB_TEST_LONG), then the rest, each in list order */
    for (int pass = 0; pass < 2; pass++)
        for (int i = from; i < to; i++) {
            if (((s->jobs[i].t->flags & SB_TEST_LONG) != 0) != (pass == 0))
                continue;
            while (running >= width) {
                reap_one(s);
                running--;
                print_ready(s, next);
            }
            if (start_job(s, i) == 0)
                running++;
            else {
                s->jobs[i].done = 1;
                s->jobs[i].failed_checks = -1;
            }
        }
    while (running > 0) {
        reap_one(s);
        running--;
        print_ready(s, next);
    }
}

static int by_seconds(const void *a, const void *b)
{
    double x = (*(const job *const *)a)->seconds, y = (*(const job *const *)b)->seconds;
    return (x < y) - (x > y);
}

static void print_slowest(const suite *s, double wall)
{
    const job **order = malloc(sizeof *order * (s->n ? s->n : 1));
    if (!order)
        return;
    double sum = 0.0, cpu = 0.0;
    for (int i = 0; i < s->n; i++) {
        order[i] = &s->jobs[i];
        sum += s->jobs[i].seconds;
        cpu += s->jobs[i].cpu_seconds;
    }
    qsort(order, s->n, sizeof *order, by_seconds);
    printf("the slowest tests (%.1f s of tests, %.1f s of CPU, in %.1f s of wall time):\n", sum, cpu, wall);
    for (int i = 0; i < s->n && i < 10; i++)
        printf("  %6.1f s  %5.1f s of CPU  %s\n", order[i]->seconds, order[i]->cpu_seconds, order[i]->t->name);
    free(order);
}

/* Every selected test in this process, in order (one job). */
static void run_in_process(suite *s)
{
    for (int i = 0; i < s->n; i++) {
        job *j = &s->jobs[i];
        runner_failed_checks = 0;
        j->started = now_s();
        j->t->fn();
        fflush(stdout);
        j->seconds = now_s() - j->started;
        j->done = 1;
        j->failed_checks = runner_failed_checks;
        verdict_line(s, j);
    }
    remove_tree(runner_dir);
}

int sb_test_run(const sb_test *const *groups, const int *counts, int ngroups, const char *filter,
                const sb_test_options *opt)
{
    suite s = { .verbose = opt && opt->verbose };
    int jobs = opt && opt->jobs > 1 ? opt->jobs : 1;
    int total = 0;
    for (int g = 0; g < ngroups; g++)
        total += counts[g];
    s.jobs = calloc(total ? total : 1, sizeof *s.jobs);
    if (!s.jobs) {
        fprintf(stderr, "test runner: out of memory\n");
        return 1;
    }
    /* the tests that may share the machine first, then those that run alone */
    for (int pass = 0; pass < 2; pass++)
        for (int g = 0; g < ngroups; g++)
            for (int i = 0; i < counts[g]; i++) {
                const sb_test *t = &groups[g][i];
                if (runner_selected(t->name, filter) && (jobs == 1 ? pass == 0 : ((t->flags & SB_TEST_ALONE) != 0) == pass))
                    s.jobs[s.n++].t = t;
            }
    double began = now_s();
    if (jobs == 1) {
        run_in_process(&s);
    } else {
        snprintf(s.out_dir, sizeof s.out_dir, "/tmp/segbench-tests-XXXXXX");
        if (!mkdtemp(s.out_dir)) {
            perror("mkdtemp");
            free(s.jobs);
            return 1;
        }
        int shared = 0, next = 0;
        while (shared < s.n && !(s.jobs[shared].t->flags & SB_TEST_ALONE))
            shared++;
        run_batch(&s, 0, shared, jobs, &next);
        run_batch(&s, shared, s.n, 1, &next);
        remove_tree(s.out_dir);
    }
    if (s.verbose)
        print_slowest(&s, now_s() - began);
    printf("%d passed, %d failed\n", s.passed, s.failed);
    free(s.jobs);
    return s.failed;
}
