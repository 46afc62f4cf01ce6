/* class.c - a whole class (issue "A course a teacher can run"): a
 * student's kit holds no reference solution and builds and grades as it
 * is; `segbench grade --submissions` grades a folder of submissions in one
 * command, each built and graded apart, and gives the known-wrong ones
 * (an off-by-one at the strips' edges, a race, an output kept from an
 * earlier run) their fail, a stub its "not faster", a build error and a
 * crash their rows, and the solution its pass. */
#define _DEFAULT_SOURCE
#include "cli_util.h"
#include "test_groups.h"

#include "course/exercise.h"
#include "course/sandbox.h"
#include "variants/registry.h"
#include "io/dir_lock.h"
#include "machine/env.h"

#include "segbench/image_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* text with its one `from` replaced by `to` (malloc'd); NULL when absent */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        return NULL;
    size_t head = (size_t)(at - text), flen = strlen(from), tlen = strlen(to);
    char *out = malloc(strlen(text) - flen + tlen + 1);
    memcpy(out, text, head);
    memcpy(out + head, to, tlen);
    strcpy(out + head + tlen, at + flen);
    return out;
}

/* A 320x240 picture of patches, saved under the test folder as name: a
 * kmeans grade on it takes 0.4 s on a 2-core box (1.5 s at 480x360, when
 * the two grading tests were a third of the suite's time). */
static const char *patchy_png(const char *name, unsigned long long seed)
{
    sb_image img;
    test_patchy_rgb(&img, 320, 240, seed);
    const char *png = test_pathf("%s", name);
    sb_error err;
    CHECK(sb_image_save(png, &img, &err) == SB_OK);
    sb_image_free(&img);
    return png;
}

static void hand_in(const char *dir, const char *student, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, student);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/kmeans_openmp.c", dir, student);
    FILE *fp = fopen(path, "w");
    CHECKF(fp && text, "%s: %s", student, text ? "cannot write" : "the change did not apply");
    if (fp && text)
        fputs(text, fp);
    if (fp)
        fclose(fp);
}

/* The reference solution and the stub of kmeans/openmp, as the teacher's
 * segbench writes them. */
static int solution_and_stub(char *solution, char *stub, size_t size)
{
    const char *root = test_pathf("class-gen");
    test_sh("rm -rf %s && mkdir -p %s", test_shq(root), test_shq(root));
    cli_result *r = cli("exercise kmeans/openmp --root %s", root);
    CHECK(r->code == 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/exercises/kmeans/kmeans_openmp.c", root);
    test_slurp(path, stub, size);
    r = cli("exercise kmeans/openmp --root %s --solution --force", root);
    CHECK(r->code == 0);
    test_slurp(path, solution, size);
    return solution[0] && stub[0];
}

static const char *SOLUTION_REGION =
    "#pragma omp parallel num_threads(s->threads) reduction(+ : total_changed)\n"
    "    {\n"
    "        sb_kmeans_sums mine[SB_KMEANS_MAX_K];\n"
    "        memset(mine, 0, (size_t)k * sizeof mine[0]);\n"
    "        int t = omp_get_thread_num(), n = omp_get_num_threads();\n"
    "        int y0 = (int)((long)height * t / n), y1 = (int)((long)height * (t + 1) / n);\n"
    "        total_changed += sb_kmeans_assign_rows(s->in, y0, y1, centres, k, first_pass, s->out->labels, mine);\n"
    "#pragma omp critical(kmeans_merge)\n"
    "        for (int c = 0; c < k; c++)\n"
    "            for (int j = 0; j < 4; j++)\n"
    "                sums[c][j] += mine[c][j];\n"
    "    }";

/* Every thread reads the pass's sums, adds a row into its copy and writes
 * the copy back: whatever another thread added in between is lost.  The
 * window is a whole row's work and a short sleep, so the race shows on a
 * loaded box too: there the two threads seldom run at the same moment
 * (a race of one add wide passed as correct once in a while, and one of
 * a row's work did beside a CI run's compile), but a thread asleep in
 * its window lets the other write in between. */
static const char *RACE_REGION =
    "#pragma omp parallel for num_threads(s->threads) reduction(+ : total_changed)\n"
    "    for (int y = 0; y < height; y++) {\n"
    "        sb_kmeans_sums row[SB_KMEANS_MAX_K];\n"
    "        memcpy(row, sums, (size_t)k * sizeof row[0]);\n"
    "        total_changed += sb_kmeans_assign_rows(s->in, y, y + 1, centres, k, first_pass, s->out->labels, row);\n"
    "        nanosleep(&(struct timespec){ 0, 20000 }, NULL);\n"
    "        memcpy(sums, row, (size_t)k * sizeof row[0]);\n"
    "    }";

static const char *RUN_LINE =
    "static sb_status openmp_run(void *state, sb_error *err) { return sb_kmeans_host_run(state, openmp_pass, err); }";

/* Keeps the output of the last run and gives it back for the next run of
 * the same size and parameters: exact on every image checked once, and
 * as fast as a copy when the same image is timed again and again. */
static const char *KEPT_RUN =
    "static sb_kmeans_out kept;\n"
    "static sb_kmeans_params kept_params;\n"
    "static uint8_t *kept_labels;\n"
    "static size_t kept_n;\n"
    "static sb_status openmp_run(void *state, sb_error *err)\n"
    "{\n"
    "    sb_kmeans_host *h = state;\n"
    "    size_t n = (size_t)h->in->width * (size_t)h->in->height;\n"
    "    if (kept_labels && kept_n == n && kept.width == h->out->width &&\n"
    "        memcmp(&kept_params, &h->params, sizeof kept_params) == 0) {\n"
    "        uint8_t *labels = h->out->labels;\n"
    "        *h->out = kept;\n"
    "        h->out->labels = labels;\n"
    "        memcpy(labels, kept_labels, n);\n"
    "        return SB_OK;\n"
    "    }\n"
    "    sb_status st = sb_kmeans_host_run(state, openmp_pass, err);\n"
    "    free(kept_labels);\n"
    "    if ((kept_labels = malloc(n)))\n"
    "        memcpy(kept_labels, h->out->labels, n);\n"
    "    kept = *h->out;\n"
    "    kept_params = h->params;\n"
    "    kept_n = n;\n"
    "    return st;\n"
    "}";

/* A CSV row's verdict and exit for a student ("" when none). */
static const char *row_of(const char *csv, const char *student, char *out, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, ",%s,kmeans/student-openmp,", student);
    const char *row = strstr(csv, key);
    out[0] = '\0';
    if (row)
        snprintf(out, size, "%.*s", (int)strcspn(row + strlen(key), "\n"), row + strlen(key));
    return out;
}

