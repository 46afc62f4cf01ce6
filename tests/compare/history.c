/* tests/compare/history.c - segbench history: runs of record read back
 * from git commits and from folders, steps beyond the floor put down to
 * the code or the machine, a run that strays and comes back no step, two
 * machines never judged against each other. */
#include "test_groups.h"
#include "../cli_util.h"

#include "compare/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One run of record of a made-up integral ladder: each variant's time and
 * code identity, the GPU it ran on. */
typedef struct run {
    double naive, blocked, pdl, copy;   /* ms (0: no row) */
    const char *blocked_id, *gpu;
} run;

static const run RUNS[] = {
    { 1.00, 0.500, 0, 0.010, "b10c6000a0000001", "GPU-a" },
    { 1.30, 0.505, 0, 0.010, "b10c6000a0000001", "GPU-a" },   /* naive strays, and comes back */
    { 1.00, 0.300, 0, 0.010, "b10c6000a0000002", "GPU-a" },   /* blocked6's code changed: a code step */
    { 1.01, 0.301, 0, 0.010, "b10c6000a0000002", "GPU-a" },
    { 1.00, 0.200, 0, 0.010, "b10c6000a0000002", "GPU-b" },   /* the same code on another GPU: the machine */
    { 1.00, 0.201, 0.100, 0.010, "b10c6000a0000002", "GPU-b" }, /* a new rung is fastest: code */
};
enum { NRUNS = sizeof RUNS / sizeof RUNS[0] };

static void add(sb_rows *rows, const char *variant, double ms, const char *id, int k)
{
    if (ms <= 0)
        return;
    sb_row *r = test_row_add(rows, "integral", "sum", variant, "cuda", 1, "synth-640x480", 640, 480);
    r->kernel = (sb_summary){ 15, ms * 0.98, ms * 0.99, ms, ms * 1.01, ms * 1.02 };
    snprintf(r->agreement, sizeof r->agreement, "exact");
    snprintf(r->run_id, sizeof r->run_id, "run-%d", k);
    snprintf(r->commit, sizeof r->commit, "unknown");
    snprintf(r->code_id, sizeof r->code_id, "%s", id);
}

/* RUNS[k] as the result set dir (env.json and integral.csv). */
static void write_run(const char *dir, int k, const char *machine)
{
    const run *u = &RUNS[k];
    sb_rows rows = { 0 };
    add(&rows, "cuda-naive", u->naive, "0a1e000000000001", k);
    add(&rows, "cuda-blocked6", u->blocked, u->blocked_id, k);
    add(&rows, "cuda-pdl", u->pdl, "0d10000000000001", k);
    add(&rows, "cuda-copy", u->copy, "c0b1000000000001", k);   /* a floor: never the fastest */
    test_sh("mkdir -p %s", test_shq(dir));
    char path[700];
    snprintf(path, sizeof path, "%s/integral.csv", dir);
    sb_error err = { SB_OK, "" };
    CHECKF(sb_rows_write_csv(&rows, path, &err) == SB_OK, "%s", err.msg);
    sb_rows_free(&rows);
    snprintf(path, sizeof path, "%s/env.json", dir);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fprintf(fp, "{\"machine_id\": \"%s\", \"date\": \"2026-11-%02dT10:00:00Z\", \"run_id\": \"run-%d\", "
                    "\"gpu_name\": \"NVIDIA H200\", \"gpu_uuid\": \"%s\", \"cuda_driver_version\": 13000}\n",
                machine, 10 + k, k, u->gpu);
        fclose(fp);
    }
}

/* Each run a commit of results/m/ in a repository of its own; history
 * reads them back: the code step, the machine step, the new rung, and no
 * step where a run strayed and came back. */
