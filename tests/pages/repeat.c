/* repeat.c - a run says how well it repeats (issue "Two runs, one
 * answer"): the re-measure at its end, the report's first screen, the §
 * mark on unstable rows and the speed-ups they are part of, and compare
 * --baseline's A/A lines. */
#define _DEFAULT_SOURCE
#include "cli_util.h"
#include "test_groups.h"

#include "io/rows.h"

#include <string.h>

static const char *repeat_png(void) { return test_grey_png("synth-48x32.png", 48, 32, 5); }

/* What the test makes of a set's rows, as a disturbed or older run would
 * have left them. */
enum edit { ONLY_SERIAL_SUM_UNSTABLE, NO_ROUNDS, SERIAL_SUM_UNSTABLE, SERIAL_SUM_OTHER_CODE, OPENMP_SUM_NOISY };

static int serial_sum(const sb_row *r) { return !strcmp(r->stage, "sum") && !strcmp(r->variant, "cpu"); }

/* Every row of dir/integral.csv edited, through the project's own CSV
 * reader and writer: the awk -F, that did it read a CSV by its commas
 * alone, and once in CI (2026-11-29, a noisy openmp row) left a row with
 * no run id and a second row flagged. */
static void edit_rows(const char *dir, enum edit e)
{
    char path[1300];
    snprintf(path, sizeof path, "%s/integral.csv", dir);
    sb_rows rows = { 0 };
    sb_error err;
    CHECKF(sb_rows_read_csv(path, &rows, &err) == SB_OK, "%s", err.msg);
    for (int i = 0; i < rows.count; i++) {
        sb_row *r = &rows.row[i];
        if (e == ONLY_SERIAL_SUM_UNSTABLE)
            snprintf(r->flags, sizeof r->flags, "%s", serial_sum(r) ? "unstable" : "");
        else if (e == NO_ROUNDS) {
            r->rounds = 0;
            r->flags[0] = '\0';
        } else if (e == SERIAL_SUM_UNSTABLE && serial_sum(r))
            snprintf(r->flags, sizeof r->flags, "unstable");
        else if (e == SERIAL_SUM_OTHER_CODE && serial_sum(r))
            snprintf(r->code_id, sizeof r->code_id, "ffffffffffffffff");
        else if (e == OPENMP_SUM_NOISY && !strcmp(r->stage, "sum") && !strcmp(r->variant, "openmp"))
            snprintf(r->flags, sizeof r->flags, "spread");
    }
    CHECKF(sb_rows_write_csv(&rows, path, &err) == SB_OK, "%s", err.msg);
    sb_rows_free(&rows);
}

/* The run measures its summary image's rows again: repeat.csv, env.json
 * and the closing line; the report's first screen gives it and the count
 * of unstable rows; a row flagged unstable is marked, and so is every
 * speed-up over it. */