/* Is the page's table row `rank` a pass? */
static int row_passes(const char *page, int rank)
{
    char key[32], line[256];
    snprintf(key, sizeof key, "\n| %d | ", rank);
    const char *row = strstr(page, key);
    if (!row)
        return 0;
    snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
    return strstr(line, " | PASS | 0 |") != NULL;
}

/* Does grading run in bubblewrap's sandbox here (course/sandbox.h)? */
static int sandboxed(void)
{
    grade_sandbox sb;
    sb_error err;
    return grade_sandbox_find(&sb, &err) == SB_OK;
}

/* A class's fixtures: the exercise's reference solution and its stub,
 * where this build grades classes (the plain one: make test); 0 else. */
static int class_sources(char *solution, char *stub, size_t size)
{
    const char *exe = test_segbench_path();
    if (!strstr(exe, "build/segbench") || strstr(exe, "build-asan")) {
        printf("    (skipped in this build: make test runs it)\n");
        return 0;
    }
    return solution_and_stub(solution, stub, size);
}

static void test_grade_submissions(void)
{
    static char solution[1 << 16], stub[1 << 16];
    if (!class_sources(solution, stub, sizeof solution))
        return;
    const char *dir = test_pathf("class-in");
    test_sh("rm -rf %s && mkdir -p %s", test_shq(dir), test_shq(dir));
    hand_in(dir, "ada", solution);                                          /* correct */
    hand_in(dir, "bob", stub);                                              /* the stub: slow */
    char *edge = replaced(solution, "y1 = (int)((long)height * (t + 1) / n);",
                          "y1 = (int)((long)height * (t + 1) / n) - (t < n - 1);");   /* a row short at each edge */
    char *racing = replaced(solution, SOLUTION_REGION, RACE_REGION);
    char *race = racing ? replaced(racing, "#include <omp.h>", "#include <omp.h>\n#include <time.h>") : NULL;
    free(racing);
    char *kept = replaced(solution, RUN_LINE, KEPT_RUN);
    char *no_build = replaced(solution, "return SB_OK;", "return SB_OK");
    char *crash = replaced(solution, "    sb_kmeans_host *s = ctx;",
                           "    sb_kmeans_host *s = ctx;\n    if (s->in->width > 300) { volatile int *p = NULL; *p = 1; }");
    /* 40 children and a grandchild in a session of its own, all asleep for
     * ten minutes: they outlived the grading before */
    char *forks = replaced(solution, "    sb_kmeans_host *s = ctx;",
                           "    sb_kmeans_host *s = ctx;\n"
                           "    static int strays;\n"
                           "    if (!strays++) {\n"
                           "        for (int i = 0; i < 40; i++)\n"
                           "            if (fork() == 0) { prctl(PR_SET_NAME, \"sb-stray\"); sleep(600); _exit(0); }\n"
                           "        if (fork() == 0) {\n"
                           "            setsid();\n"
                           "            if (fork() == 0) { prctl(PR_SET_NAME, \"sb-stray\"); sleep(600); }\n"
                           "            _exit(0);\n"
                           "        }\n"
                           "    }");
    char *forking = forks ? replaced(forks, "#include <omp.h>", "#include <omp.h>\n#include <sys/prctl.h>\n"
                                                               "#include <unistd.h>") : NULL;
    hand_in(dir, "cy", edge);
    hand_in(dir, "dee", race);
    hand_in(dir, "eve", kept);
    hand_in(dir, "fay", no_build);
    hand_in(dir, "gus \"the 2nd\", 'x'", crash);                           /* a name no shell should see */
    hand_in(dir, "hal", forking);
    char *quits = replaced(solution, "    sb_kmeans_host *s = ctx;", "    sb_kmeans_host *s = ctx;\n    _Exit(0);");
    hand_in(dir, "ivy", quits);                                            /* exit 0, no verdict: no pass */
    free(quits);
    free(edge);
    free(race);
    free(kept);
    free(no_build);
    free(crash);
    free(forks);
    free(forking);

    const char *png = patchy_png("class-teacher.png", 7);
    const char *work = test_pathf("class-work"), *csv = test_pathf("class-out/class.csv");
    test_sh("rm -rf %s %s && mkdir -p %s", test_shq(work), test_shq(test_pathf("class-out")),
            test_shq(test_pathf("class-out")));
    cli_result *r = cli("grade kmeans/openmp --submissions %s --seed 4711 --generated 2 --samples 11 --image %s "
                        "--class %s --work %s --timeout 300", dir, png, csv, work);
    CHECKF(r->code == 0 && strstr(r->out, "graded 9 students of kmeans/student-openmp") &&
               strstr(r->out, "[7/9] gus \"the 2nd\", 'x'"),
           "exit %d: %s%s", r->code, r->out, r->err);
    static char text[1 << 16];
    test_slurp(csv, text, sizeof text);
    char row[512];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    /* on one core nothing beats the serial parent, and no race can show */
    CHECKF(cores < 2 ? strstr(row_of(text, "ada", row, sizeof row), ",3,4711,") != NULL
                     : strncmp(row_of(text, "ada", row, sizeof row), "PASS,0,4711,", 12) == 0,
           "ada: %s", row);
    /* "not faster than its parent", or "lesson not done" where the reference did not beat the parent either */
    CHECKF(strncmp(row_of(text, "bob", row, sizeof row), "\"FAIL (correct, ", 16) == 0 && strstr(row, ",3,4711,"),
           "bob: %s", row);
    CHECKF(strncmp(row_of(text, "cy", row, sizeof row), "FAIL (wrong),1,", 15) == 0, "cy: %s", row);
    if (cores >= 2)
        CHECKF(strncmp(row_of(text, "dee", row, sizeof row), "FAIL (wrong),1,", 15) == 0, "dee: %s", row);
    CHECKF(strncmp(row_of(text, "eve", row, sizeof row), "FAIL (wrong),1,", 15) == 0, "eve: %s", row);
    CHECKF(strstr(r->out, "eve: grade kmeans/student-openmp: FAIL (wrong)") && strstr(r->out, "mirrored"),
           "the kept output is caught on the mirrored image: %s", r->out);
    CHECKF(strncmp(row_of(text, "fay", row, sizeof row), "FAIL (does not build),2,", 24) == 0, "fay: %s", row);
    CHECKF(strstr(text, "\"gus \"\"the 2nd\"\", 'x'\",kmeans/student-openmp,FAIL (crashed: signal 11),139,"),
           "gus: %s", text);
    CHECKF(test_lines(text) == 10, "%d lines:\n%s", test_lines(text), text);
    CHECKF(strncmp(row_of(text, "ivy", row, sizeof row), "FAIL (no verdict),2,", 20) == 0 &&
               strstr(r->out, "ivy: FAIL (no verdict): its grade ended with exit 0 but wrote no record"),
           "ivy, who exits 0 before any verdict: %s\n%s", row, r->out);
    /* hal's 41 sleepers: none left -- they die with the sandbox's PID
     * namespace, or (--no-sandbox) the grader ends them and says so */
    CHECKF((sandboxed() || strstr(r->out, "hal: their grade left 41 processes running: ended")) &&
               system("pgrep -x sb-stray >/dev/null") != 0,
           "processes a student started outlived the grading:\n%s", r->out);
    /* the class's page: everyone, a pass first (ada's, or hal's: the same
     * solution, whose speed against the reference may land either side) */
    test_slurp(test_pathf("class-out/leaderboard-kmeans-student-openmp.md"), text, sizeof text);
    CHECKF(strstr(text, "# Leaderboard: kmeans/student-openmp") && strstr(text, "Seed 4711; 9 students") &&
               (cores < 2 || (row_passes(text, 1) && strstr(text, "| ada | PASS | 0 |"))) && strstr(text, "| hal | ") &&
               strstr(text, "| gus \"the 2nd\", 'x' |"),
           "%s", text);
    /* nothing to grade */
    const char *empty = test_pathf("class-empty");
    test_sh("rm -rf %s && mkdir -p %s", test_shq(empty), test_shq(empty));
    r = cli("grade kmeans/openmp --submissions %s --class %s/x.csv --work %s", empty, empty, work);
    CHECKF(r->code == 2 && test_lines(r->err) == 1, "%d: %s", r->code, r->err);
    r = cli("grade kmeans/openmp --submissions %s --class %s --image /nonexistent.png", dir, csv);
    CHECKF(r->code == 2 && strstr(r->err, "/nonexistent.png") && test_lines(r->err) == 1, "%d: %s", r->code, r->err);
}

