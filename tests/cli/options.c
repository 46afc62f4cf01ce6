/* test_cli_options.c - the command line as users of hyperfine, nvbench and
 * google-benchmark expect it: --help and --version, patterns, exit codes,
 * compare's exports and warnings, JSON output, noise flags, bench-cli. */
#define _DEFAULT_SOURCE        /* usleep */
#include "cli_util.h"
#include "pages/report.h"
#include "test_groups.h"

#include "cli/commands.h"
#include "machine/device_status.h"
#include "compare/noise.h"
#include "io/rows.h"

#include "segbench/atomic_file.h"
#include "segbench/image_io.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ALL_COMMANDS SB_COMMANDS
#define NCOMMANDS SB_COMMAND_COUNT

/* ---- a JSON syntax check (enough to say "a JSON parser reads this") ---- */

static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *json_string(const char *p)
{
    if (*p != '"')
        return NULL;
    for (p++; *p && *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\' && !*++p)
            return NULL;
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *json_list(const char *p, char close, int keyed)
{
    p = json_ws(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (keyed) {
            if (!(p = json_string(json_ws(p))))
                return NULL;
            p = json_ws(p);
            if (*p++ != ':')
                return NULL;
        }
        if (!(p = json_value(p)))
            return NULL;
        p = json_ws(p);
        if (*p == close)
            return p + 1;
        if (*p++ != ',')
            return NULL;
    }
}

static const char *json_value(const char *p)
{
    p = json_ws(p);
    if (*p == '{')
        return json_list(p, '}', 1);
    if (*p == '[')
        return json_list(p, ']', 0);
    if (*p == '"')
        return json_string(p);
    for (const char *word = "true\0false\0null\0"; *word; word += strlen(word) + 1)
        if (strncmp(p, word, strlen(word)) == 0)
            return p + strlen(word);
    char *end;
    strtod(p, &end);
    return end > p && strncmp(p, "nan", 3) && strncmp(p, "inf", 3) ? end : NULL;
}

static int json_valid(const char *text)
{
    const char *end = json_value(text);
    return end && *json_ws(end) == '\0';
}

/* ---- fixtures ---- */

static const char *grey_png(const char *name, int w, int h) { return test_grey_png(name, w, h, 5); }

/* A small result set of integral's cpu and pthread rows, measured once. */
static const char *baseline_set(void)
{
    static char dir[600];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/opt-baseline", sb_test_dir());
        cli_result *r = cli("bench --image %s --algo integral --variant cpu,pthread --threads 1 --budget 5 "
                            "--min-reps 9 --max-reps 40 --results %s --quiet --json",
                            grey_png("opt.png", 64, 48), dir);
        CHECKF(r->code == 0, "bench: exit %d: %s", r->code, r->err);
        /* steady rounds (1 % apart): the verdicts of the copies below are their changes' doing, not the
         * noise of three rounds on a loaded machine (beside the other tests, a 3x change once read
         * undetermined) */
        char steady[1400];
        snprintf(steady, sizeof steady, "cd '%s' && awk -F, -v OFS=, '$6 == \"round\" { $7 = \"1.000000 1.010000 "
                 "0.990000\" } { print }' integral.samples.csv > t && mv t integral.samples.csv", dir);
        CHECKF(system(steady) == 0, "%s", steady);
    }
    return dir;
}

/* A copy of the baseline, changed by a shell line run inside it. */
static const char *changed_copy(const char *name, const char *change)
{
    static char dir[600];
    char cmd[4096];
    snprintf(dir, sizeof dir, "%s/%s", sb_test_dir(), name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s' && cd '%s' && %s", dir, baseline_set(), dir, dir, change);
    CHECKF(system(cmd) == 0, "%s", cmd);
    return dir;
}

/* Every sample of integral.samples.csv times 3: the current set is slower. */
#define SLOWER "awk -F, -v OFS=, 'NR > 1 { n = split($7, s, \" \"); $7 = \"\"; " \
               "for (i = 1; i <= n; i++) $7 = $7 (i > 1 ? \" \" : \"\") s[i] * 3 } { print }' " \
               "integral.samples.csv > t && mv t integral.samples.csv"

/* Every sample of kmeans.samples.csv times 3 (its work lines, counts, kept). */
#define KMEANS_SLOWER "awk -F, -v OFS=, 'NR > 1 && $6 != \"work\" { n = split($7, s, \" \"); $7 = \"\"; " \
                      "for (i = 1; i <= n; i++) $7 = $7 (i > 1 ? \" \" : \"\") s[i] * 3 } { print }' " \
                      "kmeans.samples.csv > t && mv t kmeans.samples.csv"

/* ---- tests ---- */

static void test_help_lists_every_option(void)
{
    for (int c = 0; c < NCOMMANDS; c++) {
        const sb_command *cmd = ALL_COMMANDS[c];
        cli_result *r = cli("%s --help", cmd->name);
        CHECKF(r->code == 0, "%s --help: exit %d: %s", cmd->name, r->code, r->err);
        char usage[80];
        snprintf(usage, sizeof usage, "usage: segbench %s", cmd->name);
        CHECKF(strstr(r->out, usage) && strstr(r->out, "exit status:"), "%s --help: %.200s", cmd->name, r->out);
        for (int i = 0; i < cmd->noptions; i++) {
            if (!cmd->options[i].name)
                continue;
            char opt[80];
            snprintf(opt, sizeof opt, "  --%s", cmd->options[i].name);
            CHECKF(strstr(r->out, opt) != NULL, "%s --help lacks %s", cmd->name, opt + 2);
        }
        char text[sizeof r->out];
        memcpy(text, r->out, sizeof text);
        r = cli("%s -h", cmd->name);
        CHECKF(r->code == 0 && strcmp(r->out, text) == 0, "%s -h differs from --help", cmd->name);
        r = cli("help %s", cmd->name);
        CHECKF(r->code == 0 && strcmp(r->out, text) == 0, "help %s differs from --help", cmd->name);
    }
    cli_result *r = cli("run --help");         /* it once said "option --help needs a value" */
    CHECKF(r->code == 0 && strstr(r->out, "--labels FILE"), "run --help: exit %d: %s%s", r->code, r->out, r->err);
    r = cli("--help");
    CHECKF(r->code == 0 && strstr(r->out, "compare") && strstr(r->out, "130 interrupted"), "%s", r->out);
}

static void test_version(void)
{
    cli_result *r = cli("--version");
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    CHECKF(strncmp(r->out, "segbench ", 9) == 0 && strstr(r->out, "commit:") && strstr(r->out, "cflags:") &&
               strstr(r->out, "cuda archs:"),
           "%s", r->out);
    char text[sizeof r->out];
    memcpy(text, r->out, sizeof text);
    r = cli("version");
    CHECK(r->code == 0 && strcmp(r->out, text) == 0);
}

static void test_unknown_names_suggest(void)
{
    cli_result *r = cli("bench --budgt 5");
    CHECKF(r->code == 2 && strstr(r->err, "unknown option '--budgt' (did you mean --budget?"), "exit %d: %s",
           r->code, r->err);
    r = cli("compare --fail-on-slowr");
    CHECKF(r->code == 2 && strstr(r->err, "did you mean --fail-on-slower?"), "exit %d: %s", r->code, r->err);
    r = cli("bnech");
    CHECKF(r->code == 2 && strstr(r->err, "did you mean bench?"), "exit %d: %s", r->code, r->err);
    r = cli("list --zzzzzz");
    CHECKF(r->code == 2 && strstr(r->err, "unknown option '--zzzzzz' (see 'segbench list --help')"), "%s", r->err);
    r = cli("list --json=yes");
    CHECKF(r->code == 2 && strstr(r->err, "--json takes no value"), "%s", r->err);
    /* names in a list and sets too, not only options */
    r = cli("bench --variant opnemp --results %s/never", sb_test_dir());
    CHECKF(r->code == 2 && strstr(r->err, "'opnemp' matches nothing (did you mean 'openmp'? there are: cpu,"),
           "exit %d: %s", r->code, r->err);
    /* a list longer than the message holds is cut at a name, with the count
     * of the rest: the message itself is never cut off (it was, at 512
     * bytes, when the integral ladder grew) */
    CHECKF(strstr(r->err, " more (segbench list))") || strstr(r->err, "cpu-rounds)"), "%s", r->err);
    r = cli("bench --set defualt --results %s/never", sb_test_dir());
    CHECKF(r->code == 2 && strstr(r->err, "unknown dataset 'defualt'") && strstr(r->err, "did you mean 'default'?"),
           "exit %d: %s", r->code, r->err);
}

/* A stage that cannot take an image says so in order with the rows, not
 * after the run's account on stderr (stdout was flushed only by rows, so
 * the last stages' skip lines came out at exit). */
static void test_skips_in_order(void)
{
    cli_result *r = cli_exe("sh -c", "'%s bench --image %s --algo slic --variant cpu --budget 1 --results %s/skips "
                                     "2>&1'",
                            test_segbench_path(), grey_png("tiny.png", 6, 4), sb_test_dir());
    const char *skip = strstr(r->out, "n1000-majority skipped on tiny (6x4)");
    const char *account = strstr(r->out, "where the time went");
    CHECKF(r->code == 0 && skip && account && skip < account, "exit %d: %s", r->code, r->out);
}

static void test_patterns(void)
{
    cli_result *r = cli("check --image %s --algo 'integ*' --variant 'cpu,p*' --threads 1", grey_png("opt.png", 64, 48));
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    CHECKF(strstr(r->out, " cpu ") && strstr(r->out, " pthread ") && !strstr(r->out, " openmp "), "%s", r->out);
    CHECKF(strstr(r->out, " sum ") && strstr(r->out, " sqsum "), "%s", r->out);
    r = cli("check --image %s --algo integral --variant cpu --stage 'sq*'", grey_png("opt.png", 64, 48));
    CHECKF(r->code == 0 && strstr(r->out, " sqsum ") && !strstr(r->out, " sum "), "%s%s", r->out, r->err);

    r = cli("bench --variant 'nomatch*' --results %s/never", sb_test_dir());
    CHECKF(r->code == 2 && strstr(r->err, "--variant: 'nomatch*' matches nothing (there are: cpu, pthread"),
           "exit %d: %s", r->code, r->err);
    r = cli("list --algo 'zz*'");
    CHECKF(r->code == 2 && strstr(r->err, "--algo: 'zz*' matches nothing (there are: integral"), "%s", r->err);
    r = cli("run integral --variant 'pthread,o*' %s %s/x.png", grey_png("opt.png", 64, 48), sb_test_dir());
    CHECKF(r->code == 2 && strstr(r->err, "matches 2 of integral's (pthread, openmp); run takes one"), "%s", r->err);
    r = cli("run integral --variant 'pthread-s*' %s %s/x.png", grey_png("opt.png", 64, 48), sb_test_dir());
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);

    r = cli("list --json --algo integral --variant '*mp,cpu'");
    CHECKF(r->code == 0 && json_valid(r->out), "list --json: exit %d, not JSON: %.300s", r->code, r->out);
    CHECKF(strstr(r->out, "\"name\": \"openmp\"") && strstr(r->out, "\"name\": \"cpu\"") &&
               !strstr(r->out, "\"name\": \"pthread\"") && !strstr(r->out, "\"name\": \"kmeans\""),
           "%s", r->out);
}

/* Issue 76, item 6: rows whose work differs (k-means' passes) are not
 * called faster or slower, however far apart their times; the same
 * slowdown with the same work is. */
static void test_compare_work_differs(void)
{
    char base[600], copy[900];
    snprintf(base, sizeof base, "%s/work-base", sb_test_dir());
    cli_result *r = cli("bench --image %s --algo kmeans --variant cpu --stage converge --threads 1 --budget 5 "
                        "--min-reps 9 --max-reps 40 --results %s --quiet --stream off --repeat off",
                        test_grey_png("work.png", 64, 48, 9), base);
    CHECKF(r->code == 0, "bench: exit %d: %s", r->code, r->err);
    char csv[4096];
    snprintf(copy, sizeof copy, "%s/kmeans.csv", base);
    test_slurp(copy, csv, sizeof csv);
    CHECKF(strstr(csv, ",passes "), "no work column: %.400s", csv);
    /* the rounds made steady (1 % apart), so that the verdicts below are the work's doing, not the noise of
     * a loaded machine's three rounds */
    char steady[1400];
    snprintf(steady, sizeof steady, "cd '%s' && awk -F, -v OFS=, '$6 == \"round\" { $7 = \"1.000000 1.010000 "
             "0.990000\" } { print }' kmeans.samples.csv > t && mv t kmeans.samples.csv", base);
    CHECKF(system(steady) == 0, "%s", steady);
    static const struct {
        const char *name, *change, *says;
        int code;
    } cases[] = {
        { "work-slower", KMEANS_SLOWER, "slower on 1, same on 0, undetermined on 0", 3 },
        { "work-more", KMEANS_SLOWER " && sed -i 's/,passes [0-9]*$/,passes 99/' kmeans.csv",
          "work differs on 1", 0 },
        { "work-varied", "sed -i 's/,passes \\([0-9]*\\)$/,passes \\1..99/' kmeans.csv", "work differs on 1", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[4800];
        snprintf(copy, sizeof copy, "%s/%s", sb_test_dir(), cases[i].name);
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s' && cd '%s' && %s", copy, base, copy, copy,
                 cases[i].change);
        CHECKF(system(cmd) == 0, "%s", cmd);
        r = cli("compare --baseline %s --current %s --fail-on-slower", base, copy);
        CHECKF(r->code == cases[i].code && strstr(r->out, cases[i].says), "%s: exit %d: %s%s", cases[i].name,
               r->code, r->out, r->err);
        if (i > 0)
            CHECKF(strstr(r->out, i == 1 ? "work: passes " : "work varied between the current side's rounds") &&
                       !strstr(r->out, "slower by"),
                   "%s: %s", cases[i].name, r->out);
    }
}

static void test_exit_codes(void)
{
    CHECK(cli("list")->code == 0);
    CHECK(cli("list --bogus")->code == 2);
    const char *base = baseline_set();

    const char *slow = changed_copy("opt-slow", SLOWER);
    cli_result *r = cli("compare --baseline %s --current %s --fail-on-slower", base, slow);
    CHECKF(r->code == 3 && strstr(r->err, "slower on"), "slower: exit %d: %s", r->code, r->err);
    r = cli("compare --baseline %s --current %s --strict", base, slow);
    CHECKF(r->code == 3, "--strict: exit %d", r->code);
    r = cli("compare --baseline %s --current %s", base, slow);
    CHECKF(r->code == 0 && strstr(r->out, "slower on 4"), "without --fail-on-slower: exit %d: %s", r->code, r->out);

    const char *failed = changed_copy("opt-fail", "sed -i '2s/,exact,/,FAIL,/' integral.csv");
    r = cli("compare --baseline %s --current %s --fail-on-slower", base, failed);
    CHECKF(r->code == 1 && strstr(r->out, "FAILED"), "a broken contract: exit %d: %s%s", r->code, r->out, r->err);

    /* Ctrl-C: the process ends as SIGINT ends it (a shell says 130) */
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);        /* as at a terminal: a background job of a script inherits it ignored */
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(127);
        char results[600];
        snprintf(results, sizeof results, "%s/opt-interrupted", sb_test_dir());
        execl(test_segbench_path(), "segbench", "bench", "--image", grey_png("opt-big.png", 1500, 1000), "--algo",
              "integral", "--variant", "cpu", "--budget", "60000", "--min-reps", "100000", "--max-reps", "100000",
              "--results", results, (char *)NULL);   /* minutes of runs: still running when the signal comes */
        _exit(127);
    }
    usleep(700 * 1000);
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "after SIGINT: status %#x", status);
}

