/* test_report_truth.c - what a reader sees is true (issue "What the reader
 * sees is true"): a first run touches only what it measured, published
 * sets are not replaced by accident, MACHINES.md compares one code on two
 * machines and says which sets are stale, the summary gives both kernel and
 * per-frame winners, and the command line's messages point the right way. */
#define _DEFAULT_SOURCE
#include "cli_util.h"
#include "variants/names.h"
#include "test_groups.h"

#include "base/patterns.h"
#include "compare/noise.h"

#include "segbench/image_io.h"
#include "segbench/spawn.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *truth_png(void) { return test_grey_png("synth-40x30.png", 40, 30, 21); }

/* segbench with the shell line `args`, run in `dir` (relative paths there). */
static cli_result *cli_in(const char *dir, const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return cli_exe("cd", "%s && %s %s", dir, test_segbench_path(), args);
}

static void machine_id(char *out, size_t size)
{
    cli_result *r = cli("env --no-measure");
    const char *at = strstr(r->out, "\"machine_id\": \"");
    snprintf(out, size, "%.*s", at ? (int)strcspn(at + 15, "\"") : 0, at ? at + 15 : "");
}

/* A published set is not replaced by accident: the default run goes to
 * <machine>-local, --results into it is refused, --overwrite replaces it
 * (whole algorithms only). */
static void test_published_sets_are_kept(void)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", test_pathf("pub"));
    char id[128];
    machine_id(id, sizeof id);
    test_sh("mkdir -p %s/results && printf '# published\\n%s\\n' > %s/results/published.txt", dir, id, dir);
    const char *opts = "--algo integral --variant cpu --threads 1 --budget 2 --quiet";
    cli_result *r = cli_in(dir, "bench --image %s %s", truth_png(), opts);
    CHECKF(r->code == 0 && test_exists(test_pathf("pub/results/%s/env.json", id)), "first run: exit %d: %s", r->code,
           r->err);
    char before[1 << 14], after[1 << 14];
    test_slurp(test_pathf("pub/results/%s/integral.csv", id), before, sizeof before);
    r = cli_in(dir, "bench --image %s %s", truth_png(), opts);
    CHECKF(r->code == 0 && strstr(r->err, "is a published run of record") && strstr(r->err, "-local/"),
           "second run: exit %d: %s", r->code, r->err);
    test_slurp(test_pathf("pub/results/%s/integral.csv", id), after, sizeof after);
    CHECK(strcmp(before, after) == 0);
    CHECK(test_exists(test_pathf("pub/results/%s-local/integral.csv", id)));
    r = cli_in(dir, "bench --image %s %s --results results/%s", truth_png(), opts, id);
    CHECKF(r->code == 2 && strstr(r->err, "--overwrite replaces it") && test_lines(r->err) == 1, "exit %d: %s",
           r->code, r->err);
    r = cli_in(dir, "bench --image %s %s --overwrite", truth_png(), opts);
    test_slurp(test_pathf("pub/results/%s/integral.csv", id), after, sizeof after);
    CHECKF(r->code == 0 && strcmp(before, after) != 0, "--overwrite: exit %d: %s", r->code, r->err);
    /* --overwrite of some of an algorithm's variants would drop the rest:
     * a k-means bench of its CPU variants alone once dropped every CUDA
     * row of the run of record.  Refused, the set untouched. */
    r = cli_in(dir, "bench --image %s --algo integral --variant pthread --threads 1 --budget 2 --quiet --overwrite",
               truth_png());
    test_slurp(test_pathf("pub/results/%s/integral.csv", id), before, sizeof before);
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "integral.csv holds") &&
               strstr(r->err, "(cpu, ...)") && strcmp(before, after) == 0,
           "--overwrite of one variant: exit %d: %s", r->code, r->err);
}

/* bench --report (what make bench runs) writes its own report and
 * MACHINES.md and leaves another machine's report alone; a missing gnuplot
 * keeps older PNGs and says so instead of calling them missing. */