/* A student's kit: the stub, no reference solution anywhere in it, no
 * tests; it builds (from the objects of this build, to be quick) and
 * grades the stub against its parent alone, and the solution passes. */
static void test_kit(void)
{
    const char *exe = test_segbench_path();
    if (!strstr(exe, "build/segbench") || strstr(exe, "build-asan")) {
        printf("    (skipped in this build: make test runs it)\n");
        return;
    }
    const char *kit = test_pathf("class-kit");
    test_sh("rm -rf %s", test_shq(kit));
    cli_result *r = cli("exercise kmeans/openmp --export %s", kit);
    CHECKF(r->code == 0 && strstr(r->out, "impl_pthread/kmeans_openmp.c"), "exit %d: %s%s", r->code, r->out, r->err);
    char path[1200];
    snprintf(path, sizeof path, "%s/impl_pthread/kmeans_openmp.c", kit);
    CHECK(!test_exists(path));
    snprintf(path, sizeof path, "%s/tests", kit);
    CHECK(!test_exists(path));
    snprintf(path, sizeof path, "%s/exercises/kmeans/kmeans_openmp.c", kit);
    CHECK(test_exists(path));
    snprintf(path, sizeof path, "%s/KIT.md", kit);
    CHECK(test_exists(path));
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "grep -rq 'critical(kmeans_merge)' %s", test_shq(kit));
    CHECKF(system(cmd) != 0, "the solution's pragma is somewhere in the kit");
    r = cli("exercise kmeans/openmp --export %s", kit);
    CHECKF(r->code == 2 && strstr(r->err, "is there already"), "%d: %s", r->code, r->err);

    /* as this build was made: with the same CUDA targets, or none */
    const char *archs = sb_env_build_cuda_archs();
    char cuda[300];
    snprintf(cuda, sizeof cuda, strcmp(archs, "none") ? "CUDA_ARCH=%s" : "NVCC=", test_shq(archs));
    test_sh("cp -a build %s/ && make -C %s %s build/segbench >%s/make.log 2>&1", test_shq(kit), test_shq(kit), cuda,
            test_shq(kit));
    test_sh("make -C %s %s test >%s/test.log 2>&1", test_shq(kit), cuda, test_shq(kit));
    static char log[4096];
    snprintf(path, sizeof path, "%s/test.log", kit);
    test_slurp(path, log, sizeof log);
    CHECKF(strstr(log, "a student's kit has no test suite"), "make test in the kit: %s", log);
    snprintf(path, sizeof path, "%s/build/segbench", kit);
    const char *png = patchy_png("class-kit.png", 9);
    r = cli_exe(path, "grade kmeans/student-openmp --seed 5 --generated 1 --samples 11 --image %s", png);
    CHECKF(r->code == 3 && strstr(r->out, "no reference solution here") && strstr(r->err, "TODO parts"),
           "the stub in the kit: exit %d: %s%s", r->code, r->out, r->err);
}

