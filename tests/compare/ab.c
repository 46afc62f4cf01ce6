/* ab.c - segbench noise and segbench ab (compare/ab.h), and the noise
 * floor's file (io/noise_floor.h): an A/A of this build, each round a
 * fresh process, then ab of the build against a copy of itself judged
 * against that A/A's floor -- the small A/A `make test` runs, its
 * false-call rate asserted; and what they refuse. */
#include "cli_util.h"
#include "test.h"
#include "test_groups.h"

#include "base/grow.h"
#include "compare/spells.h"
#include "io/noise_floor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* noise.csv read back as written: classes, rows, where it came from;
 * a row's own floor before its class's; what is not a noise.csv refused. */
static void test_floor_file(void)
{
    sb_noise_floor f;
    sb_floor_defaults(&f);
    snprintf(f.machine, sizeof f.machine, "box, \"2 cores\"");
    snprintf(f.commit, sizeof f.commit, "abc1234");
    snprintf(f.date, sizeof f.date, "2026-11-29T00:00:00Z");
    snprintf(f.aa_dir, sizeof f.aa_dir, "results/aa");
    f.n = 2;
    snprintf(f.cls[0].name, sizeof f.cls[0].name, "gpu");
    f.cls[0].floor = 0.03;
    snprintf(f.cls[1].name, sizeof f.cls[1].name, "cpu@2");
    f.cls[1].floor = 0.4;
    sb_rows keys = { 0 };
    sb_row *made = test_row_add(&keys, "integral", "sum", "pthread", "pthread", 2, "a,b", 4, 4);
    CHECK(made != NULL);
    if (!made)
        return;
    sb_row key = *made;
    sb_rows_free(&keys);
    sb_floor_row *own = sb_floor_add_row(&f, &key, "cpu@2");
    CHECK(own != NULL);
    own->pairs = 6;
    own->floor = 65.0;                               /* 0.006 ms in five processes, 0.9 ms in one */
    sb_error err = { SB_OK, "" };
    CHECKF(sb_floor_write(test_path("noise.csv"), &f, &err) == SB_OK, "%s", err.msg);
    sb_floor_free(&f);
    sb_noise_floor back;
    CHECKF(sb_floor_read(test_path("noise.csv"), &back, &err) == SB_OK, "%s", err.msg);
    CHECK(back.measured && back.n == 2 && back.nrows == 1 && !strcmp(back.machine, "box, \"2 cores\""));
    CHECKF(fabs(sb_floor_for_row(&back, &key) - 65.0) < 1e-9, "%g", sb_floor_for_row(&back, &key));
    int rows;                                        /* the row counts as its class says, whatever its name */
    CHECK(sb_floor_rows_quantile(&back, 0, 0.95, &rows) == 65.0 && rows == 1);
    CHECK(sb_floor_rows_quantile(&back, 1, 0.95, &rows) < 0 && rows == 0);
    key.threads = 1;                                 /* another row: its class, else the noisiest CPU class */
    CHECK(fabs(sb_floor_for_row(&back, &key) - 0.4) < 1e-9);
    CHECK(fabs(sb_floor_for(&back, SB_FLOOR_GPU, 1) - 0.03) < 1e-9);
    /* a host-bound GPU row (k-means' cuda-seed) is a class of its own; a file without it lends the GPU's */
    sb_rows hb = { 0 };
    sb_row *seed = test_row_add(&hb, "kmeans", "fixed10", "cuda-seed", "cuda-global", 1, "a", 4, 4),
           *plain = test_row_add(&hb, "kmeans", "fixed10", "cuda-lastblock", "cuda-shared", 1, "a", 4, 4);
    CHECK(seed && plain && sb_floor_kind_of(&hb.row[0]) == SB_FLOOR_GPU_HOST &&
          sb_floor_kind_of(&hb.row[1]) == SB_FLOOR_GPU && sb_floor_kind_of(&key) == SB_FLOOR_CPU);
    CHECK(fabs(sb_floor_for_row(&back, &hb.row[0]) - 0.03) < 1e-9);
    snprintf(back.cls[back.n].name, sizeof back.cls[0].name, "gpu-host");
    back.cls[back.n++].floor = 0.5;
    CHECK(fabs(sb_floor_for_row(&back, &hb.row[0]) - 0.5) < 1e-9 &&
          fabs(sb_floor_for_row(&back, &hb.row[1]) - 0.03) < 1e-9);
    sb_rows_free(&hb);
    char said[700];
    sb_floor_describe(&back, said, sizeof said);
    CHECKF(strstr(said, "the A/A of 2026-11-29") && strstr(said, "cpu@2 40.0 %"), "%s", said);
    sb_floor_free(&back);
    sb_floor_defaults(&back);
    CHECK(sb_floor_for(&back, SB_FLOOR_GPU, 1) == SB_FLOOR_DEFAULT_GPU &&
          sb_floor_for(&back, SB_FLOOR_GPU_HOST, 1) == SB_FLOOR_DEFAULT_GPU &&
          sb_floor_for(&back, SB_FLOOR_CPU, 8) == SB_FLOOR_DEFAULT_CPU);
    test_sh("printf 'class,rows\\n' > %s", test_shq(test_path("bad-noise.csv")));
    CHECK(sb_floor_read(test_path("bad-noise.csv"), &back, &err) == SB_ERR_FORMAT && !back.measured);
}

