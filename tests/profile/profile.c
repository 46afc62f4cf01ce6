/* test_profile.c - the profiler hand-off and the limits (issue "Profiler
 * hand-off and a limit for every stage"): `segbench profile` refuses what
 * cannot run here and profiles what can; ncu's CSV becomes
 * <algo>.profile.csv with the right sums; the report gives every stage an
 * x limit and names its bound; rows carry clocks and flags; compare says
 * when two sets ran on other GPUs, hosts or clocks. */
#define _DEFAULT_SOURCE
#include "cli_util.h"
#include "test_groups.h"

#include "compare/noise.h"
#include "machine/gpu_clocks.h"
#include "variants/registry.h"
#include "io/rows.h"
#include "pages/report_limits.h"

#include "segbench/device.h"
#include "segbench/image_io.h"
#include "segbench/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *opt_png(void) { return test_grey_png("opt.png", 64, 48, 5); }

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    CHECKF(fp != NULL, "%s", path);
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

/* A CUDA rung on a machine without a GPU: the one line every command uses. */
static void test_profile_refuses(void)
{
    setenv("SB_SIMULATE_DEVICE", "none", 1);
    cli_result *r = cli("profile integral/cuda-pdl --image %s", opt_png());
    unsetenv("SB_SIMULATE_DEVICE");
    /* the reason is the registry's: no GPU, or (a build without nvcc) not built */
    const char *why = sb_device_built() ? "no NVIDIA GPU or driver found" : "not built";
    CHECKF(r->code == 2 && test_lines(r->err) == 1 &&
               strstr(r->err, "segbench profile: integral/cuda-pdl cannot run here: ") && strstr(r->err, why),
           "exit %d: %s", r->code, r->err);
    r = cli("profile integral");
    CHECKF(r->code == 2 && strstr(r->err, "algo/variant"), "%s", r->err);
    r = cli("profile nope/cpu");
    CHECKF(r->code == 2 && strstr(r->err, "unknown algorithm 'nope'"), "%s", r->err);
    r = cli("profile integral/cuda-nothing*");
    CHECKF(r->code == 2 && test_lines(r->err) == 1, "%s", r->err);
    r = cli("profile --import x.csv");
    CHECKF(r->code == 2 && strstr(r->err, "--import NCU_CSV --regions FILE --results DIR"), "%s", r->err);
}

/* A CPU variant profiles (NVTX ranges only): every stage, checked, logged. */
static void test_profile_cpu(void)
{
    const char *regions = test_pathf("cpu.regions.tsv");
    cli_result *r = cli("profile integral/cpu --image %s --regions %s", opt_png(), regions);
    CHECKF(r->code == 0 && strstr(r->out, "integral") && strstr(r->out, "exact") && strstr(r->out, "region 1"),
           "exit %d: %s %s", r->code, r->out, r->err);
    char text[4096];
    test_slurp(regions, text, sizeof text);
    CHECKF(strstr(text, "region\talgo\tstage") && strstr(text, "0\tintegral\tsum\tcpu\t1\topt\t64\t48\texact") &&
               strstr(text, "1\tintegral\tsqsum\tcpu\t1\topt\t64\t48\texact"),
           "%s", text);
    CHECK(sb_trace_built() == 0 || sb_trace_built() == 1);
    sb_trace_push("%s/%d", "a range with no profiler attached", 1);
    sb_trace_pop();
}

/* What ncu --csv --page raw --print-units base writes, in miniature: two
 * regions, a kernel launched twice in the first, numbers with thousands
 * separators, profiler lines around the table. */