/* The work folder: one that holds a teacher's files is refused and left
 * as it was (its NNN trees would be removed and rebuilt); one that another
 * grading holds is refused; one the grader made, or one from before its
 * mark that holds only what the grader makes, is taken.  Before, a
 * teacher's --work lost its NNN folders, and two gradings in one --work
 * overwrote each other's trees. */
static void test_work_folder_claimed(void)
{
    const char *subs = test_pathf("work-subs"), *work = test_pathf("work-teacher");
    test_sh("rm -rf %s %s && mkdir -p %s %s/001 && echo notes > %s/001/plan.txt && echo mine > %s/notes.txt",
            test_shq(subs), test_shq(work), test_shq(subs), test_shq(work), test_shq(work), test_shq(work));
    cli_result *r = cli("grade kmeans/openmp --submissions %s --work %s", subs, work);
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "holds files segbench did not make (notes.txt"),
           "a teacher's folder: exit %d: %s", r->code, r->err);
    CHECKF(test_exists(test_pathf("work-teacher/001/plan.txt")) && !test_exists(test_pathf("work-teacher/class.csv")),
           "the teacher's folder was changed");

    /* a work folder from before the mark: the grader's names only */
    const char *old = test_pathf("work-old");
    test_sh("rm -rf %s && mkdir -p %s/001 %s/002 && touch %s/class.csv %s/leaderboard-kmeans-student-openmp.md",
            test_shq(old), test_shq(old), test_shq(old), test_shq(old), test_shq(old));
    r = cli("grade kmeans/openmp --submissions %s --work %s", subs, old);
    CHECKF(r->code == 2 && strstr(r->err, "no submissions") && test_exists(test_pathf("work-old/.segbench-grade-work")),
           "an older work folder: exit %d: %s", r->code, r->err);

    /* another grading holds it */
    sb_dir_lock held = { -1 };
    sb_error err = { SB_OK, "" };
    CHECKF(sb_dir_lock_take(&held, old, "grade (a test's)", 0, NULL, &err) == SB_OK, "%s", err.msg);
    r = cli("grade kmeans/openmp --submissions %s --work %s", subs, old);
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "in use by segbench grade (a test's)") &&
               strstr(r->err, "another --work folder"),
           "a held work folder: exit %d: %s", r->code, r->err);
    sb_dir_lock_release(&held);
    test_sh("touch %s/a-file", test_shq(old));
    r = cli("grade kmeans/openmp --submissions %s --work %s/a-file", subs, old);
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "is not a folder"), "--work a file: exit %d: %s",
           r->code, r->err);
}