static void test_git(void)
{
    const char *repo = test_path("hist-repo");
    char dir[700], exe[1600];
    snprintf(dir, sizeof dir, "%s/results/m", repo);
    test_sh("rm -rf %s && mkdir -p %s && cd %s && git init -q . && echo m > results/published.txt", test_shq(repo),
            test_shq(dir), test_shq(repo));
    for (int k = 0; k < NRUNS; k++) {
        write_run(dir, k, "m");
        test_sh("cd %s && git add -A && git -c user.name=t -c user.email=t@t commit -q -m 'run %d' >/dev/null",
                test_shq(repo), k);
    }
    snprintf(exe, sizeof exe, "cd %s && %s", test_shq(repo), test_shq(test_segbench_path()));
    cli_result *r = cli_exe(exe, "history --machine m --variant cuda-naive");
    CHECKF(r->code == 0 && strstr(r->out, "\n0 steps in 0 of 1 series"), "a run that strayed: %s%s", r->out, r->err);
    r = cli_exe(exe, "history --machine m --out hist");
    CHECKF(r->code == 0 && strstr(r->out, "6 commits") && strstr(r->out, "\n3 steps in 1 of 1 series (code 2, machine 1"),
           "%s%s", r->out, r->err);
    CHECKF(strstr(r->out, "code: cuda-blocked6: its code changed (id b10c6000a0000001 -> b10c6000a0000002)") &&
               strstr(r->out, "machine: cuda-blocked6: the same code (id b10c6000a0000002), another GPU") &&
               strstr(r->out, "code: the fastest is now cuda-pdl (was cuda-blocked6)"),
           "%s", r->out);
    static char md[1 << 15];
    test_slurp(test_pathf("hist-repo/hist/m/history.md"), md, sizeof md);
    CHECKF(strstr(md, "# History: results/m/") && strstr(md, "**Found:** 3 steps in 1 of 1 series") &&
               strstr(md, "**machine**: cuda-blocked6") && test_exists(test_pathf("hist-repo/hist/m/plots/history-integral-sum.gp")) &&
               !test_exists(test_pathf("hist-repo/report")),
           "%.1500s", md);
    /* the last 2 commits: one step, the new rung */
    r = cli_exe(exe, "history --machine m --last 2");
    CHECKF(r->code == 0 && strstr(r->out, "2 commits") && strstr(r->out, "\n1 step in 1 of 1 series (code 1"),
           "%s%s", r->out, r->err);
    /* a run not yet committed: the last snapshot, "working tree" */
    write_run(dir, 2, "m");
    r = cli_exe(exe, "history --machine m --last 3");
    CHECKF(r->code == 0 && strstr(r->out, "2 commits and the working tree") &&
               strstr(r->out, "the fastest is now cuda-blocked6 (was cuda-pdl)"),
           "%s%s", r->out, r->err);
    r = cli_exe(exe, "history --machine nothing-here");
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "no commit changed it"), "%s", r->err);
    r = cli_exe(exe, "history --machine ../m");
    CHECKF(r->code == 2 && strstr(r->err, "not a machine id"), "%s", r->err);
}

/* Folders of result sets: the same history without git; runs of two
 * machines are never judged against each other, and the line says so. */
static void test_sets(void)
{
    char dirs[NRUNS][700], list[6000] = "";
    size_t n = 0;
    for (int k = 0; k < NRUNS; k++) {
        snprintf(dirs[k], sizeof dirs[k], "%s", test_pathf("hist-sets/run%d", k));
        write_run(dirs[k], k, k < 4 ? "m" : "other");
        n += (size_t)snprintf(list + n, sizeof list - n, " %s", test_shq(dirs[k]));
    }
    cli_result *r = cli("history%s", list);
    CHECKF(r->code == 0 && strstr(r->out, "6 result sets") &&
               strstr(r->out, "1 move between two machines' runs not judged") &&
               strstr(r->out, "code: cuda-blocked6: its code changed") && strstr(r->out, "the fastest is now cuda-pdl") &&
               !strstr(r->out, ")  machine: "),
           "%s%s", r->out, r->err);
    r = cli("history --machine m %s", test_shq(dirs[0]));
    CHECKF(r->code == 2 && strstr(r->err, "one or the other"), "%s", r->err);
    r = cli("history %s", test_shq(test_path("hist-sets")));
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "not a result set"), "%s", r->err);
}

/* A run of one made-up variant on 25 images, the same code each time, its
 * time on image i moved by up to 8 % either way from run to run (another
 * lease's GPU), each row's rounds within 0.1 % of each other: as
 * results/m/ (integral.csv, integral.samples.csv, env.json) in dir. */