static void test_first_run_touches_only_its_own(void)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", test_pathf("first"));
    const char *opts = "--algo integral --variant cpu,openmp --threads 1 --budget 2 --quiet";
    test_sh("mkdir -p %s/results", dir);
    cli_result *r = cli_in(dir, "bench --image %s %s --results results/other", truth_png(), opts);
    CHECK(r->code == 0);
    r = cli_in(dir, "report");
    CHECKF(r->code == 0, "report: exit %d: %s%s", r->code, r->out, r->err);
    char other[1 << 16], again[1 << 16];
    test_slurp(test_pathf("first/report/other/REPORT.md"), other, sizeof other);
    /* this report draws its plots (the suite's others write their scripts alone: SB_PLOTS) */
    r = cli_exe("cd", "%s && SB_PLOTS=draw %s bench --image %s %s --results results/mine --report", dir,
                test_segbench_path(), truth_png(), opts);
    CHECKF(r->code == 0 && test_exists(test_pathf("first/report/mine/REPORT.md")) &&
               test_exists(test_pathf("first/report/MACHINES.md")),
           "bench --report: exit %d: %s%s", r->code, r->out, r->err);
    test_slurp(test_pathf("first/report/other/REPORT.md"), again, sizeof again);
    CHECKF(strcmp(other, again) == 0, "bench --report rewrote another machine's report");

    /* no gnuplot on PATH: the plots of the first report are kept, and said to be older */
    r = cli_exe("cd", "%s && PATH=/nonexistent %s report --results results/mine", dir, test_segbench_path());
    char md[1 << 16];
    test_slurp(test_pathf("first/report/mine/REPORT.md"), md, sizeof md);
    if (test_exists(test_pathf("first/report/mine/plots/integral-sum-ladder.png")) || sb_find_program("gnuplot", NULL, 0))
        CHECKF(r->code == 0 && strstr(md, "## Plots not redrawn") && !strstr(md, "## Missing plots") &&
                   strstr(r->out, "older ones kept"),
               "exit %d: %s", r->code, r->out);
    else
        CHECKF(r->code == 0 && strstr(md, "## Missing plots"), "no gnuplot, no PNG: %s", r->out);
}

/* MACHINES.md: every machine's commit and run, a stated baseline, the same
 * variant compared at one commit; a set of another commit compared row by
 * row where its code identity is the same (gamma), and not where it is
 * other code (delta). */