/* Names: a hidden entry said and left out, two entries of one student
 * (bob/ and bob.c) each graded under its own name rather than one row
 * for both, a newline in a name escaped on the terminal (a name cannot
 * write a line of its own) and kept whole in the CSV, a link (to the
 * teacher's tree, to the reference solution) a row of its own, never
 * followed.  None of these
 * hand-ins builds: an empty folder, a file over the size limit. */
static void test_submission_names(void)
{
    const char *subs = test_pathf("names-subs"), *work = test_pathf("names-work");
    test_sh("rm -rf %s %s && mkdir -p %s/bob %s/'eve\nmallory: PASS' && "
            "head -c 1100000 /dev/zero | tr '\\0' ' ' > %s/bob.c && echo 'int x;' > %s/.sneaky.c && "
            "ln -s \"$PWD\" %s/trudy && ln -s \"$PWD/impl_pthread/kmeans_openmp.c\" %s/mallory.c",
            test_shq(subs), test_shq(work), test_shq(subs), test_shq(subs), test_shq(subs), test_shq(subs),
            test_shq(subs), test_shq(subs));
    cli_result *r = cli("grade kmeans/openmp --submissions %s --work %s", subs, work);
    CHECKF(r->code == 0 && strstr(r->out, "note: .sneaky.c is hidden: left out") &&
               strstr(r->out, "note: 2 entries name the student bob:") && strstr(r->out, "[1/5] bob/") &&
               strstr(r->out, "[2/5] bob.c") && strstr(r->out, "[3/5] eve\\nmallory: PASS") &&
               strstr(r->out, "[4/5] mallory\n  mallory: a symbolic link") && strstr(r->out, "[5/5] trudy") &&
               !strstr(r->out, "\nmallory"),
           "exit %d: %s%s", r->code, r->out, r->err);
    static char text[8192];
    test_slurp(test_pathf("names-work/class.csv"), text, sizeof text);
    CHECKF(strstr(text, ",bob/,kmeans/student-openmp,FAIL (nothing handed in),") &&
               strstr(text, ",bob.c,kmeans/student-openmp,FAIL (unreadable file),") &&
               strstr(text, ",\"eve\nmallory: PASS\",kmeans/student-openmp,FAIL (nothing handed in),") &&
               strstr(text, ",mallory,kmeans/student-openmp,FAIL (a link: not a hand-in),") &&
               strstr(text, ",trudy,kmeans/student-openmp,FAIL (a link: not a hand-in),"),
           "%s", text);
}

/* A kit that fails half-way leaves nothing: here the teacher's tree has
 * a file where the solution's folder should be, so taking the solution
 * out fails after every part is copied.  Before, the half kit stayed (its
 * copied parts, whatever solution they held) and a second --export to
 * the same folder was refused as "there already". */