static const char *NCU_CSV =
    "==WARNING== Note: Running with unmodified GPU clocks.\n"
    "==PROF== Connected to process 1 (segbench)\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\",\"gpu__time_duration.sum\","
    "\"lts__throughput.avg.pct_of_peak_sustained_elapsed\",\"sm__cycles_elapsed.avg.per_second\","
    "\"sm__inst_issued.avg.pct_of_peak_sustained_elapsed\",\"sm__warps_active.avg.pct_of_peak_sustained_active\","
    "\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio\","
    "\"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio\","
    "\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\",\"smsp__inst_executed.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\",\"ns\",\"%\",\"hz\",\"%\",\"%\","
    "\"ratio\",\"ratio\",\"ratio\",\"inst\"\n"
    "\"0\",\"1\",\"segbench\",\"h\",\"sb_profile_marker()\",\"1\",\"13\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\","
    "\"0\",\"0\",\"2,048\",\"0\",\"1,980,000,000\",\"0\",\"0\",\"0\",\"0\",\"0\",\"4\"\n"
    "\"1\",\"1\",\"segbench\",\"h\",\"void tile_sat<SumOp, GlobalLoader>(const unsigned char *, int)\",\"1\",\"13\","
    "\"(128, 1, 1)\",\"(30, 68, 1)\",\"0\",\"9.0\",\"1,000,000\",\"2,000,000\",\"10,000\",\"50\",\"1,980,000,000\","
    "\"20\",\"40\",\"3\",\"9\",\"1\",\"1,056,000\"\n"
    "\"2\",\"1\",\"segbench\",\"h\",\"void tile_sat<SumOp, GlobalLoader>(const unsigned char *, int)\",\"1\",\"13\","
    "\"(128, 1, 1)\",\"(30, 68, 1)\",\"0\",\"9.0\",\"1,000,000\",\"2,000,000\",\"30,000\",\"50\",\"1,980,000,000\","
    "\"20\",\"40\",\"1\",\"9\",\"2\",\"1,056,000\"\n"
    "\"3\",\"1\",\"segbench\",\"h\",\"sb_profile_marker()\",\"1\",\"13\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\","
    "\"0\",\"0\",\"2,048\",\"0\",\"1,980,000,000\",\"0\",\"0\",\"0\",\"0\",\"0\",\"4\"\n"
    "\"4\",\"1\",\"segbench\",\"h\",\"other(int)\",\"1\",\"13\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\","
    "\"500\",\"500\",\"1,000\",\"5\",\"1,980,000,000\",\"1\",\"10\",\"2\",\"0\",\"0\",\"1,000\"\n"
    "==PROF== Disconnected from process 1\n";

static const char *REGIONS = "region\talgo\tstage\tvariant\tthreads\timage\twidth\theight\tverdict\tms\n"
                             "0\tintegral\tsum\tcuda-pdl\t1\topt\t64\t48\texact\t0.5\n"
                             "1\tintegral\tsqsum\tcuda-pdl\t1\topt\t64\t48\texact\t0.5\n";

/* A result set of CPU rows, a made-up cuda-pdl row of 0.05 ms in
 * stage sum, and an env.json that names a GPU of 132 SMs and a 3000 GB/s
 * copy: what the import and the report need. */
static const char *gpu_results(void)
{
    static char dir[1200];
    snprintf(dir, sizeof dir, "%s/prof-results", sb_test_dir());
    if (test_exists(dir))
        return dir;
    cli_result *r = cli("bench --image %s --algo integral --variant cpu --threads 1 --budget 5 --min-reps 3 "
                        "--max-reps 20 --results %s --quiet",
                        opt_png(), dir);
    CHECKF(r->code == 0, "bench: exit %d: %s", r->code, r->err);
    test_sh("cd %s && awk -F, -v OFS=, 'NR == 2 { print; $3 = \"cuda-pdl\"; $4 = \"cuda-shared\"; $10 = 0.05; print; "
       "next } { print }' integral.csv > t && mv t integral.csv && "
       "sed -i 's/^  \"run_id\":/  \"gpu_sm_count\": 132,\\n  \"device_copy_gbps\": 3000.0,\\n  \"run_id\":/' env.json",
       test_shq(dir));
    return dir;
}

/* gpu_results() with the profile of NCU_CSV imported: what the report
 * and the limits read (made once in this process). */
static const char *profiled_results(void)
{
    const char *dir = gpu_results(), *csv = test_pathf("ncu.csv"), *regions = test_pathf("ncu.regions.tsv");
    char path[1300];
    snprintf(path, sizeof path, "%s/integral.profile.csv", dir);
    if (test_exists(path))
        return dir;
    write_text(csv, NCU_CSV);
    write_text(regions, REGIONS);
    cli_result *r = cli("profile --import %s --regions %s --results %s", csv, regions, dir);
    CHECKF(r->code == 0 && strstr(r->out, "integral.profile.csv"), "exit %d: %s %s", r->code, r->out, r->err);
    return dir;
}