static void test_machines_compare_one_code(void)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", test_pathf("machines"));
    const char *opts = "--algo integral --variant cpu,openmp --threads 1,2 --budget 2 --quiet";
    test_sh("mkdir -p %s/results", dir);
    cli_result *r = cli_in(dir, "bench --image %s %s --results results/alpha", truth_png(), opts);
    CHECK(r->code == 0);
    /* beta: the same run, a machine twice as fast; gamma: another commit, the same code; delta: other code */
    test_sh("cd %s/results && sed -i 's/\"machine_id\": \"[^\"]*\"/\"machine_id\": \"alpha\"/' alpha/env.json && "
       "cp -r alpha beta && cp -r alpha gamma && "
       "sed -i 's/\"machine_id\": \"[^\"]*\"/\"machine_id\": \"beta\"/' beta/env.json && "
       "sed -i 's/\"machine_id\": \"[^\"]*\"/\"machine_id\": \"gamma\"/' gamma/env.json && "
       "awk -F, -v OFS=, 'NR > 1 { $10 = $10 / 2 } { print }' beta/integral.csv > t && mv t beta/integral.csv && "
       "sed -i 's/\"commit\": \"\\([0-9a-f]*\\)\"/\"commit\": \"0000000000000000000000000000000000000000\"/; "
       "s/\"dirty\": [a-z]*/\"dirty\": false/' gamma/env.json && awk -F, -v OFS=, 'NR > 1 { $26 = \"0000000000000000000000000000000000000000\" } "
       "{ print }' gamma/integral.csv > t && mv t gamma/integral.csv && cp -r gamma delta && "
       "sed -i 's/\"machine_id\": \"[^\"]*\"/\"machine_id\": \"delta\"/' delta/env.json && "
       "awk -F, -v OFS=, 'NR > 1 { $52 = \"ffffffffffffffff\" } { print }' delta/integral.csv > t && "
       "mv t delta/integral.csv && printf 'beta\\nalpha\\ngamma\\ndelta\\n' > published.txt",
       dir);
    r = cli_in(dir, "report");
    CHECKF(r->code == 0, "report: exit %d: %s%s", r->code, r->out, r->err);
    static char md[1 << 17];
    test_slurp(test_pathf("machines/report/MACHINES.md"), md, sizeof md);
    CHECKF(strstr(md, "Baseline: **beta** (the reference machine"), "no stated baseline: %.600s", md);
    CHECKF(strstr(md, "| gamma |") && strstr(md, "another commit: compared row by row where the code is the same") &&
               strstr(md, "## gamma, measured at other code"),
           "gamma is not shown apart: %.1500s", md);
    const char *g = strstr(md, "## gamma against beta, where the code is the same");
    const char *d = strstr(md, "## delta against beta, where the code is the same");
    CHECKF(g && strstr(g, "| beta ms | gamma ms | gamma vs beta |") && strstr(g, "are the same code and 0 other code"),
           "gamma, of the same code, is not compared row by row: %.2000s", g ? g : md);
    CHECKF(d && strstr(d, ", 0 are the same code and") && !strstr(d, "| beta ms | delta ms |"),
           "delta, of other code, is compared: %.1500s", d ? d : md);
    CHECKF(strstr(md, "## The same code on each machine") && strstr(md, "| beta ms | alpha ms | alpha vs beta |"),
           "alpha and beta are not compared: %.1500s", md);
    CHECKF(strstr(md, "0.50x |"), "alpha, half as fast, does not read 0.50x: %.3000s", md);
    const char *same = strstr(md, "## The same code"), *stale = strstr(md, "## gamma");
    const char *gamma_column = same ? strstr(same, "gamma ms") : NULL;
    CHECKF(same && stale && stale > same && (!gamma_column || gamma_column > stale),
           "gamma's numbers appear among the same-code comparisons");
    r = cli_in(dir, "report --baseline alpha");
    test_slurp(test_pathf("machines/report/MACHINES.md"), md, sizeof md);
    CHECKF(r->code == 0 && strstr(md, "Baseline: **alpha** (asked for with --baseline)"), "%s", r->err);
    r = cli_in(dir, "report --baseline epsilon");
    CHECKF(r->code == 2 && strstr(r->err, "no result set 'epsilon'"), "exit %d: %s", r->code, r->err);
}

/* In a repository (its results/ publishes sets), a local machine's run
 * and a run written elsewhere change no tracked file: MACHINES.md is made
 * from the published sets alone, the local set gets its own page beside
 * its report, and a set outside results/ its report beside itself.
 * Before, either rewrote report/MACHINES.md from whatever sets lay beside
 * it (all of /tmp's), and --results /tmp/x wrote report/x/. */