static void test_kit_all_or_nothing(void)
{
    const char *root = test_pathf("kit-bad-root"), *kits = test_pathf("kit-bad"), *kit = test_pathf("kit-bad/k");
    test_sh("rm -rf %s %s && mkdir -p %s/include %s && cp Makefile %s/ && echo 'not a folder' > %s/impl_pthread",
            test_shq(root), test_shq(kits), test_shq(root), test_shq(kits), test_shq(root), test_shq(root));
    const sb_variant *rung = sb_variant_find("kmeans", "openmp");
    sb_error err = { SB_OK, "" };
    sb_status st = exercise_export(rung, root, kit, &err);
    CHECKF(st != SB_OK && strstr(err.msg, "impl_pthread"), "a kit from a broken tree: %d %s", st, err.msg);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", test_shq(kits));
    CHECKF(system(cmd) == 0, "a failed kit left files in %s", kits);
    cli_result *r = cli("exercise kmeans/openmp --export %s", kit);
    CHECKF(r->code == 0 && test_exists(test_pathf("kit-bad/k/KIT.md")), "the retry: exit %d: %s%s", r->code, r->out,
           r->err);
}

/* The solution with includes added after <omp.h> and code at the start
 * of its run (after "sb_kmeans_host *s = ctx;"): a hostile hand-in
 * (malloc'd; NULL where the solution has changed shape). */
static char *with_code(const char *solution, const char *includes, const char *code)
{
    char head[256], start[8192];
    snprintf(head, sizeof head, "#include <omp.h>\n%s", includes);
    snprintf(start, sizeof start, "    sb_kmeans_host *s = ctx;\n%s", code);
    char *included = replaced(solution, "#include <omp.h>", head);
    char *out = included ? replaced(included, "    sb_kmeans_host *s = ctx;", start) : NULL;
    free(included);
    return out;
}

/* A small class's fixture: the reference solution, and the folders
 * <name>-in (the hand-ins, empty), <name>-work and <name>.csv. */
static int class_folders(const char *name, char *solution, size_t size, const char **dir, const char **work,
                         const char **csv)
{
    static char stub[1 << 16];
    if (!class_sources(solution, stub, size < sizeof stub ? size : sizeof stub))
        return 0;
    *dir = test_pathf("%s-in", name);
    *work = test_pathf("%s-work", name);
    *csv = test_pathf("%s.csv", name);
    test_sh("rm -rf %s %s && mkdir -p %s", test_shq(*dir), test_shq(*work), test_shq(*dir));
    return 1;
}

/* A hostile hand-in in the sandbox: it writes into the teacher's tree
 * through its tree's links, into /tmp and outside its folder, and kills
 * the process that started it; the teacher's tree and /tmp are as they
 * were, the grading goes on, and the student has their one row.  Where
 * no sandbox can run, grading a class is refused in one line unless
 * --no-sandbox. */
static void test_sandbox_holds(void)
{
    static char solution[1 << 16];
    const char *dir, *work, *csv;
    if (!class_folders("hostile", solution, sizeof solution, &dir, &work, &csv))
        return;
    char *acts = with_code(solution, "#include <signal.h>\n#include <unistd.h>",
                           "    { const char *at[] = { \"impl_cpu/STUDENT-WAS-HERE\", \"/tmp/STUDENT-WAS-HERE\",\n"
                           "                           \"../STUDENT-WAS-HERE\", \"results/STUDENT-WAS-HERE\" };\n"
                           "      for (int i = 0; i < 4; i++) { FILE *f = fopen(at[i], \"a\"); if (f) fclose(f); }\n"
                           "      kill(getppid(), SIGKILL); }");
    hand_in(dir, "kim", acts);
    free(acts);
    const char *png = patchy_png("hostile.png", 9);
    if (!sandboxed()) {
        cli_result *r = cli("grade kmeans/openmp --submissions %s --seed 1 --image %s --class %s --work %s", dir, png,
                            csv, work);
        CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "--no-sandbox"), "exit %d: %s%s", r->code,
               r->out, r->err);
        return;
    }
    test_sh("rm -f /tmp/STUDENT-WAS-HERE; find impl_cpu results -type f | sort | xargs sha1sum > %s",
            test_shq(test_pathf("before.sum")));
    cli_result *r = cli("grade kmeans/openmp --submissions %s --seed 1 --generated 1 --samples 9 --image %s "
                        "--class %s --work %s --timeout 300", dir, png, csv, work);
    CHECKF(r->code == 0 && strstr(r->out, "graded 1 student"), "exit %d: %s%s", r->code, r->out, r->err);
    test_sh("find impl_cpu results -type f | sort | xargs sha1sum > %s", test_shq(test_pathf("after.sum")));
    char cmp[2400];
    snprintf(cmp, sizeof cmp, "cmp -s %s %s", test_shq(test_pathf("before.sum")), test_shq(test_pathf("after.sum")));
    CHECKF(system(cmp) == 0 &&
               !test_exists("/tmp/STUDENT-WAS-HERE") && !test_exists("impl_cpu/STUDENT-WAS-HERE") &&
               !test_exists(test_pathf("STUDENT-WAS-HERE")),
           "the sandbox let a student write outside their tree:\n%s", r->out);
    static char text[1 << 14];
    test_slurp(csv, text, sizeof text);
    CHECKF(test_lines(text) == 2 && strstr(text, ",kim,"), "%s", text);
    /* without bubblewrap on PATH: refused, unless --no-sandbox */
    r = cli_exe("env", "PATH=/nonexistent %s grade kmeans/openmp --submissions %s --seed 1 --image %s --class %s "
                "--work %s", test_segbench_path(), dir, png, csv, work);
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "apt-get install bubblewrap") &&
               strstr(r->err, "--no-sandbox"),
           "exit %d: %s%s", r->code, r->out, r->err);
}