static void test_ncu_import(void)
{
    const char *dir = profiled_results(), *csv = test_pathf("ncu.csv"), *regions = test_pathf("ncu.regions.tsv");
    char text[8192], path[1300];
    snprintf(path, sizeof path, "%s/integral.profile.csv", dir);
    test_slurp(path, text, sizeof text);
    /* tile_sat: 2 launches, 0.04 ms, 2+4 MB; 2,112,000 warp instructions at
     * 4 x 132 x 1.98 GHz = 0.00202 ms; barrier wins the stalls weighted by
     * time (70000 against long scoreboard's 60000; "selected" is no stall) */
    CHECKF(strstr(text, "integral,sum,cuda-pdl,1,opt,\"void tile_sat<SumOp, GlobalLoader>\",2,0.040000,2000000,"
                        "4000000,150.00,0.0500,50.00,20.00,40.00,2112000,1980,0.002020,barrier,53.8,") != NULL,
           "%s", text);
    CHECKF(strstr(text, "integral,sum,cuda-pdl,1,opt,(all),2,") && strstr(text, "integral,sqsum,cuda-pdl,1,opt,other,1,"),
           "%s", text);
    /* a marker past the regions the run logged (ncu stopped mid-run): the rest is left out */
    write_text(regions, "region\talgo\tstage\tvariant\tthreads\timage\twidth\theight\tverdict\tms\n"
                        "0\tintegral\tsum\tcuda-pdl\t1\topt\t64\t48\texact\t0.5\n");
    cli_result *r = cli("profile --import %s --regions %s --results %s", csv, regions, test_pathf("nowhere"));
    CHECKF(r->code == 2 && strstr(r->err, "env.json"), "%s", r->err);
    write_text(csv, "==PROF== nothing profiled\n");
    r = cli("profile --import %s --regions %s --results %s", csv, regions, dir);
    CHECKF(r->code == 2 && strstr(r->err, "no ncu CSV table"), "%s", r->err);
    write_text(csv, NCU_CSV);
    write_text(regions, REGIONS);
    r = cli("profile --import %s --regions %s --results %s", csv, regions, dir);
    CHECK(r->code == 0);
}

/* The summary's x limit and the limits table, from the profile just made:
 * 0.05 ms against an issue floor of 0.00202 ms (the memory floor of 15360
 * bytes at 3000 GB/s is 5.1 ns), bound by latency: 4 % of the copy rate,
 * 4 % of issue, the kernels fill 80 % of the run, barriers first. */
static void test_limits_in_report(void)
{
    const char *dir = profiled_results(), *out = test_pathf("prof-report");
    cli_result *r = cli("report --results %s --out %s", dir, out);
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    static char md[1 << 17];
    char path[1300];
    snprintf(path, sizeof path, "%s/REPORT.md", out);
    test_slurp(path, md, sizeof md);
    const char *row = strstr(md, "| [integral](integral.md) | sum | cuda-pdl | 0.05 |");
    CHECKF(row && strstr(row, "| 24.75x | latency: neither DRAM (4 % of the copy rate) nor issue slots (4 %)") &&
               strstr(row, "the block's barriers (__syncthreads) (54 % of stalls)"),
           "%.600s", row ? row : md);
    CHECKF(strstr(md, "| 24.75x (latency) |") != NULL, "summary has no x limit");
    snprintf(path, sizeof path, "%s/integral.md", out);
    test_slurp(path, md, sizeof md);
    CHECKF(strstr(md, "**Limit.** `cuda-pdl` runs at **24.75x**") && strstr(md, "## Roofline") &&
               strstr(md, "plots/integral-roofline.png"),
           "integral.md: no limit or roofline");
}

/* The grader's x limit on another GPU (stage_limit_on): the
 * report's issue floor -- the profiled warp instructions of the stage's
 * fastest rung -- at that GPU's SMs and clock, where it is above the
 * memory floor; the memory floor alone at an image the set did not
 * profile.  (A grade once put a compute-bound mean-shift rung at "933x
 * limit" against its few bytes, where the report says 1.13x.) */
static void test_limit_on_other_gpu(void)
{
    const char *dir = profiled_results();
    const sb_algo *algo = sb_algo_find("integral");
    profile_set p;
    CHECK(profile_read(dir, "integral", &p));
    const profile_line *l = profile_total(&p, "sum", "cuda-pdl", "opt");
    CHECKF(l && l->warp_insts > 0, "no (all) line of sum / cuda-pdl / opt in %s", dir);
    if (l) {
        double issue, want = l->warp_insts / (4.0 * 66 * 1000e6) * 1e3;
        double limit = stage_limit_on(dir, algo, 0, "opt", 1.0, 3000.0, 66, 1000.0, &issue);
        CHECKF(fabs(issue - want) <= 1e-9 * want && limit == issue, "issue %g (want %g), limit %g", issue, want, limit);
        limit = stage_limit_on(dir, algo, 0, "opt", 3e12, 3000.0, 66, 1000.0, &issue);
        CHECKF(fabs(limit - 1000.0) < 1e-6 && issue == want, "bytes over the issue floor: limit %g ms", limit);
        limit = stage_limit_on(dir, algo, 0, "another", 3e9, 3000.0, 66, 1000.0, &issue);
        CHECKF(issue == 0 && fabs(limit - 1.0) < 1e-9, "an image never profiled: issue %g, limit %g", issue, limit);
    }
    profile_free(&p);
}

