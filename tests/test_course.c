/* test_course.c - the course in the box (issue "A course in the box"):
 * `segbench exercise` writes a student's stub that holds the parent's
 * code where the lesson goes (a CUDA rung) or no pragmas (an OpenMP
 * variant), and refuses what has no lesson; `segbench grade` fails the
 * stub with a clear line, fails a wrong solution, and passes the reference
 * solution restored -- all in a copy of the tree, as a student would. */
#define _DEFAULT_SOURCE
#include "cli_util.h"
#include "test_groups.h"

#include "segbench/image_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* root/rel (a ring of four buffers) */
static const char *under(const char *root, const char *rel)
{
    static char buf[4][1200];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", root, rel);
    return b;
}

/* The stub of a CUDA rung: the parent's code between TODO markers, the
 * rung's name changed, the includes pointed back at the rung's folder. */
static void test_cuda_stub(void)
{
    const char *root = test_pathf("course-cuda");
    test_sh("rm -rf %s && mkdir -p %s", test_shq(root), test_shq(root));
    cli_result *r = cli("exercise integral/cuda-transposed --root %s", root);
    CHECKF(r->code == 0 && strstr(r->out, "4 TODO parts") && strstr(r->out, "integral/student-cuda-transposed"),
           "exit %d: %s%s", r->code, r->out, r->err);
    static char text[1 << 16];
    test_slurp(under(root, "exercises/integral/4_transposed.cu"), text, sizeof text);
    CHECKF(strstr(text, "// TODO(exercise part 1 of 4)") && strstr(text, "// END TODO(exercise part 4)") &&
               strstr(text, "T row_total = warp_sum(a + b + d + e);") &&          /* the parent's way */
               !strstr(text, "warp_sums_transposed(row, lane)") &&                /* not the lesson's */
               strstr(text, "SB_VARIANT(\"integral\", \"student-cuda-transposed\", \"cuda-shared\"") &&
               strstr(text, "SB_RUNG(\"integral\", \"student-cuda-transposed\", \"cuda-tilescan\"") &&
               strstr(text, "#include \"../../impl_cuda/integral/integral_device.cuh\""),
           "%.4000s", text);
    /* a second time: the student's work is not overwritten */
    r = cli("exercise integral/cuda-transposed --root %s", root);
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "--force"), "%d: %s", r->code, r->err);
    /* --solution: the rung itself, renamed */
    r = cli("exercise integral/cuda-transposed --root %s --solution --force", root);
    test_slurp(under(root, "exercises/integral/4_transposed.cu"), text, sizeof text);
    CHECKF(r->code == 0 && strstr(text, "warp_sums_transposed(row, lane)") && !strstr(text, "TODO(exercise"),
           "%d: %s", r->code, r->err);
    /* what has no lesson to take out */
    const char *none[][2] = { { "integral/cuda-naive", "is a root" },
                              { "integral/cpu", "is the serial reference" },
                              { "integral/pthread", "try integral/openmp" },
                              { "integral/cuda-nope", "unknown variant" } };
    for (int i = 0; i < 4; i++) {
        r = cli("exercise %s --root %s", none[i][0], root);
        CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, none[i][1]), "%s: %d: %s", none[i][0],
               r->code, r->err);
    }
    r = cli("grade integral/student-cuda-pdl");
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "is not built: write it with make exercise"),
           "%d: %s", r->code, r->err);
    r = cli("grade integral/cuda-pdl");
    CHECKF(r->code == 2 && strstr(r->err, "not a student's rung"), "%d: %s", r->code, r->err);
}

/* The whole loop on an OpenMP exercise, in a copy of the tree: the stub
 * fails (exact, not faster: exit 3), a wrong solution fails (exit 1), the
 * reference solution restored passes (exit 0).  On one core nothing can
 * be faster than the serial parent: there the restored solution passes
 * as a lesson that cannot win (no TODO left, as fast as the reference). */