/* The small A/A: noise writes the floors of a few CPU rows from four
 * rounds a side, each a process of its own; ab of this build against a
 * copy of itself, judged by them, calls none of its rows faster or
 * slower (the goal: at most 2 % on a 2-core machine; with some ten rows,
 * none), and names the A/A it used. */
static void test_small_aa(void)
{
    const char *png = test_grey_png("aa.png", 96, 64, 5);
    char floors[600], work[600], copy[600];
    snprintf(floors, sizeof floors, "%s", test_path("aa-noise.csv"));
    snprintf(work, sizeof work, "%s", test_path("aa-work"));
    cli_result *r = cli("noise --image %s --algo integral,kmeans --variant cpu,openmp --threads 1,2 --budget 5 "
                        "--rounds 4 --work %s --out %s --quiet",
                        png, test_shq(work), test_shq(floors));
    CHECKF(r->code == 0 && strstr(r->out, "cpu@1") && strstr(r->out, "written: "), "noise: exit %d: %s%s", r->code,
           r->out, r->err);
    /* the report of a set of this machine says its A/A in a line, or that there is none */
    char set[700];
    snprintf(set, sizeof set, "%s/r00-a", work);
    r = cli("report --results %s --out %s", test_shq(set), test_shq(test_path("aa-report")));
    static char md[1 << 16];
    test_slurp(test_pathf("aa-report/REPORT.md"), md, sizeof md);
    CHECKF(r->code == 0 && strstr(md, "**Noise floor:** no A/A on this machine yet"), "%.600s", md);
    test_sh("cp %s %s/noise.csv", test_shq(floors), test_shq(set));
    r = cli("report --results %s --out %s", test_shq(set), test_shq(test_path("aa-report")));
    test_slurp(test_pathf("aa-report/REPORT.md"), md, sizeof md);
    CHECKF(r->code == 0 && strstr(md, "**Noise floor:** two processes of one build agree within ") &&
               strstr(md, " on 95 % of ") && strstr(md, " CPU rows (the A/A of "),
           "%.800s", md);
    snprintf(copy, sizeof copy, "%s", test_path("aa-baseline"));
    test_sh("rm -rf %s && mkdir -p %s && cp %s %s/segbench", test_shq(copy), test_shq(copy),
            test_shq(test_segbench_path()), test_shq(copy));
    snprintf(work, sizeof work, "%s", test_path("ab-work"));
    r = cli("ab --baseline-build %s --image %s --algo integral,kmeans --variant cpu,openmp --threads 1,2 --budget 5 "
            "--rounds 4 --work %s --floor %s --quiet",
            test_shq(copy), png, test_shq(work), test_shq(floors));
    const char *tally = strstr(r->out, "B against A: ");
    int faster = -1, slower = -1, same = -1, undetermined = -1;
    if (tally)
        sscanf(tally, "B against A: faster on %d, slower on %d, same on %d, undetermined on %d", &faster, &slower,
               &same, &undetermined);
    int rows = faster + slower + same + undetermined;
    CHECKF(r->code == 0 && rows >= 8 && faster + slower == 0 && strstr(r->out, "noise floor: the A/A of "),
           "ab of one build: exit %d, %d of %d rows called: %s%s", r->code, faster + slower, rows, r->out, r->err);
}