static void test_local_runs_leave_the_repository(void)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", test_pathf("repo"));
    const char *opts = "--algo integral --variant cpu,openmp --threads 1 --budget 2 --quiet";
    test_sh("mkdir -p %s/results %s/elsewhere", dir, dir);
    cli_result *r = cli_in(dir, "bench --image %s %s --results results/pub1", truth_png(), opts);
    CHECK(r->code == 0);
    test_sh("cd %s/results && cp -r pub1 pub2 && printf 'pub1\\npub2\\n' > published.txt", dir);
    r = cli_in(dir, "report");
    static char machines[1 << 17], again[1 << 17], page[1 << 17];
    test_slurp(test_pathf("repo/report/MACHINES.md"), machines, sizeof machines);
    CHECKF(r->code == 0 && strstr(machines, "pub2"), "report: exit %d: %s", r->code, r->err);

    /* this report draws its plots (the suite's others write their scripts alone: SB_PLOTS) */
    r = cli_exe("cd", "%s && SB_PLOTS=draw %s bench --image %s %s --results results/mine --report", dir,
                test_segbench_path(), truth_png(), opts);
    test_slurp(test_pathf("repo/report/MACHINES.md"), again, sizeof again);
    CHECKF(r->code == 0 && strcmp(machines, again) == 0, "a local run rewrote MACHINES.md: exit %d: %s", r->code,
           r->err);
    test_slurp(test_pathf("repo/report/mine/MACHINES.md"), page, sizeof page);
    CHECKF(strstr(page, "| mine |") && strstr(page, "| pub1 |"), "no page of mine beside the published: %.800s",
           page);
    test_slurp(test_pathf("repo/report/mine/REPORT.md"), page, sizeof page);
    CHECKF(strstr(page, "[MACHINES.md](MACHINES.md)"), "REPORT.md of mine links no page beside it");

    r = cli_in(dir, "bench --image %s %s --results %s/elsewhere/x --report", truth_png(), opts, dir);
    CHECKF(r->code == 0 && test_exists(test_pathf("repo/elsewhere/x/report/REPORT.md")) &&
               !test_exists(test_pathf("repo/report/x")),
           "--results elsewhere: exit %d: %s", r->code, r->err);
    test_slurp(test_pathf("repo/report/MACHINES.md"), again, sizeof again);
    CHECK(strcmp(machines, again) == 0);

    r = cli_in(dir, "report");                       /* make report: the same page from the same sets */
    test_slurp(test_pathf("repo/report/MACHINES.md"), again, sizeof again);
    CHECKF(r->code == 0 && strcmp(machines, again) == 0 && test_exists(test_pathf("repo/report/mine/MACHINES.md")),
           "make report: exit %d: %s", r->code, r->err);
}

/* The integral image's cpu and openmp rows at `threads`, benched into
 * <test dir>/<name>/R with `extra` options; the folder's path in dir. */
static cli_result *bench_integral(const char *name, const char *threads, const char *extra, char *dir, size_t size)
{
    snprintf(dir, size, "%s", test_pathf("%s", name));
    test_sh("mkdir -p %s", dir);
    return cli_in(dir, "bench --image %s --algo integral --variant cpu,openmp --threads %s --budget 2 --quiet "
                       "--results R %s",
                  truth_png(), threads, extra);
}

/* A machine without a GPU: the integral image is still memory-bound (its
 * CPU rows against the host's copy peak, the bandwidth plot drawn), the
 * limit table gives way to a line saying why, no lessons page of "-"
 * and no "n/a GB/s".  Before, every page called it compute-bound. */
static void test_cpu_only_report(void)
{
    char dir[1200];
    cli_result *r = bench_integral("cpuonly", "1", "--report", dir, sizeof dir);
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    static char md[1 << 17];
    test_slurp(test_pathf("cpuonly/report/R/integral.md"), md, sizeof md);
    CHECKF(strstr(md, "A memory-bound stage") && strstr(md, "| GB/s | % of peak |") && !strstr(md, "compute-bound") &&
               !strstr(md, "lessons-integral.md"),
           "%.1500s", md);
    CHECK(test_exists(test_pathf("cpuonly/report/R/plots/integral-sum-bandwidth.gp")));
    CHECK(!test_exists(test_pathf("cpuonly/report/R/lessons-integral.md")));
    test_slurp(test_pathf("cpuonly/report/R/REPORT.md"), md, sizeof md);
    CHECKF(strstr(md, "No GPU rows on this machine") && !strstr(md, "| fastest GPU rung |") &&
               strstr(md, "| device copy bandwidth (measured, read + write) | none (no GPU) |") &&
               !strstr(md, "host <-> device bus"),
           "%.3000s", md);
    /* a GPU machine's env.json names the bus each way and both at once; the machine table says them */
    test_sh("cd %s && sed -i 's/^  \"gpu_present\"/  \"bus_to_device_gbps\": 55.2,\\n  \"bus_to_host_gbps\": 54.1,"
            "\\n  \"bus_both_gbps\": 92.0,\\n  \"gpu_present\"/' R/env.json", dir);
    r = cli_in(dir, "report --results R --out bus");
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    test_slurp(test_pathf("cpuonly/bus/REPORT.md"), md, sizeof md);
    CHECKF(strstr(md, "| host <-> device bus (measured, pinned copies of 256 MiB) | 55.2 GB/s to the device, 54.1 to "
                      "the host, 92.0 both at once |"),
           "%.3000s", md);
}