/* The profile of a timed row: joined by code identity, not commit.  A
 * profile made at another commit of the same code is the row's, silently;
 * one of other code says so (io/code_ids.h). */
static void test_profile_join_by_code(void)
{
    const char *dir = profiled_results();
    profile_set p;
    CHECK(profile_read(dir, "integral", &p));
    profile_line *l = (profile_line *)profile_total(&p, "sum", "cuda-pdl", "opt");
    const char *built = sb_variant_code_id(sb_variant_find("integral", "cuda-pdl"));
    CHECKF(l && strcmp(l->code_id, built) == 0, "the profile's code_id is '%s', the build's %s", l ? l->code_id : "-",
           built);
    if (!l) {
        profile_free(&p);
        return;
    }
    sb_row top;
    memset(&top, 0, sizeof top);
    snprintf(top.algo, sizeof top.algo, "integral");
    snprintf(top.stage, sizeof top.stage, "sum");
    snprintf(top.variant, sizeof top.variant, "cuda-pdl");
    snprintf(top.image, sizeof top.image, "opt");
    snprintf(top.commit, sizeof top.commit, "another-commit");
    snprintf(top.code_id, sizeof top.code_id, "%s", built);
    top.kernel.median = 0.05;
    top.bytes = 15360;
    stage_limit lim;
    stage_limit_compute(&top, 3000.0, &p, &lim);
    CHECKF(!strstr(lim.bound, "profiled at"), "the same code, another commit: %s", lim.bound);
    snprintf(top.code_id, sizeof top.code_id, "ffffffffffffffff");
    stage_limit_compute(&top, 3000.0, &p, &lim);
    CHECKF(strstr(lim.bound, "(profiled at other code: commit"), "other code: %s", lim.bound);
    profile_free(&p);
}

/* A device row's clocks: flags, CSV round trip, the reasons by name. */
static void test_clock_flags(void)
{
    sb_row r;
    memset(&r, 0, sizeof r);
    CHECK(sb_noise_clock_flags(&r, 1980) == 0);
    r.sm_mhz[0] = 1400;
    r.sm_mhz[1] = 1980;
    CHECK(sb_noise_clock_flags(&r, 1980) == SB_NOISE_FLAG_LOW_CLOCK);
    CHECK(sb_noise_clock_flags(&r, 0) == 0);
    char reasons[64], flags[64];
    sb_gpu_clocks_reasons_text(0x04 | 0x40 | 0x01, reasons, sizeof reasons);
    CHECKF(!strcmp(reasons, "sw_power_cap;hw_thermal"), "%s", reasons);
    snprintf(r.clock_reasons, sizeof r.clock_reasons, "%s", reasons);
    int f = sb_noise_clock_flags(&r, 1980);
    sb_noise_flag_text(f, flags, sizeof flags);
    CHECKF(!strcmp(flags, "throttled;low_clock"), "%s", flags);

    setenv("SB_SIMULATE_CLOCKS", "1500,2619,0x4", 1);
    sb_gpu_clocks c;
    CHECK(sb_gpu_clocks_read(NULL, &c) && c.sm_mhz == 1500 && c.mem_mhz == 2619 && c.reasons == 4);
    CHECK(!strcmp(sb_gpu_clocks_source(), "simulated"));
    unsetenv("SB_SIMULATE_CLOCKS");

    snprintf(r.algo, sizeof r.algo, "integral");
    snprintf(r.stage, sizeof r.stage, "sum");
    snprintf(r.variant, sizeof r.variant, "cuda-pdl");
    snprintf(r.image, sizeof r.image, "x");
    r.mem_mhz[0] = r.mem_mhz[1] = 2619;
    const char *path = test_pathf("clocks.csv");
    FILE *fp = fopen(path, "w");
    fprintf(fp, "%s\n", SB_ROWS_CSV_HEADER);
    sb_row_put_csv(fp, &r);
    fclose(fp);
    sb_rows rows;
    sb_error err;
    CHECKF(sb_rows_read_csv(path, &rows, &err) == SB_OK && rows.count == 1, "%s", err.msg);
    if (rows.count == 1)
        CHECK(rows.row[0].sm_mhz[0] == 1400 && rows.row[0].sm_mhz[1] == 1980 && rows.row[0].mem_mhz[1] == 2619 &&
              !strcmp(rows.row[0].clock_reasons, "sw_power_cap;hw_thermal"));
    sb_rows_free(&rows);
}