static void test_compare_exports_and_warnings(void)
{
    const char *base = baseline_set();
    /* another machine: refused in one line (a verdict across machines measures the machines) */
    const char *other = changed_copy("opt-machine", "sed -i 's/\"machine_id\": \"[^\"]*\"/\"machine_id\": "
                                                    "\"other-gpu\"/' env.json");
    cli_result *r = cli("compare --baseline %s --current %s", base, other);
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "current set on other-gpu") &&
               !strstr(r->out, "B against A"),
           "exit %d: %s%s", r->code, r->out, r->err);
    /* another dataset, slower, and one row fewer */
    const char *cur = changed_copy("opt-other",
                                   SLOWER " && sed -i 's/\"dataset\": \"[^\"]*\"/\"dataset\": \"smoke\"/' env.json && "
                                   "sed -i '$d' integral.csv");
    char json[700], csv[700];
    snprintf(json, sizeof json, "%s/cmp.json", sb_test_dir());
    snprintf(csv, sizeof csv, "%s/cmp.csv", sb_test_dir());
    r = cli("compare --baseline %s --current %s --export-json %s --export-csv %s", base, cur, json, csv);
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    CHECKF(strstr(r->err, "warning: different datasets"), "%s", r->err);
    CHECKF(strstr(r->out, "only in the baseline") && strstr(r->out, "only in the baseline 1"), "%s", r->out);
    /* the table: A/B lines first, then the header, then rows; no L2 note for CPU rows */
    const char *a = strstr(r->out, "A = baseline"), *head = strstr(r->out, "B/A [95% interval]");
    CHECKF(a && head && a < head && !strstr(r->out, "L2"), "%s", r->out);

    static char text[1 << 16];
    test_slurp(json, text, sizeof text);
    CHECKF(json_valid(text), "compare --export-json is not JSON: %.400s", text);
    const char *fields[] = { "\"mode\": \"results\"", "\"verdict\": \"slower\"", "\"verdict\": \"only_in_baseline\"",
                             "\"ratio\": ", "\"ratio_ci_low\": ", "\"ratio_ci_high\": ", "\"floor\": ", "\"p\": ",
                             "\"a_rounds_ms\": [", "\"b_rounds_ms\": [", "\"summary\": {\"faster\": 0, \"slower\": 3",
                             "different datasets", "\"noise_floor\": \"the defaults",
                             "\"machine\": \"", "\"date\": \"20", "\"commit\": \"" };   /* where it came from */
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        CHECKF(strstr(text, fields[i]) != NULL, "export-json lacks %s", fields[i]);
    /* 3 rounds a side (bench's default): count them in the first result */
    const char *s = strstr(text, "\"a_rounds_ms\": ["), *e = s ? strchr(s, ']') : NULL;
    int commas = 0;
    for (const char *p = s; p && p < e; p++)
        commas += *p == ',';
    CHECKF(s && e && commas == 2, "a_rounds_ms holds %d rounds", commas + 1);

    test_slurp(csv, text, sizeof text);
    CHECKF(strncmp(text, "algo,stage,row,a,b,a_median_ms,b_median_ms,ratio,ratio_ci_low,ratio_ci_high,floor,p,verdict,",
                   92) == 0 && test_lines(text) == 5 && strstr(text, ",slower,") &&
               strstr(text, ",b_rounds_ms,machine,date,commit\n"),
           "export-csv: %.500s", text);

    /* an export to a directory that does not exist fails before any work */
    r = cli("compare --baseline %s --current %s --export-json %s/no/such/dir/x.json", base, cur, sb_test_dir());
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && !strstr(r->out, "B against A"), "exit %d: %s%s", r->code,
           r->out, r->err);
}