/* --host-limit (make bench's quick protocol): the CPU rows predicted over
 * it are left out, said at the end, kept in the run's options, noted at
 * the top of the report; the serial reference stays. */
static void test_host_limit_leaves_rows_out(void)
{
    char dir[1200];
    cli_result *r = bench_integral("hostlimit", "1,2", "--host-limit 0.000000001 --report", dir, sizeof dir);
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    CHECKF(strstr(r->err, "CPU row(s) left to the run of record") && strstr(r->err, "--host-limit 1e-09 s"), "%.2000s",
           r->err);
    static char text[1 << 17];
    test_slurp(test_pathf("hostlimit/R/integral.csv"), text, sizeof text);
    CHECKF(strstr(text, ",cpu,cpu,1,") && !strstr(text, ",openmp,"), "%.1500s", text);
    test_slurp(test_pathf("hostlimit/R/env.json"), text, sizeof text);
    CHECKF(strstr(text, "host_limit=1e-09"), "%.1500s", text);
    test_slurp(test_pathf("hostlimit/report/R/REPORT.md"), text, sizeof text);
    CHECKF(strstr(text, "**CPU rows left out.**"), "%.1500s", text);
    /* without the option every row is measured, and the report says nothing of it */
    r = bench_integral("nolimit", "1,2", "--report", dir, sizeof dir);
    CHECKF(r->code == 0 && !strstr(r->err, "left to the run of record"), "exit %d: %s", r->code, r->err);
    test_slurp(test_pathf("nolimit/R/integral.csv"), text, sizeof text);
    CHECKF(strstr(text, ",openmp,"), "%.1500s", text);
    test_slurp(test_pathf("nolimit/report/R/REPORT.md"), text, sizeof text);
    CHECK(!strstr(text, "**CPU rows left out.**"));
}

/* The summary: best CPU and GPU by kernel and by frame, what to use, the
 * serial reference marked host-dependent; e2e below a frame is flagged. */
/* The set both tests below read, made once by whichever runs first in
 * this process: CPU rows at 1 and 2 threads, a floor row as a GPU run has
 * one (cuda-copy) and the peak it answers to, and its report. */
static void summary_report(void)
{
    if (test_exists(test_pathf("summary/report/R/REPORT.md")))
        return;
    char dir[1200];
    cli_result *r = bench_integral("summary", "1,2", "", dir, sizeof dir);
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    test_sh("cd %s/R && awk -F, -v OFS=, 'NR == 2 { print; $3 = \"cuda-copy\"; $4 = \"cuda-global\"; $10 = $10 / 4; "
       "print; next } { print }' integral.csv > t && mv t integral.csv && "
       "sed -i 's/\"gpu_present\": false,/\"gpu_present\": false, \"device_copy_gbps\": 2000.0,/' env.json",
       dir);
    r = cli_in(dir, "report --results R");
    CHECKF(r->code == 0, "report: exit %d: %s", r->code, r->err);
}

static void test_summary_tells_both(void)
{
    summary_report();
    static char md[1 << 17];
    test_slurp(test_pathf("summary/report/R/REPORT.md"), md, sizeof md);
    CHECKF(strstr(md, "| best CPU | best GPU | GPU vs best CPU | per frame: best CPU | per frame: best GPU (+ setup) |") &&
               strstr(md, "| use |") && strstr(md, "serial `cpu`\xc2\xb9") && strstr(md, "\xc2\xb9 Host-dependent"),
           "%.1500s", md);
    test_slurp(test_pathf("summary/report/R/integral.md"), md, sizeof md);
    CHECKF(strstr(md, "Kernel time by image size, ms"), "no time-by-size table");

    /* a cold run below a frame is impossible for the same work: flagged */
    sb_row row;
    memset(&row, 0, sizeof row);
    row.e2e.n = row.frame.n = 5;
    row.e2e.median = 1.0;
    row.frame.median = 2.0;
    int flags = sb_noise_row_flags(&row, 0);
    char text[64];
    sb_noise_flag_text(flags, text, sizeof text);
    CHECKF(strcmp(text, "e2e_below_frame") == 0, "flags '%s'", text);
    row.e2e.median = 2.5;
    CHECK((sb_noise_row_flags(&row, 0) & SB_NOISE_FLAG_E2E) == 0);
}