/* The small A/A paired: noise --paired writes the floors of
 * paired rounds (to --out, or noise-paired.csv), then ab --paired of
 * this build against a copy of itself pairs every CPU row's samples (no
 * row says they did not pair) and calls none faster or slower. */
static void test_paired_aa(void)
{
    const char *png = test_grey_png("ls.png", 96, 64, 5);
    char floors[600], work[600], copy[600];
    snprintf(floors, sizeof floors, "%s", test_path("ls-noise.csv"));
    snprintf(work, sizeof work, "%s", test_path("ls-aa"));
    const char *rows = "--algo integral,kmeans --variant cpu,openmp --threads 1,2 --paired --paired-samples 8";
    cli_result *r = cli("noise --image %s %s --rounds 3 --work %s --out %s --quiet", png, rows, test_shq(work),
                        test_shq(floors));
    CHECKF(r->code == 0 && strstr(r->out, "in turns") && strstr(r->out, "cpu@2") && test_exists(floors),
           "noise: exit %d: %s%s", r->code, r->out, r->err);
    static char csv[1 << 14];
    test_slurp(test_pathf("ls-aa/r00-a/kmeans.csv"), csv, sizeof csv);
    CHECKF(!strstr(csv, "unpaired") && strstr(csv, ",max_reps,"), "%s", csv);   /* 8 samples each, all paired */
    snprintf(copy, sizeof copy, "%s", test_path("ls-baseline"));
    test_sh("rm -rf %s && mkdir -p %s && cp %s %s/segbench", test_shq(copy), test_shq(copy),
            test_shq(test_segbench_path()), test_shq(copy));
    snprintf(work, sizeof work, "%s", test_path("ls-ab"));
    r = cli("ab --baseline-build %s --image %s %s --rounds 3 --work %s --floor %s --quiet", test_shq(copy), png, rows,
            test_shq(work), test_shq(floors));
    const char *tally = strstr(r->out, "B against A: ");
    int faster = -1, slower = -1, same = -1, undetermined = -1;
    if (tally)
        sscanf(tally, "B against A: faster on %d, slower on %d, same on %d, undetermined on %d", &faster, &slower,
               &same, &undetermined);
    CHECKF(r->code == 0 && faster + slower == 0 && faster + slower + same + undetermined >= 8 &&
               strstr(r->out, "in turns") && !strstr(r->out, "did not pair"),
           "ab --paired of one build: exit %d: %s%s", r->code, r->out, r->err);
}

/* What ab and noise refuse, in one line: a baseline build that is not
 * there, a work folder holding what no ab wrote (it is not theirs to
 * empty), arguments. */
static void test_refusals(void)
{
    cli_result *r = cli("ab --baseline-build %s/no-such-build --algo integral", sb_test_dir());
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "no such file or folder"), "%s", r->err);
    r = cli("ab --algo integral");
    CHECKF(r->code == 2 && strstr(r->err, "--baseline-build"), "%s", r->err);
    const char *work = test_path("foreign-work");
    test_sh("mkdir -p %s && echo keep > %s/thesis.tex", test_shq(work), test_shq(work));
    r = cli("noise --work %s --algo integral --rounds 2", test_shq(work));
    CHECKF(r->code == 2 && strstr(r->err, "thesis.tex") && test_exists(test_pathf("foreign-work/thesis.tex")),
           "%s", r->err);
    r = cli("noise stray");
    CHECKF(r->code == 2 && strstr(r->err, "takes no arguments"), "%s", r->err);
}

/* --resume keeps the finished rounds and runs the rest (a long A/A cut
 * short by a time limit need not start again), and only with the options
 * it was begun with. */