/* What compare --baseline refuses in one line with exit 2, where before a
 * CI gate passed: a --current that is not there (every row "only in the
 * baseline", exit 0), a folder of no results or only a header, a results
 * CSV missing a column (read by position: its commit as a time); and
 * times that are not times are undetermined, never "faster" (negative)
 * or "same" (NaN). */
static void test_compare_bad_sets(void)
{
    const char *base = baseline_set();
    cli_result *r = cli("compare --baseline %s --current %s/no-such-run --fail-on-slower", base, sb_test_dir());
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "--current") && strstr(r->err, "no such"),
           "exit %d: %s", r->code, r->err);
    test_sh("mkdir -p %s/empty-set", sb_test_dir());
    r = cli("compare --baseline %s --current %s/empty-set --fail-on-slower", base, sb_test_dir());
    CHECKF(r->code == 2 && strstr(r->err, "holds no rows"), "exit %d: %s", r->code, r->err);
    const char *header = changed_copy("opt-header", "sed -i '2,$d' integral.csv");
    r = cli("compare --baseline %s --current %s --fail-on-slower", base, header);
    CHECKF(r->code == 2 && strstr(r->err, "holds no rows"), "header only: exit %d: %s", r->code, r->err);
    const char *cut = changed_copy("opt-cut", "cut -d, -f10 --complement integral.csv > t && mv t integral.csv");
    r = cli("compare --baseline %s --current %s", base, cut);
    CHECKF(r->code == 2 && strstr(r->err, "column 10 is 'min_ms' where a segbench results CSV has 'median_ms'"),
           "a column missing: exit %d: %s", r->code, r->err);
    const char *neg = changed_copy("opt-negative",
                                   "awk -F, -v OFS=, '$6 == \"round\" { $7 = \"-1 -2 -3\" } { print }' "
                                   "integral.samples.csv > t && mv t integral.samples.csv");
    r = cli("compare --baseline %s --current %s", base, neg);
    CHECKF(r->code == 0 && strstr(r->out, "faster on 0, slower on 0, same on 0"), "negative rounds: %s%s", r->out,
           r->err);
    const char *nan = changed_copy("opt-nan", "awk -F, -v OFS=, '$6 == \"round\" { $7 = \"nan nan nan\" } { print }' "
                                              "integral.samples.csv > t && mv t integral.samples.csv");
    r = cli("compare --baseline %s --current %s", base, nan);
    CHECKF(r->code == 0 && strstr(r->out, "faster on 0, slower on 0, same on 0"), "NaN rounds: %s%s", r->out, r->err);
}