static void test_run_states_its_repeatability(void)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", test_pathf("repeat"));
    test_sh("mkdir -p %s", dir);
    cli_result *r = cli("bench --image %s --algo integral --variant cpu,openmp --threads 1,2 --budget 3 --quiet "
                        "--repeat on --results %s/R",
                        repeat_png(), dir);
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    CHECKF(strstr(r->err, "repeatability on this machine: ") && strstr(r->err, "% of 5 CPU rows within 10 %"),
           "%s", r->err);
    CHECKF(!strstr(r->err, "GPU rows"), "GPU rows named where none ran: %s", r->err);
    static char text[1 << 17];
    test_slurp(test_pathf("repeat/R/repeat.csv"), text, sizeof text);
    CHECKF(strstr(text, "first_median_ms,first_n,again_median_ms") && strstr(text, "\nintegral,sum,openmp,2,"),
           "repeat.csv: %.500s", text);
    test_slurp(test_pathf("repeat/R/env.json"), text, sizeof text);
    CHECKF(strstr(text, "\"repeatability\": \"") && strstr(text, "\"repeat_cpu_rows\": 5"), "%.2000s", text);

    /* no row flagged but the serial row of sum, as a disturbed run would leave it */
    edit_rows(test_pathf("repeat/R"), ONLY_SERIAL_SUM_UNSTABLE);
    r = cli("report --results %s/R --out %s/out", dir, dir);
    CHECKF(r->code == 0, "report: exit %d: %s", r->code, r->err);
    test_slurp(test_pathf("repeat/out/REPORT.md"), text, sizeof text);
    const char *said = strstr(text, "**Repeatability on this machine:** ");
    const char *line_end = said ? strchr(said, '\n') : NULL;
    const char *gpu = said ? strstr(said, "GPU rows") : NULL;
    /* of which algorithms the share is, and from how many runs (repeat.csv's own lines, not the last run's) */
    CHECKF(said && strstr(said, "-- of 1 of 12 algorithms (integral); the others' runs did not measure it; from 1 run."),
           "%.1500s", said ? said : text);
    CHECKF(said && strstr(said, "of 5 CPU rows within") &&
               strstr(said, "Flagged unstable (\xc2\xa7): 1 of 5 CPU rows (") && (!gpu || (line_end && gpu > line_end)),
           "%.1500s", text);
    CHECKF(strstr(text, "\xc2\xa7 unstable: its interleaved rounds disagreed"), "no legend for \xc2\xa7");
    /* the method is docs/measuring.md now, not a README section */
    CHECKF(strstr(text, "the method: [docs/measuring.md](../../docs/measuring.md)") &&
               !strstr(text, "How a variant is measured"),
           "REPORT.md points elsewhere for the method");
    test_slurp(test_pathf("repeat/out/integral.md"), text, sizeof text);
    CHECKF(strstr(text, "x \xc2\xa7") != NULL, "no speed-up over the unstable serial row is marked: %.2000s", text);
    /* a noisy row keeps its mark in the every-variant table too (it was dropped there: only \xc2\xa7 was shown) */
    edit_rows(test_pathf("repeat/R"), OPENMP_SUM_NOISY);
    r = cli("report --results %s/R --out %s/out", dir, dir);
    test_slurp(test_pathf("repeat/out/integral.md"), text, sizeof text);
    const char *every = strstr(text, "#### Every variant at the largest image");
    const char *openmp = every ? strstr(every, "\n| openmp | ") : NULL;
    const char *cell_end = openmp ? strstr(openmp + 1, " | ") : NULL;
    cell_end = cell_end ? strstr(cell_end + 3, " | ") : NULL;
    cell_end = cell_end ? strstr(cell_end + 3, " | ") : NULL;   /* past variant, backend, threads: the kernel cell */
    CHECKF(r->code == 0 && cell_end && strstr(cell_end, " \xe2\x80\xa1 | ") &&
               strstr(cell_end, " \xe2\x80\xa1 | ") < strchr(openmp + 1, '\n') &&
               strstr(every, "\xe2\x80\xa1 flagged noisy (its flags column"),
           "%.2500s", every ? every : text);

    /* a set from before the rounds (no CPU row has any): the first screen
     * says its CPU rows could not be flagged, rather than "0 flagged" */
    edit_rows(test_pathf("repeat/R"), NO_ROUNDS);
    r = cli("report --results %s/R --out %s/old", dir, dir);
    test_slurp(test_pathf("repeat/old/REPORT.md"), text, sizeof text);
    CHECKF(r->code == 0 && strstr(text, "were measured one at a time, before CPU rows took turns in rounds") &&
               !strstr(text, "Flagged unstable"),
           "%.1200s", text);

    /* two sets of one machine: the A/A lines of compare --baseline, with
     * each set's share of flagged rows (the cap issue 47 sets on it) */
    test_sh("rm -rf %s/R1 && cp -r %s/R %s/R1", dir, dir, dir);
    r = cli("compare --baseline %s/R --current %s/R1", dir, dir);
    CHECKF(r->code == 0 && strstr(r->out, "CPU rows: 5 of 5 (100.0 %) within 10 % of the baseline") &&
               strstr(r->out, "0 beyond 1.25x without the flag"),
           "%s%s", r->out, r->err);
    test_sh("rm -rf %s/R2 && cp -r %s/R %s/R2", dir, dir, dir);
    edit_rows(test_pathf("repeat/R2"), SERIAL_SUM_UNSTABLE);
    r = cli("compare --baseline %s/R --current %s/R2", dir, dir);
    CHECKF(r->code == 0 && strstr(r->out, "flagged unstable: 0 (0.0 %) in the baseline, 1 (20.0 %) in the current set"),
           "%s%s", r->out, r->err);
    /* a row whose variant's code changed is the experiment, not a repeat: marked, and out of the A/A count */
    test_sh("rm -rf %s/R3 && cp -r %s/R %s/R3", dir, dir, dir);
    edit_rows(test_pathf("repeat/R3"), SERIAL_SUM_OTHER_CODE);
    r = cli("compare --baseline %s/R --current %s/R3", dir, dir);
    CHECKF(r->code == 0 && strstr(r->out, "[other code]") && strstr(r->out, "CPU rows: 4 of 4 (100.0 %) within") &&
               strstr(r->out, "(1 CPU row(s) of other code left out"),
           "%s%s", r->out, r->err);
}