static void test_resume(void)
{
    const char *png = test_grey_png("resume.png", 48, 32, 3);
    char work[600], out[600];
    snprintf(work, sizeof work, "%s", test_path("resume-work"));
    snprintf(out, sizeof out, "%s", test_path("resume-noise.csv"));
    /* --keep-spells: every round counts, so the rounds to count are these */
    cli_result *r = cli("noise --image %s --algo integral --variant cpu --budget 2 --rounds 2 --work %s --out %s --quiet "
                        "--keep-spells",
                        png, test_shq(work), test_shq(out));
    CHECKF(r->code == 0, "%s", r->err);
    test_sh("rm -rf %s/r01-b && echo half > %s/r01-b.log", test_shq(work), test_shq(work));   /* cut short */
    test_sh("touch -d '2000-01-01' %s/r00-a/env.json", test_shq(work));
    r = cli("noise --image %s --algo integral --variant cpu --budget 2 --rounds 3 --work %s --out %s --quiet --resume "
            "--keep-spells",
            png, test_shq(work), test_shq(out));
    static char text[4096];
    test_slurp(out, text, sizeof text);
    struct stat sb;
    char kept[700];
    snprintf(kept, sizeof kept, "%s/r00-a/env.json", work);
    CHECKF(r->code == 0 && strstr(r->out, "3 rounds a side") && strstr(text, ",3,") && stat(kept, &sb) == 0 &&
               sb.st_mtime < 1000000000,
           "exit %d: %s%s", r->code, r->out, r->err);
    r = cli("noise --image %s --algo integral --variant cpu,openmp --budget 2 --rounds 3 --work %s --quiet --resume",
            png, test_shq(work));
    CHECKF(r->code == 2 && strstr(r->err, "was not begun with these options"), "%s", r->err);
}

/* Spells that leave a row fewer quiet rounds than asked for, once the
 * extra rounds run out, settle nothing: the few left may all be one side's
 * share of a state the probe missed.  Seen on CI: 3 quiet rounds of A
 * against 2 of B, each side alike within 1 %, called "faster by 32.1 %" in
 * an A/A.  Rounds here are written by hand: A's 3 quiet ones 5.68 ms, B's 2
 * quiet ones 3.87 ms, the rest in spells. */
static void test_spells_short(void)
{
    const char *png = test_grey_png("short.png", 48, 32, 3);
    char work[600], copy[600];
    snprintf(work, sizeof work, "%s", test_path("short-work"));
    snprintf(copy, sizeof copy, "%s", test_path("short-baseline"));
    test_sh("rm -rf %s && mkdir -p %s && cp %s %s/segbench", test_shq(copy), test_shq(copy),
            test_shq(test_segbench_path()), test_shq(copy));
    const char *opts = "--algo integral --variant cpu --budget 2 --rounds 3 --quiet";
    cli_result *r = cli("ab --baseline-build %s --image %s %s --work %s", test_shq(copy), png, opts, test_shq(work));
    CHECKF(r->code == 0, "%s%s", r->out, r->err);
    /* six rounds a side (3 asked for, 3 more for spells), each rewritten */
    static const double a_ms[6] = { 5.68, 9.1, 5.69, 9.3, 5.67, 9.2 }, b_ms[6] = { 9.0, 3.87, 9.4, 3.88, 9.1, 9.3 };
    for (int round = 0; round < 6; round++)
        for (int side = 0; side < 2; side++) {
            double ms = side ? b_ms[round] : a_ms[round];
            double probe = ms > 9.0 - 0.01 ? 0.40 : 0.20;
            char dir[700];
            snprintf(dir, sizeof dir, "%s/r%02d-%c", work, round, "ab"[side]);
            if (round >= 3)
                test_sh("rm -rf %s && cp -r %s/r00-%c %s && cp %s/r00-%c.log %s.log", test_shq(dir), test_shq(work),
                        "ab"[side], test_shq(dir), test_shq(work), "ab"[side], test_shq(dir));
            test_sh("cd %s && awk -F, -v OFS=, 'NR > 1 { $10 = %.4f } 1' integral.csv > t && mv t integral.csv && "
                    "awk -F, -v OFS=, '$6 == \"kernel\" { $7 = \"%.4f\" } $6 == \"probe\" { $7 = \"%.2f\" } 1' "
                    "integral.samples.csv > t && mv t integral.samples.csv",
                    test_shq(dir), ms, ms, probe);
        }
    r = cli("ab --baseline-build %s --image %s %s --work %s --resume", test_shq(copy), png, opts, test_shq(work));
    const char *tally = strstr(r->out, "B against A: ");
    int faster = -1, slower = -1, same = -1, undetermined = -1;
    if (tally)
        sscanf(tally, "B against A: faster on %d, slower on %d, same on %d, undetermined on %d", &faster, &slower,
               &same, &undetermined);
    CHECKF(r->code == 0 && faster == 0 && slower == 0 && undetermined == 2 &&
               strstr(r->out, "~3 rounds a side would settle it (A 3, B 4 of its rounds in spells)"),
           "exit %d: %s%s", r->code, r->out, r->err);
}