static void test_bench_json_and_flags_column(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/integral.json", baseline_set());
    static char text[1 << 16];
    test_slurp(path, text, sizeof text);
    CHECKF(json_valid(text), "bench --json: not JSON: %.300s", text);
    CHECKF(strstr(text, "\"variant\": \"pthread\"") && strstr(text, "\"samples_ms\": [") &&
               strstr(text, "\"flags\": ") && strstr(text, "\"frame\": {") && strstr(text, "\"setup\": {") &&
               strstr(text, "\"stopped\": \""),
           "%.300s", text);
    snprintf(path, sizeof path, "%s/integral.csv", baseline_set());
    test_slurp(path, text, sizeof text);
    CHECKF(strstr(text, ",run_id,flags,frame_n,") != NULL && strstr(text, ",setup_max_ms,sm_mhz_start,") != NULL &&
               strstr(text, ",clock_reasons,rounds,round_spread,steal,cpu_slowdown,mem_slowdown,code_id,stopped,work\n") !=
                   NULL,
           "integral.csv header: %.400s", text);
}

static void test_noise_flags(void)
{
    sb_row r;
    memset(&r, 0, sizeof r);
    r.kernel = (sb_summary){ .n = 20, .median = 10.0, .min = 5.0, .p25 = 6.0, .p75 = 34.0, .max = 40.0 };
    r.peak_fraction = 2.306;                      /* "230.6 % of peak" on a loaded 2-core machine */
    char governor[64];
    int gov = sb_noise_governor(governor, sizeof governor) ? SB_NOISE_FLAG_GOVERNOR : 0;
    CHECK(sb_noise_row_flags(&r, 1) == (SB_NOISE_FLAG_SPREAD | SB_NOISE_FLAG_OVER_PEAK | gov));
    CHECK(sb_noise_row_flags(&r, 0) == SB_NOISE_FLAG_SPREAD);      /* a GPU row: no host peak */
    r.kernel.p25 = 9.5;
    r.kernel.p75 = 10.5;
    r.peak_fraction = 0.8;
    CHECK(sb_noise_row_flags(&r, 0) == 0);
    r.kernel.n = 1;                                /* one sample has no spread */
    r.kernel.p25 = 1.0;
    CHECK(sb_noise_spread_flag(&r.kernel) == 0);

    char text[64];
    sb_noise_flag_text(SB_NOISE_FLAG_SPREAD | SB_NOISE_FLAG_OVER_PEAK, text, sizeof text);
    CHECKF(strcmp(text, "spread;over_peak") == 0, "%s", text);
    sb_noise_flag_text(SB_NOISE_FLAG_OVER_PEAK, text, sizeof text);
    CHECKF(strcmp(text, "over_peak") == 0, "%s", text);

    /* above the DRAM copy peak with bytes that fit in the last-level cache:
     * expected, labelled cache_resident and no noise (a 640x480 integral
     * image at 182 % of the peak was "noisy" on a 32 MB-L3 machine) */
    r.peak_fraction = 1.8;
    r.bytes = 1.5e6;
    int flags = sb_noise_cache_resident(SB_NOISE_FLAG_OVER_PEAK | SB_NOISE_FLAG_SPREAD, &r, 32.0 * 1048576);
    CHECK(flags == (SB_NOISE_FLAG_CACHE_RESIDENT | SB_NOISE_FLAG_SPREAD));
    sb_noise_flag_text(flags, text, sizeof text);
    CHECKF(strcmp(text, "spread;cache_resident") == 0, "%s", text);
    r.bytes = 66e6;                                /* 4K: past the cache, a real over-peak */
    CHECK(sb_noise_cache_resident(SB_NOISE_FLAG_OVER_PEAK, &r, 32.0 * 1048576) == SB_NOISE_FLAG_OVER_PEAK);
    CHECK(sb_noise_cache_resident(SB_NOISE_FLAG_OVER_PEAK, &r, 0) == SB_NOISE_FLAG_OVER_PEAK);   /* unknown */

    /* the flags column round-trips */
    sb_rows rows = { 0 }, back = { 0 };
    sb_row *w = sb_rows_add(&rows);
    snprintf(w->algo, sizeof w->algo, "integral");
    snprintf(w->stage, sizeof w->stage, "sum");
    snprintf(w->variant, sizeof w->variant, "cpu");
    snprintf(w->image, sizeof w->image, "x");
    snprintf(w->flags, sizeof w->flags, "spread;over_peak");
    sb_error err;
    const char *path = test_path("flags.csv");
    CHECKF(sb_rows_write_csv(&rows, path, &err) == SB_OK && sb_rows_read_csv(path, &back, &err) == SB_OK, "%s",
           err.msg);
    CHECK(back.count == 1 && strcmp(back.row[0].flags, "spread;over_peak") == 0);
    sb_rows_free(&rows);
    sb_rows_free(&back);
}