/* compare --baseline says when the sets ran on other cards, hosts or clocks. */
static void test_compare_warns_of_machines(void)
{
    const char *base = test_pathf("cmp-base"), *cur = test_pathf("cmp-cur");
    cli_result *r = cli("bench --image %s --algo integral --variant cpu --threads 1 --budget 5 --min-reps 3 "
                        "--max-reps 20 --results %s --quiet",
                        opt_png(), base);
    CHECK(r->code == 0);
    test_sh("rm -rf %s && cp -r %s %s", test_shq(cur), test_shq(base), test_shq(cur));
    test_sh("cd %s && sed -i 's/^  \"run_id\":/  \"gpu_name\": \"NVIDIA H100\",\\n  \"gpu_uuid\": \"GPU-aaaa\",\\n  \"run_id\":/' "
       "env.json && awk -F, -v OFS=, 'NR > 1 { $42 = 1980; $43 = 1980 } { print }' integral.csv > t && mv t integral.csv",
       test_shq(base));
    test_sh("cd %s && sed -i 's/^  \"run_id\":/  \"gpu_name\": \"NVIDIA H100\",\\n  \"gpu_uuid\": \"GPU-bbbb\",\\n  \"run_id\":/; "
       "s/\"cpu_model\": \"/\"cpu_model\": \"Other /; s/\"host_copy_gbps\": {\"1\": [0-9.]*/\"host_copy_gbps\": {\"1\": 1.0/' env.json && "
       "awk -F, -v OFS=, 'NR > 1 { $42 = 1500; $43 = 1500 } { print }' integral.csv > t && mv t integral.csv",
       test_shq(cur));
    r = cli("compare --baseline %s --current %s", base, cur);
    CHECKF(r->code == 0 && strstr(r->err, "different GPUs: baseline NVIDIA H100 (GPU-aaaa), current NVIDIA H100 (GPU-bbbb)") &&
               strstr(r->err, "different hosts: baseline ") && strstr(r->err, "a host of another speed: one thread copied ") &&
               strstr(r->err, "different GPU clocks: the baseline's rows ran at a median SM clock of 1980 MHz, the "
                              "current's at 1500 MHz"),
           "exit %d: %s", r->code, r->err);
}

/* One lesson under ncu (make profile ALGO= RUNG=): the rung and its
 * parent side by side from a set's profile, the change of each counter. */
static void test_profile_edge(void)
{
    cli_result *r = cli("profile --edge integral/cuda-pdl --results results/h100-80gb-hbm3");
    CHECKF(r->code == 0 && strstr(r->out, "sum at synth-3840x2160: cuda-inflight -> cuda-pdl") &&
               strstr(r->out, "time under ncu, ms") && strstr(r->out, "warp instructions, millions") &&
               strstr(r->out, "cuda-pdl's kernels:") && strstr(r->out, "tile_sat"),
           "exit %d: %s%s", r->code, r->out, r->err);
    r = cli("profile --edge integral/cuda-naive --results results/h100-80gb-hbm3");
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "is a root"), "%d: %s", r->code, r->err);
    r = cli("profile --edge integral/cuda-pdl --results %s", sb_test_dir());
    CHECKF(r->code != 0 && test_lines(r->err) == 1 && strstr(r->err, "no profile there"), "%d: %s", r->code, r->err);
    r = cli("profile --edge integral/cuda-pdl");
    CHECKF(r->code == 2 && strstr(r->err, "--results DIR"), "%d: %s", r->code, r->err);
}

const sb_test tests_profile[] = {
    { "profile: --edge prints a lesson's rung and parent side by side from a set's profile", test_profile_edge },
    { "profile: a CUDA rung without a GPU is refused in one line; bad names too", test_profile_refuses },
    { "profile: a CPU variant, every stage, checked, its regions logged", test_profile_cpu },
    { "profile: ncu's CSV becomes <algo>.profile.csv, sums and floors right", test_ncu_import },
    { "profile: a profile joins its timed row by code identity, and says so when the code differs",
      test_profile_join_by_code },
    { "profile: every stage gets an x limit and a named bound; the roofline is drawn", test_limits_in_report },
    { "profile: the grader's limit on another GPU: the profiled issue floor at its SMs and clock, or bytes",
      test_limit_on_other_gpu },
    { "profile: clocks per row, throttled and low_clock flags, the CSV keeps them", test_clock_flags },
    { "profile: compare warns of other GPUs, hosts and clocks", test_compare_warns_of_machines },
};
const int tests_profile_count = sizeof tests_profile / sizeof tests_profile[0];