/* The plots: thread scaling log-log with the ideal a line; GB/s against
 * both measured peaks; the sweep plot in the variants' colours. */
static void test_plots_say_it_straight(void)
{
    summary_report();
    char gp[1 << 14];
    test_slurp(test_pathf("summary/report/R/plots/integral-sum-threads.gp"), gp, sizeof gp);
    /* log-log, its ticks the thread counts measured and decades of speed-up
     * (gnuplot's own powers of 2 read 0.00390625) */
    CHECKF(strstr(gp, "set logscale x 2") && strstr(gp, "set logscale y 10") && strstr(gp, "set format y '%g'") &&
               strstr(gp, "set xtics (1, 2)") && strstr(gp, "ideal"),
           "%s", gp);
    /* log-scale bars stand on the decade below the shortest, not on 1 ms */
    test_slurp(test_pathf("summary/report/R/plots/integral-sum-ladder.gp"), gp, sizeof gp);
    CHECKF(strstr(gp, "base = ") && strstr(gp, "set yrange [base:*]") && strstr(gp, "with boxxyerror") &&
               !strstr(gp, "with boxes"),
           "%s", gp);
    test_slurp(test_pathf("summary/report/R/plots/integral-sum-bandwidth.gp"), gp, sizeof gp);
    CHECKF(strstr(gp, "GB/s") && strstr(gp, "host memcpy peak") && strstr(gp, "device copy peak (2000 GB/s)") &&
               strstr(gp, "floor: cuda-copy"),
           "%s", gp);
    /* time by size: a point that is the median of one or two runs is ringed */
    test_slurp(test_pathf("summary/report/R/plots/integral-sum-time.gp"), gp, sizeof gp);
    CHECKF(strstr(gp, "using 1:($3 < 3 ? $2 : 1/0) with points pt 6") && strstr(gp, "a median of 1 or 2 runs"),
           "%s", gp);
    test_slurp(test_pathf("summary/report/R/plots/integral-sum-time.dat"), gp, sizeof gp);
    const char *point = strstr(gp, "runs\n");
    int a = 0;
    double x, y;
    CHECKF(point && sscanf(point + 5, "%lf %lf %d", &x, &y, &a) == 3 && a >= 1, "%.500s", gp);
}

/* A student's rung built in the tree (segbench exercise) is no rung of the
 * ladders: bench and check leave it out unless --variant names it, and a
 * set that holds its rows (the run of record 20261125T152510Z-adf4 did:
 * integral/student-cuda-pdl, the fastest of its stage) is reported without
 * them, with a note saying so. */