/* make bench-cli's script on a set that lacks the old hard-coded image, on
 * a machine without a GPU: it must leave out what cannot run and write cli.json. */
static void test_bench_cli_smoke(void)
{
    char cmd[8192], dataset[600], results[600], out[700];
    snprintf(dataset, sizeof dataset, "%s/smoke-set", sb_test_dir());
    snprintf(results, sizeof results, "%s/cli-results", sb_test_dir());
    snprintf(out, sizeof out, "%s/bench-cli.out", sb_test_dir());
    char sbgen[2048];
    snprintf(sbgen, sizeof sbgen, "%s", test_segbench_path());
    strcpy(strrchr(sbgen, '/') + 1, "sbgen");
    snprintf(cmd, sizeof cmd, "%s datasets/sets/smoke.set %s/ >/dev/null 2>&1", sbgen, dataset);
    CHECKF(system(cmd) == 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "bash scripts/bench_cli.sh --dataset %s --results %s --segbench %s --runs 2 >%s 2>&1",
             dataset, results, test_segbench_path(), out);
    int status = system(cmd);
    static char text[1 << 15];
    test_slurp(out, text, sizeof text);
    if (system("command -v hyperfine >/dev/null 2>&1") != 0) {
        /* no hyperfine on this machine: the script must say so and stop */
        printf("    (hyperfine is not installed: checking only that bench-cli says so)\n");
        CHECKF(WEXITSTATUS(status) == 2 && strstr(text, "hyperfine not found"), "%s", text);
        return;
    }
    CHECKF(status == 0, "bench_cli.sh failed: %s", text);
    CHECKF(strstr(text, "integral/cpu on butterfly") != NULL, "%s", text);
    if (!sb_device_usable(NULL, 0))
        CHECKF(strstr(text, "leaving out integral/cuda-pdl") != NULL, "%s", text);
    char path[700];
    snprintf(path, sizeof path, "%s/cli.json", results);
    static char json[1 << 16];
    test_slurp(path, json, sizeof json);
    CHECKF(json_valid(json) && strstr(json, "\"command\": \"integral/cpu on butterfly (493x356)\""), "%.300s", json);

    /* the report shows it as the whole-process table */
    FILE *md = fopen(test_path("cli-report.md"), "w");
    sb_report_cli(md, results);
    fclose(md);
    test_slurp(test_path("cli-report.md"), text, sizeof text);
    CHECKF(strstr(text, "## The whole process") && strstr(text, "| integral/openmp on butterfly (493x356) | "),
           "%s", text);
}