/* The reference solution out of a student's reach: their build holds no
 * rung of it to call (the registry has none), and in the sandbox the
 * teacher's copy of its file cannot be read (an empty device there) and
 * the teacher's build and git history are empty folders.  A record rewritten at exit to say PASS,
 * exit 0, does not pass: the grader judges the record's rounds, against
 * the reference it timed itself. */
static void test_solution_out_of_reach(void)
{
    static char solution[1 << 16], stub[1 << 16];
    const char *dir, *work, *csv;
    if (!class_folders("reach", solution, sizeof solution, &dir, &work, &csv) ||
        !class_sources(solution, stub, sizeof stub))
        return;
    char root[1024], code[4096];
    CHECK(getcwd(root, sizeof root) != NULL);
    snprintf(code, sizeof code,
             "    static int spied;\n"
             "    if (!spied++) {\n"
             "        FILE *out = fopen(\"spy.txt\", \"w\");\n"
             "        extern const void *sb_variant_find(const char *, const char *);\n"
             "        fprintf(out, \"registry %%s\\n\", sb_variant_find(\"kmeans\", \"openmp\") ? \"found\" : \"none\");\n"
             "        FILE *sol = fopen(\"%s/impl_pthread/kmeans_openmp.c\", \"r\");\n"
             "        long bytes = -1;\n"
             "        if (sol) { fseek(sol, 0, SEEK_END); bytes = ftell(sol); fclose(sol); }\n"
             "        fprintf(out, \"solution %%ld\\n\", bytes);\n"
             "        const char *dirs[2] = { \"%s/build\", \"%s/.git\" };\n"
             "        for (int i = 0; i < 2; i++) {\n"
             "            DIR *d = opendir(dirs[i]);\n"
             "            int seen = 0;\n"
             "            for (struct dirent *e; d && (e = readdir(d));)\n"
             "                seen += e->d_name[0] != '.';\n"
             "            if (d) closedir(d);\n"
             "            fprintf(out, \"%%s %%d\\n\", i ? \"git\" : \"build\", d ? seen : -1);\n"
             "        }\n"
             "        fclose(out);\n"
             "    }",
             root, root, root);
    char *spy = with_code(solution, "#include <dirent.h>\n#include <stdio.h>", code);
    hand_in(dir, "spy", spy);
    free(spy);
    /* the stub, its record rewritten at exit: verdict PASS, exit 0 */
    char *forged = replaced(stub, "#include <omp.h>",
                            "#include <omp.h>\n#include <stdio.h>\n#include <unistd.h>\n"
                            "static void forge(void)\n"
                            "{\n"
                            "    static char text[1 << 16];\n"
                            "    FILE *f = fopen(\"grade.json\", \"r\");\n"
                            "    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;\n"
                            "    if (f) fclose(f);\n"
                            "    text[n] = 0;\n"
                            "    char *v = strstr(text, \"FAIL (correct\");\n"
                            "    char *end = v ? strchr(v, '\"') : NULL;\n"
                            "    if (!v || !end || !(f = fopen(\"grade.json\", \"w\"))) _exit(0);\n"
                            "    fprintf(f, \"%.*sPASS%s\", (int)(v - text), text, end);\n"
                            "    fclose(f);\n"
                            "    _exit(0);\n"
                            "}\n"
                            "__attribute__((constructor)) static void forge_at_exit(void) { atexit(forge); }");
    hand_in(dir, "liz", forged);
    free(forged);
    const char *png = patchy_png("reach.png", 5);
    cli_result *r = cli("grade kmeans/openmp --submissions %s --seed 3 --generated 1 --samples 9 --image %s "
                        "--class %s --work %s --timeout 300 %s", dir, png, csv, work,
                        sandboxed() ? "" : "--no-sandbox");
    CHECKF(r->code == 0 && strstr(r->out, "graded 2 students") && strstr(r->out, "timed here once"), "exit %d: %s%s",
           r->code, r->out, r->err);
    static char text[1 << 14];
    test_slurp(test_pathf("reach-work/002/spy.txt"), text, sizeof text);
    CHECKF(strstr(text, "registry none"), "the student's build holds the reference solution: %s", text);
    if (sandboxed())
        CHECKF((strstr(text, "solution 0\n") || strstr(text, "solution -1\n")) && strstr(text, "build 0\n") &&
                   (strstr(text, "git 0\n") || strstr(text, "git -1\n")),
               "the sandbox showed the solution, the build or the history: %s", text);
    char row[512];
    test_slurp(csv, text, sizeof text);
    snprintf(row, sizeof row, "%s", strstr(text, ",liz,") ? strstr(text, ",liz,") : "");
    CHECKF(strstr(row, ",liz,kmeans/student-openmp,\"FAIL (correct, ") && strstr(row, ",3,3,"),
           "a forged record passed: %s", text);
    CHECKF(test_lines(text) == 3, "%s", text);
}