/* The marks beside a time: † few samples, ‡ noisy, § unstable. */
static void test_row_marks(void)
{
    sb_row a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.kernel.n = b.kernel.n = 10;
    CHECK(strcmp(sb_row_marks(&a), "") == 0 && strcmp(sb_ratio_mark(&a, &b), "") == 0);
    snprintf(a.flags, sizeof a.flags, "spread;unstable");
    CHECKF(strcmp(sb_row_marks(&a), " \xe2\x80\xa1 \xc2\xa7") == 0, "'%s'", sb_row_marks(&a));
    CHECK(strcmp(sb_ratio_mark(&b, &a), " \xc2\xa7") == 0 && strcmp(sb_ratio_mark(NULL, &a), " \xc2\xa7") == 0);
    a.kernel.n = 1;
    snprintf(a.flags, sizeof a.flags, "unstable");
    CHECKF(strcmp(sb_row_marks(&a), " \xe2\x80\xa0 \xc2\xa7") == 0, "'%s'", sb_row_marks(&a));
    CHECK(strcmp(sb_row_marks(NULL), "") == 0);
}

/* A run of one algorithm into a set that holds others keeps their rows,
 * and now their re-measures too: the H100 run of record's repeatability
 * ("92 % of 13 CPU rows and 98 % of 40 GPU rows") became "67 % of 3 CPU
 * rows and 100 % of 5 GPU rows" after a bench of the integral image alone. */
static void test_partial_run_keeps_repeatability(void)
{
    const char *dir = test_pathf("repeat-partial");
    test_sh("rm -rf %s", test_shq(dir));
    cli_result *r = cli("bench --image %s --algo integral --variant cpu,openmp --threads 1,2 --budget 3 --quiet "
                        "--repeat on --results %s", repeat_png(), dir);
    CHECKF(r->code == 0 && strstr(r->err, "% of 5 CPU rows within 10 %"), "exit %d: %s", r->code, r->err);
    /* the lines as they were before their provenance was written: kept, with it empty */
    test_sh("cd %s && cut -d, -f1-12 repeat.csv > t && mv t repeat.csv", test_shq(dir));
    r = cli("bench --image %s --algo kmeans --variant cpu --threads 1 --budget 3 --quiet --repeat on --results %s",
            repeat_png(), dir);
    CHECKF(r->code == 0 && strstr(r->err, "of 7 CPU rows within 10 %") &&
               strstr(r->err, "; 5 of them from the earlier run of the set's other algorithms"),
           "exit %d: %s", r->code, r->err);
    static char text[1 << 16];
    test_slurp(test_pathf("repeat-partial/repeat.csv"), text, sizeof text);
    CHECKF(strstr(text, "\nintegral,sum,openmp,2,") && strstr(text, "\nkmeans,converge,cpu,1,") && test_lines(text) == 8,
           "%s", text);
    /* each line says where it came from: run id, commit, machine, date (an older line: empty) */
    char kmeans[400] = "", integral[400] = "";
    const char *k = strstr(text, "\nkmeans,converge,cpu,1,"), *i = strstr(text, "\nintegral,sum,openmp,2,");
    if (k)
        snprintf(kmeans, sizeof kmeans, "%.*s", (int)strcspn(k + 1, "\n"), k + 1);
    if (i)
        snprintf(integral, sizeof integral, "%.*s", (int)strcspn(i + 1, "\n"), i + 1);
    size_t kl = strlen(kmeans), il = strlen(integral);
    CHECKF(strstr(text, ",first_flags,run_id,commit,machine,date\n") && kl > 20 && kmeans[kl - 1] == 'Z' &&
               strstr(kmeans, ",20") && il > 4 && !strcmp(integral + il - 4, ",,,,"),
           "%s", text);
}

const sb_test tests_repeat[] = {
    { "repeat: a run of some algorithms keeps the re-measures of the set's others", test_partial_run_keeps_repeatability },
    { "repeat: a run re-measures its summary rows (repeat.csv, env.json); the report says it; \xc2\xa7 marks "
      "unstable rows and their speed-ups; compare --baseline gives the A/A lines",
      test_run_states_its_repeatability },
    { "repeat: the marks beside a time and a speed-up (\xe2\x80\xa0, \xe2\x80\xa1, \xc2\xa7)", test_row_marks },
};
const int tests_repeat_count = sizeof tests_repeat / sizeof tests_repeat[0];