/* A host round whose cache probe read over SB_SPELL_MARGIN above the
 * comparison's fastest ran in a spell and is left out; an unprobed round
 * (0: a reference's run, a device row) is kept. */
static void test_spells(void)
{
    CHECK(!sb_spell_in(0.223, 0.2) && sb_spell_in(0.23, 0.2));
    CHECK(!sb_spell_in(0.0, 0.2) && !sb_spell_in(0.5, 0.0));          /* unknown: kept */
    double ms[5] = { 2.10, 3.40, 2.20, 2.15, 3.9 }, probe[5] = { 0.20, 0.31, 0.22, 0.0, 0.29 };
    int kept = sb_spell_keep(ms, probe, 5, 0.20);
    CHECKF(kept == 3 && ms[0] == 2.10 && ms[1] == 2.20 && ms[2] == 2.15 && probe[1] == 0.22 && probe[2] == 0.0,
           "kept %d: %g %g %g", kept, ms[0], ms[1], ms[2]);
    /* the quiet host's probe: a low quantile of all, not one lucky reading */
    double all[40];
    for (int i = 0; i < 40; i++)
        all[i] = i == 7 ? 0.15 : i % 3 ? 0.36 : 0.25;       /* one lucky, a third quiet, the rest in spells */
    double quiet = sb_spell_quiet(all, 40);
    CHECKF(quiet > 0.2 && quiet <= 0.25 && sb_spell_in(0.36, quiet) && !sb_spell_in(0.27, quiet) &&
               !sb_spell_in(0.15 * 1.1, 0.15),
           "quiet %g", quiet);
    CHECK(sb_spell_quiet(all, 0) == 0.0);
}

/* sb_grow: room made by doubling from 64, the array kept when it has
 * room; the lists of rows, lines and floors grow through it. */
static void test_grow(void)
{
    int cap = 0;
    int *a = sb_grow(NULL, &cap, 1, sizeof *a);
    CHECK(a && cap == 64);
    a[63] = 7;
    int *same = sb_grow(a, &cap, 64, sizeof *a);
    CHECK(same == a && cap == 64);
    a = sb_grow(a, &cap, 300, sizeof *a);
    CHECK(a && cap == 512 && a[63] == 7);
    free(a);
}

const sb_test tests_ab[] = {
    { "noise floor: noise.csv read back (classes, each row's own, where it came from); a bad one refused",
      test_floor_file },
    /* alone: an A/A's floors hold for the load they were measured under (beside other tests, a row of the ab
     * ran under another, and was called) */
    { "ab: the small A/A -- noise's floors from fresh processes, then ab of one build calls no row", test_small_aa,
      SB_TEST_ALONE },
    { "ab --paired: the small A/A with samples in turns -- every CPU row paired, no row called", test_paired_aa,
      SB_TEST_ALONE },
    { "ab: a missing baseline build, a work folder of someone else's files, stray arguments: one line, exit 2",
      test_refusals },
    { "ab: --resume keeps the finished rounds and runs the rest, with the options it began with", test_resume },
    { "ab: spells that leave a row fewer quiet rounds than asked for settle nothing (undetermined, never called)",
      test_spells_short },
    { "grow: an array's room doubled from 64 as needed, kept when enough", test_grow },
    { "spells: a CPU round whose cache probe read over 12 % above the quiet host's is left out, in order",
      test_spells },
};
const int tests_ab_count = sizeof tests_ab / sizeof tests_ab[0];