static void test_students_are_no_rungs(void)
{
    CHECK(!sb_variant_pick(NULL, "integral", "student-cuda-pdl") &&
          !sb_variant_pick("cuda-*,student", "integral", "student-cuda-pdl") &&
          sb_variant_pick("student-*", "integral", "student-cuda-pdl") &&
          sb_variant_pick("cuda-*,student-cuda-pdl", "integral", "student-cuda-pdl") &&
          sb_variant_pick(NULL, "integral", "cuda-pdl"));

    char dir[1200];
    snprintf(dir, sizeof dir, "%s", test_pathf("students"));
    test_sh("mkdir -p %s", dir);
    cli_result *r = cli_in(dir, "bench --image %s --algo integral --variant cpu,openmp --threads 1 --budget 2 "
                                "--quiet --results R",
                           truth_png());
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    /* the cpu row again as a student's CUDA rung, ten times faster */
    test_sh("cd %s/R && awk -F, -v OFS=, '$3 == \"cpu\" { print; $3 = \"student-cuda-pdl\"; $4 = \"cuda-shared\"; "
            "$10 = $10 / 10; print; next } { print }' integral.csv > t && mv t integral.csv && "
            "printf 'integral\\tstudent-cuda-pdl\\tcuda-shared\\t2\\t65535\\ta copy\\texercises/integral/6_pdl.cu\\n' "
            ">> variants.tsv", dir);
    r = cli_in(dir, "report --results R");
    CHECKF(r->code == 0 && strstr(r->err, "rows of students' rungs (integral/student-cuda-pdl)"), "report: exit %d: %s",
           r->code, r->err);
    static char md[1 << 17];
    test_slurp(test_pathf("students/report/R/REPORT.md"), md, sizeof md);
    const char *note = strstr(md, "students' rungs (integral/student-cuda-pdl)");
    const char *after = note ? strchr(note, '\n') : NULL;
    CHECKF(after && !strstr(after, "student-cuda-pdl"), "the report shows a student's rung beyond its note");
    test_slurp(test_pathf("students/report/R/integral.md"), md, sizeof md);
    CHECKF(!strstr(md, "student-cuda-pdl"), "the algorithm's page shows a student's rung");
}

/* The four messages: a near option of run, a near command, two options
 * that exclude each other, more threads than cores. */
static void test_cli_messages(void)
{
    const char *png = truth_png();
    char out[1200];
    snprintf(out, sizeof out, "%s", test_pathf("msg.png"));
    cli_result *r = cli("run integral %s %s --thread 4", png, out);
    CHECKF(r->code == 2 && strstr(r->err, "unknown option --thread (did you mean --threads?") && test_lines(r->err) == 1,
           "%s", r->err);
    r = cli("rnu integral %s %s", png, out);
    CHECKF(r->code == 2 && strstr(r->err, "(did you mean run?)"), "%s", r->err);
    r = cli("run slic %s %s --size 16 --segments 100", png, out);
    CHECKF(r->code == 2 && strstr(r->err, "give --size or --segments, not both"), "%s", r->err);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    r = cli("compare integral/openmp@%ld integral/cpu --samples 9 --min-diff 0.5 --image %s", cores * 4, png);
    CHECKF(r->code == 0 && strstr(r->err, "oversubscribed"), "%s", r->err);
    r = cli("run integral --variant openmp --threads %ld %s %s", cores * 4, png, out);
    CHECKF(r->code == 0 && strstr(r->err, "oversubscribed"), "%s", r->err);
}

const sb_test tests_report_truth[] = {
    { "report: --host-limit leaves the slow CPU rows to the run of record, says so, and the report notes it",
      test_host_limit_leaves_rows_out },
    { "truth: without a GPU, the integral image is memory-bound against the host peak; no empty limits or lessons",
      test_cpu_only_report },
    { "truth: a local run and a run elsewhere leave the repository's MACHINES.md and report/ alone",
      test_local_runs_leave_the_repository },
    { "truth: a published set is never replaced by accident (-local, --overwrite of whole algorithms)",
      test_published_sets_are_kept },
    { "truth: make bench's report touches only its machine; no gnuplot keeps older plots, said so",
      test_first_run_touches_only_its_own },
    { "truth: MACHINES.md has a stated baseline, compares one commit whole and another where its code is the same",
      test_machines_compare_one_code },
    { "truth: the summary gives kernel and per-frame winners; e2e below a frame is flagged", test_summary_tells_both },
    { "truth: thread scaling log-log, bandwidth against both peaks", test_plots_say_it_straight },
    { "truth: --thread, rnu, --size with --segments, oversubscribed threads", test_cli_messages },
    { "truth: a student's rung is benched only when named, and reported never (a note says it was left out)",
      test_students_are_no_rungs },
};
const int tests_report_truth_count = sizeof tests_report_truth / sizeof tests_report_truth[0];