static void test_grade_openmp(void)
{
    const char *exe = test_segbench_path();
    if (!strstr(exe, "build/segbench") || strstr(exe, "build-asan")) {
        printf("    (skipped in this build: make test runs it)\n");
        return;
    }
    char tree[600];
    snprintf(tree, sizeof tree, "%s/course-tree", sb_test_dir());
    char cmd[4000];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s && cp -a Makefile include common bench impl_cpu impl_pthread "
             "impl_cuda build %s/", test_shq(tree), test_shq(tree), test_shq(tree));
    int rc = system(cmd);
    CHECKF(rc == 0, "copying the tree failed");
    if (rc)
        return;
    sb_image img;
    test_patchy_rgb(&img, 480, 360, 5);
    const char *png = under(tree, "class.png");
    sb_error err;
    CHECK(sb_image_save(png, &img, &err) == SB_OK);
    sb_image_free(&img);

    cli_result *r = cli("exercise kmeans/openmp --root %s", tree);
    CHECKF(r->code == 0 && strstr(r->out, "2 TODO parts"), "exit %d: %s%s", r->code, r->out, r->err);
    char copy_exe[700], make[1400];
    snprintf(copy_exe, sizeof copy_exe, "%s/build/segbench", tree);
    snprintf(make, sizeof make, "make -C %s build/segbench >%s/make.log 2>&1", test_shq(tree), test_shq(tree));
    const char *grade = "grade kmeans/student-openmp --image %s --seed 11 --generated 2 --samples 11 --json %s/g.json "
                        "--class %s/class.csv --student 'Ada, L.'";

    CHECKF(system(make) == 0, "make with the stub failed (see %s/make.log)", tree);
    r = cli_exe(copy_exe, grade, png, tree, tree);
    CHECKF(r->code == 3 && test_lines(r->err) == 1 && strstr(r->err, "is exact but") &&
               strstr(r->err, "TODO parts are still there") && strstr(r->out, "grade kmeans/student-openmp: FAIL"),
           "the stub: exit %d: %s%s", r->code, r->out, r->err);

    /* wrong: every centre's count off by one */
    test_sh("cd %s && sed -i 's/sums\\[c\\]\\[j\\] += mine\\[c\\]\\[j\\];/sums[c][j] += mine[c][j] + (j == 3);/' "
            "exercises/kmeans/kmeans_openmp.c && grep -q '(j == 3)' exercises/kmeans/kmeans_openmp.c",
            test_shq(tree));
    CHECKF(system(make) == 0, "make with the wrong solution failed (see %s/make.log)", tree);
    r = cli_exe(copy_exe, grade, png, tree, tree);
    CHECKF(r->code == 1 && test_lines(r->err) == 1 && strstr(r->err, "wrong output") &&
               strstr(r->out, "FAIL (wrong)"),
           "the wrong solution: exit %d: %s%s", r->code, r->out, r->err);

    r = cli("exercise kmeans/openmp --root %s --solution --force", tree);
    CHECK(r->code == 0);
    CHECKF(system(make) == 0, "make with the solution failed (see %s/make.log)", tree);
    r = cli_exe(copy_exe, grade, png, tree, tree);
    CHECKF(r->code == 0 && strstr(r->out, "grade kmeans/student-openmp: PASS") && strstr(r->out, "x its parent cpu") &&
               strstr(r->out, "x limit"),
           "the reference solution: exit %d: %s%s", r->code, r->out, r->err);
    static char text[8192];
    test_slurp(under(tree, "g.json"), text, sizeof text);
    CHECKF(strstr(text, "\"verdict\": \"PASS\"") && strstr(text, "\"seed\": 11") && strstr(text, "\"student\": \"Ada, L.\""),
           "%s", text);
    test_slurp(under(tree, "class.csv"), text, sizeof text);
    CHECKF(!strncmp(text, "date,student,variant,verdict", 28) && test_lines(text) == 4 &&
               strstr(text, ",\"Ada, L.\",kmeans/student-openmp,PASS,0,11,"),
           "%s", text);
}

const sb_test tests_course[] = {
    { "course: segbench exercise writes a CUDA rung's stub (the parent's code between TODOs) and its solution; "
      "refuses what has no lesson",
      test_cuda_stub },
    { "course: grading an OpenMP exercise in a copy of the tree: the stub fails, a wrong one fails, the solution passes",
      test_grade_openmp },
};
const int tests_course_count = sizeof tests_course / sizeof tests_course[0];