/* report on a folder with no results: an error (it used to write a report of "?"),
 * in one line also where gnuplot is missing (its note came first, a second line) */
static void test_report_without_results(void)
{
    char empty[600], out[600], no_gnuplot[4200];
    snprintf(empty, sizeof empty, "%s/empty-results", sb_test_dir());
    snprintf(out, sizeof out, "%s/empty-report", sb_test_dir());
    sb_error err;
    CHECK(sb_mkdirs(empty, &err) == SB_OK);
    cli_result *r = cli("report --results %s --out %s", empty, out);
    CHECKF(r->code == 2 && strstr(r->err, "holds no results") && test_lines(r->err) == 1, "exit %d: %s", r->code,
           r->err);
    snprintf(no_gnuplot, sizeof no_gnuplot, "env PATH=/nonexistent %s", test_segbench_path());
    r = cli_exe(no_gnuplot, "report --results %s --out %s", empty, out);
    CHECKF(r->code == 2 && strstr(r->err, "holds no results") && test_lines(r->err) == 1,
           "without gnuplot: exit %d: %s", r->code, r->err);
    r = cli("report --results %s/nowhere --out %s", sb_test_dir(), out);
    CHECKF(r->code == 2 && strstr(r->err, "no such results directory"), "exit %d: %s", r->code, r->err);
    r = cli("report --results-root %s --out %s", empty, out);
    CHECKF(r->code == 2 && strstr(r->err, "holds no result sets"), "exit %d: %s", r->code, r->err);
    CHECK(!test_exists(out));
}

/* The report's first screen and honest rows, on results made by the
 * harness plus two rows a CPU machine cannot measure: a floor (cuda-copy),
 * fastest of all, and a GPU row measured once. */