static void write_lease(const char *dir, int k, double phase)
{
    sb_rows rows = { 0 };
    for (int i = 0; i < 25; i++) {
        char image[32];
        snprintf(image, sizeof image, "img-%02d", i);
        sb_row *r = test_row_add(&rows, "integral", "sum", "cuda-blocked6", "cuda", 1, image, 640, 480);
        double ms = 0.5 * (1.0 + 0.08 * sin(1.7 * i + phase));
        r->kernel = (sb_summary){ 15, ms * 0.998, ms * 0.999, ms, ms * 1.001, ms * 1.002 };
        if (!(r->round_ms = malloc(3 * sizeof *r->round_ms)))
            return;
        r->round_ms[0] = ms * 0.999, r->round_ms[1] = ms, r->round_ms[2] = ms * 1.001;
        r->nround = 3;
        snprintf(r->agreement, sizeof r->agreement, "exact");
        snprintf(r->run_id, sizeof r->run_id, "lease-%d", k);
        snprintf(r->commit, sizeof r->commit, "unknown");
        snprintf(r->code_id, sizeof r->code_id, "b10c6000a0000001");
    }
    test_sh("mkdir -p %s", test_shq(dir));
    char path[700];
    sb_error err = { SB_OK, "" };
    snprintf(path, sizeof path, "%s/integral.csv", dir);
    CHECKF(sb_rows_write_csv(&rows, path, &err) == SB_OK, "%s", err.msg);
    snprintf(path, sizeof path, "%s/integral.samples.csv", dir);
    CHECKF(sb_rows_write_samples(&rows, path, &err) == SB_OK, "%s", err.msg);
    sb_rows_free(&rows);
    snprintf(path, sizeof path, "%s/env.json", dir);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fprintf(fp, "{\"machine_id\": \"m\", \"date\": \"2026-11-%02dT10:00:00Z\", \"run_id\": \"lease-%d\"}\n", 10 + k, k);
        fclose(fp);
    }
}

/* compare --baseline of two runs of one code on two leases: the A/A's
 * floor (one session's) called rows that only the lease moved; held also
 * to what the same code moved by between the machine's committed runs
 * (the history's own floor), it calls none, and its floor line says so;
 * --runs-floor off judges by the A/A's alone. */
static void test_runs_floor(void)
{
    const char *repo = test_path("leases-repo");
    char dir[700], base[700], exe[1600];
    snprintf(dir, sizeof dir, "%s/results/m", repo);
    snprintf(base, sizeof base, "%s/base", repo);
    test_sh("rm -rf %s && mkdir -p %s && cd %s && git init -q .", test_shq(repo), test_shq(dir), test_shq(repo));
    for (int k = 0; k < 3; k++) {
        write_lease(dir, k, 2.3 * k);
        test_sh("cd %s && git add -A && git -c user.name=t -c user.email=t@t commit -q -m 'lease %d' >/dev/null",
                test_shq(repo), k);
    }
    write_lease(base, 0, 0.0);
    write_lease(dir, 3, 1.3);                    /* a fourth lease, not yet committed */
    snprintf(exe, sizeof exe, "cd %s && %s", test_shq(repo), test_shq(test_segbench_path()));
    cli_result *r = cli_exe(exe, "compare --baseline base --current results/m --runs-floor off");
    CHECKF(r->code == 0 && !strstr(r->out, "faster on 0, slower on 0,") && !strstr(r->out, "between runs of one code"),
           "the A/A's floor alone should call rows the lease moved: %s%s", r->out, r->err);
    r = cli_exe(exe, "compare --baseline base --current results/m");
    CHECKF(r->code == 0 && strstr(r->out, "faster on 0, slower on 0,") &&
               strstr(r->out, "and, two runs, between runs of one code on m (results/m/, 3 commits and the working "
                              "tree): gpu 0.1-1 ms "),
           "%s%s", r->out, r->err);
    r = cli_exe(exe, "compare --baseline base --current results/m --runs-floor sometimes");
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "--runs-floor takes auto or off"), "%s", r->err);
    r = cli_exe(exe, "compare --baseline base --current results/m --results-root nowhere");
    CHECKF(r->code == 0 && strstr(r->out, "no floor between runs (nowhere/m/ has no history in git)"), "%s%s", r->out,
           r->err);
}

const sb_test tests_history[] = {
    { "history: runs of record from git commits -- a code step, a machine step, a new rung; a stray run no step",
      test_git },
    { "history: folders of result sets, two machines' runs never judged against each other", test_sets },
    { "compare --baseline: two runs of one code on two leases held to what the code moved by between the "
      "machine's runs too, not the one session's A/A alone (no call where there were 8 on the H200)",
      test_runs_floor },
};
const int tests_history_count = sizeof tests_history / sizeof tests_history[0];