/* Limits on each process of a student's (--limit-memory, --limit-cpu):
 * a hand-in that takes memory in 64 MB steps gets no more than its limit
 * and its row says what it said; one that spins is stopped at its CPU
 * time, its row saying so, long before --timeout. */
static void test_limits_hold(void)
{
    static char solution[1 << 16];
    const char *dir, *work, *csv;
    if (!class_folders("limits", solution, sizeof solution, &dir, &work, &csv))
        return;
    char *hog = with_code(solution, "#include <stdio.h>\n#include <stdlib.h>",
                          "    { size_t got = 0;\n"
                          "      for (char *p; got < 1536 && (p = malloc((size_t)64 << 20)); got += 64)\n"
                          "          memset(p, 1, (size_t)64 << 20);\n"
                          "      fprintf(stderr, \"error: got %zu MB\\n\", got); exit(7); }");
    char *spin = with_code(solution, "", "    for (volatile int on = 1; on;)\n        ;");
    hand_in(dir, "max", hog);
    hand_in(dir, "ned", spin);
    free(hog);
    free(spin);
    const char *png = patchy_png("limits.png", 11);
    cli_result *r = cli("grade kmeans/openmp --submissions %s --seed 1 --generated 0 --samples 9 --image %s --class %s "
                        "--work %s --timeout 120 --limit-memory 512M --limit-cpu 3 %s", dir, png, csv, work,
                        sandboxed() ? "" : "--no-sandbox");
    CHECKF(r->code == 0 && strstr(r->out, "graded 2 students"), "exit %d: %s%s", r->code, r->out, r->err);
    const char *said = strstr(r->out, "max: FAIL (could not be graded: exit 7): error: got ");
    int got = said ? atoi(said + strlen("max: FAIL (could not be graded: exit 7): error: got ")) : -1;
    CHECKF(got >= 0 && got <= 512, "max took %d MB under a 512 MB limit:\n%s", got, r->out);
    CHECKF(strstr(r->out, "ned: FAIL (over its CPU time: 3 s)"), "%s", r->out);
    static char text[1 << 14];
    test_slurp(csv, text, sizeof text);
    CHECKF(test_lines(text) == 3 && strstr(text, ",ned,kmeans/student-openmp,FAIL (over its CPU time: 3 s),152,"),
           "%s", text);
}

/* grades a folder: alone, since its passes rest on timing -- the reference
 * is timed in the grader's process, the students in theirs, so a load
 * that came and went between them (another test's) moved ada to a fail */
const sb_test tests_class[] = {
    { "class: a hostile hand-in in the sandbox cannot write outside its tree or stop the class; without bubblewrap, "
      "refused unless --no-sandbox", test_sandbox_holds },
    { "class: grade --submissions grades a folder in one command: pass, slow, off-by-one, race, kept output, "
      "no build, crash",
      test_grade_submissions, SB_TEST_LONG | SB_TEST_ALONE },
    { "class: a student's kit holds the stub and no solution, builds, and grades against the parent",
      test_kit },
    { "class: --work -- a teacher's folder refused and left as it was, one in use refused, an older one taken",
      test_work_folder_claimed },
    { "class: a hidden hand-in said and left out, bob/ and bob.c graded apart, a newline in a name escaped, a link "
      "not followed",
      test_submission_names },
    { "class: a kit that fails half-way leaves nothing, and the retry writes it", test_kit_all_or_nothing },
    { "class: the reference solution out of a student's reach (not in their build, empty in the sandbox); a record "
      "forged to PASS does not pass", test_solution_out_of_reach },
    { "class: a hand-in over --limit-memory gets no more than it, one over --limit-cpu is stopped there, each its row",
      test_limits_hold },
};
const int tests_class_count = sizeof tests_class / sizeof tests_class[0];