static void test_report_summary_and_rows(void)
{
    char results[600], report[600], path[700], cmd[2048];
    snprintf(results, sizeof results, "%s/sum-results", sb_test_dir());
    snprintf(report, sizeof report, "%s/sum-report", sb_test_dir());
    cli_result *r = cli("bench --image %s --algo integral --variant cpu,pthread,openmp --threads 1,2 --budget 5 "
                        "--min-reps 3 --max-reps 40 --results %s --quiet",
                        grey_png("opt.png", 64, 48), results);
    CHECKF(r->code == 0, "bench: exit %d: %s", r->code, r->err);
    snprintf(cmd, sizeof cmd,
             "cd %s && awk -F, -v OFS=, 'NR == 2 { print; $3 = \"cuda-copy\"; $4 = \"cuda-global\"; $10 = 0.0001; "
             "$31 = 0.00015; print; $3 = \"cuda-pdl\"; $4 = \"cuda-shared\"; $9 = 1; $10 = 0.0002; "
             "$31 = 0.0003; print; next } { print }' "
             "integral.csv > t && mv t integral.csv",
             results);
    CHECKF(system(cmd) == 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/peers.csv", results);          /* as make peers writes it */
    FILE *fp = fopen(path, "w");
    fprintf(fp, "algo,stage,peer,device,image,width,height,n,median_ms,p25_ms,p75_ms,note\n"
                "integral,sum,cv2.integral,cpu,opt,64,48,5,0.0004,0.0004,0.0004,a peer\n");
    fclose(fp);
    snprintf(path, sizeof path, "%s/integral.kernels.csv", results);  /* as a GPU run's census writes it */
    fp = fopen(path, "w");
    fprintf(fp, "stage,variant,image,kernel,block,regs,static_smem,dynamic_smem,blocks_per_sm,occupancy\n"
                "sum,cuda-pdl,opt,scan_tiles,256,32,4096,0,8,1.000\nsqsum,cuda-pdl,opt,other,128,20,0,0,16,1.000\n");
    fclose(fp);
    r = cli("report --results %s --out %s", results, report);
    CHECKF(r->code == 0, "report: exit %d: %s", r->code, r->err);

    /* the fastest CPU row of stage sum, from the CSV */
    sb_rows rows;
    sb_error err;
    snprintf(path, sizeof path, "%s/integral.csv", results);
    CHECKF(sb_rows_read_csv(path, &rows, &err) == SB_OK, "%s", err.msg);
    const sb_row *best = NULL;
    for (int i = 0; i < rows.count; i++) {
        const sb_row *x = &rows.row[i];
        if (!strcmp(x->stage, "sum") && strncmp(x->backend, "cuda", 4) && (!best || x->kernel.median < best->kernel.median))
            best = x;
    }
    char cell[128];
    snprintf(cell, sizeof cell, best && best->threads > 1 ? "| %s@%d " : "| %s ", best ? best->variant : "?",
             best ? best->threads : 0);
    static char md[1 << 17];
    snprintf(path, sizeof path, "%s/REPORT.md", report);
    test_slurp(path, md, sizeof md);
    const char *row = strstr(md, "| [integral](integral.md) | sum |");
    const char *end = row ? strchr(row, '\n') : NULL;
    char line[600] = "";
    if (row && end)
        snprintf(line, sizeof line, "%.*s", (int)(end - row), row);
    CHECKF(strstr(line, cell) != NULL, "summary: best CPU should be %s: %s", cell, line);
    CHECKF(strstr(line, "| cuda-pdl 0.00020 ms \xe2\x80\xa0") && !strstr(line, "cuda-copy"),
           "summary: the floor is not the best GPU (its one sample marked): %s", line);
    const char *frame_cell = strstr(line, "| cuda-pdl 0.00030 ms \xe2\x80\xa0");
    CHECKF(frame_cell && strstr(frame_cell, " + ") && strstr(frame_cell, " + ") < strchr(frame_cell + 1, '|'),
           "summary: the best GPU's per-frame time and setup: %s", line);
    CHECKF(test_lines(md) <= 150, "REPORT.md has %d lines", test_lines(md));
    /* the CPU peer beside segbench's best per-frame time (cuda-pdl: kernel 0.0002 ms, per frame 0.0003
     * ms, 1.33x faster than the peer), like with like */
    CHECKF(strstr(md, "| integral | sum | opt | cv2.integral | cpu | 0.0004 | cuda-pdl 0.0003 ms | 1.33x |"),
           "REPORT.md: no peers row: %.2000s", strstr(md, "## Peers") ? strstr(md, "## Peers") : md);

    snprintf(path, sizeof path, "%s/integral.md", report);
    test_slurp(path, md, sizeof md);
    CHECKF(strstr(md, "| cuda-copy (floor: speed of light) |") && strstr(md, "*floor, not ranked:* `cuda-copy`") &&
               !strstr(md, "\n| cuda-copy | cuda-global |"),
           "integral.md: the floor is labelled and not ranked");
    const char *once = strstr(md, " | n < 3 | 1 |"), *kcell = once;     /* its kernel cell, before it, marked */
    while (kcell && kcell > md && kcell[-1] != '|')
        kcell--;
    CHECKF(once && strstr(kcell, "\xe2\x80\xa0") && strstr(kcell, "\xe2\x80\xa0") < once &&
               strstr(md, "† measured once or twice"),
           "integral.md: n = 1 unmarked");
    CHECKF(strstr(md, "#### What the hardware did, stage sum") &&
               strstr(md, "| cuda-pdl | `scan_tiles` | 256 | 32 | 4096 | 0 | 8 | 100% |"),
           "integral.md: no kernel census table");
    sb_rows_free(&rows);
}

/* The report reads the variants from the results (variants.tsv), so a
 * result set renders the same after a variant is renamed or removed. */
static void test_report_reads_results_not_binary(void)
{
    char results[600], report[600], path[700], cmd[2048];
    snprintf(results, sizeof results, "%s/cat-results", sb_test_dir());
    snprintf(report, sizeof report, "%s/cat-report", sb_test_dir());
    cli_result *r = cli("bench --image %s --algo integral --variant cpu,pthread --threads 1 --budget 5 --min-reps 3 "
                        "--max-reps 20 --results %s --quiet",
                        grey_png("opt.png", 64, 48), results);
    CHECKF(r->code == 0, "bench: exit %d: %s", r->code, r->err);
    static char text[1 << 16];
    snprintf(path, sizeof path, "%s/variants.tsv", results);
    test_slurp(path, text, sizeof text);
    CHECKF(strstr(text, "integral\tpthread\tpthread\t1\t") && strstr(text, "kmeans\tcpu\tcpu\t"),
           "variants.tsv: %.300s", text);
    /* as if pthread had since been renamed pthread-v1, with another summary */
    snprintf(cmd, sizeof cmd,
             "cd %s && sed -i 's/^integral\tpthread\tpthread\t\\([0-9]*\\)\t\\([0-9]*\\)\t.*/integral\tpthread-v1\t"
             "pthread\t\\1\t\\2\tthe old row bands/' variants.tsv && sed -i 's/,pthread,pthread,/,pthread-v1,pthread,/' "
             "integral.csv integral.samples.csv",
             results);
    CHECKF(system(cmd) == 0, "%s", cmd);
    r = cli("report --results %s --out %s", results, report);
    CHECKF(r->code == 0, "report: exit %d: %s", r->code, r->err);
    snprintf(path, sizeof path, "%s/integral.md", report);
    test_slurp(path, text, sizeof text);
    CHECKF(strstr(text, "| pthread-v1 | ") && strstr(text, "the old row bands"),
           "integral.md does not show the variant as the results name it");
}

/* The command-line reference (docs/cli.md) names every option --help lists. */
static void test_readme_matches_help(void)
{
    static char readme[1 << 17];
    test_slurp("docs/cli.md", readme, sizeof readme);
    const char *section = strstr(readme, "# Command line");
    CHECKF(section != NULL, "docs/cli.md has no '# Command line' heading");
    if (!section)
        return;
    size_t len = strlen(section);
    for (int c = 0; c < NCOMMANDS; c++) {
        const sb_command *cmd = ALL_COMMANDS[c];
        char heading[64];
        snprintf(heading, sizeof heading, "segbench %s", cmd->name);
        CHECKF(strstr(section, heading) && (size_t)(strstr(section, heading) - section) < len,
               "docs/cli.md lacks %s", heading);
        for (int i = 0; i < cmd->noptions; i++) {
            if (!cmd->options[i].name)
                continue;
            char opt[80];
            snprintf(opt, sizeof opt, "--%s", cmd->options[i].name);
            const char *at = strstr(section, opt);
            CHECKF(at && (size_t)(at - section) < len, "docs/cli.md lacks %s (%s)", opt,
                   cmd->name);
        }
    }
    const char *codes[] = { "| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |" };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        CHECKF(strstr(section, codes[i]) != NULL, "docs/cli.md's exit-code table lacks %s", codes[i]);
}

const sb_test tests_cli_options[] = {
    { "cli: a stage skipped on an image says so before the run's account", test_skips_in_order },
    { "cli: every command's --help, -h and help COMMAND list all its options", test_help_lists_every_option },
    { "cli: --version names the version, commit, flags and CUDA architectures", test_version },
    { "cli: an unknown option or command suggests the nearest name", test_unknown_names_suggest },
    { "cli: --algo, --variant and --stage take shell patterns; a pattern that matches nothing is an error",
      test_patterns },
    { "cli: exit codes 0, 1, 2, 3 (--fail-on-slower) and SIGINT", test_exit_codes },
    { "cli: compare says 'work differs' where k-means' passes differ or varied, never faster or slower",
      test_compare_work_differs },
    { "cli: compare --export-json/--export-csv, mismatch warnings, rows on one side listed",
      test_compare_exports_and_warnings },
    { "cli: compare refuses a missing folder, one without rows, a column missing; times that are not times decide "
      "nothing",
      test_compare_bad_sets },
    { "cli: bench --json (with frame and setup) and the CSV's flags, frame and setup columns",
      test_bench_json_and_flags_column },
    { "cli: noise flags: spread, over the host peak, governor", test_noise_flags },
    { "cli: make bench-cli on the smoke set without a GPU", test_bench_cli_smoke },
    { "cli: docs/cli.md names every command and option --help lists", test_readme_matches_help },
    { "cli: report on a folder without results is an error", test_report_without_results },
    { "cli: the report's summary picks the best variants; floors are not ranked; n = 1 rows are marked",
      test_report_summary_and_rows },
    { "cli: the report reads variants from the results (variants.tsv), not from the binary",
      test_report_reads_results_not_binary },
};
const int tests_cli_options_count = sizeof tests_cli_options / sizeof tests_cli_options[0];
