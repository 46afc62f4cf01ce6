/* grade_class.c - the class leaderboard `segbench grade --class` keeps. */
#include "test.h"

#include "base/csv.h"
#include "course/grade.h"
#include "course/grade_class.h"
#include "pages/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read back every record of the leaderboard at path into rows[][12]. */
static int read_board(const char *path, char rows[][12][128], int max)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    char *buf = NULL;
    size_t cap = 0;
    int n = 0;
    while (n < max && sb_csv_read_record(fp, &buf, &cap) > 0) {
        char *field[16];
        int k = sb_csv_split(buf, field, 16);
        for (int i = 0; i < 12; i++)
            snprintf(rows[n][i], sizeof rows[n][i], "%s", i < k ? field[i] : "(missing)");
        n++;
    }
    free(buf);
    fclose(fp);
    return n;
}

/* Before, grade wrote its own quoting: a newline in a name became a space,
 * and variant, machine and commit went out unquoted (a comma split them). */
static void test_class_fields_come_back(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/class.csv", sb_test_dir());
    remove(path);
    grade_class_row row = { "2026-11-25T00:00:00Z", "Doe, \"Jo\"\nsecond line", "student-cuda,pdl", "PASS", 0,
                            42, 16, 1.1, 0.99, 1.73, "h100,80gb", "abc\r\ndef" };
    sb_error err;
    CHECK(grade_class_append(path, &row, &err) == SB_OK);
    row.student = "plain";
    CHECK(grade_class_append(path, &row, &err) == SB_OK);
    static char rows[4][12][128];
    int n = read_board(path, rows, 4);
    CHECKF(n == 3, "%d records (header and two rows)", n);
    if (n != 3)
        return;
    CHECK(strcmp(rows[0][1], "student") == 0);
    CHECKF(strcmp(rows[1][1], "Doe, \"Jo\"\nsecond line") == 0, "student came back as '%s'", rows[1][1]);
    CHECKF(strcmp(rows[1][2], "student-cuda,pdl") == 0, "variant came back as '%s'", rows[1][2]);
    CHECKF(strcmp(rows[1][10], "h100,80gb") == 0, "machine came back as '%s'", rows[1][10]);
    CHECKF(strcmp(rows[1][11], "abc\r\ndef") == 0, "commit came back as '%s'", rows[1][11]);
    CHECK(strcmp(rows[2][1], "plain") == 0 && strcmp(rows[2][5], "42") == 0 && strcmp(rows[2][7], "1.100") == 0);
    /* a file that is not a leaderboard is refused, not appended to */
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs("a,b,c\n", fp);
        fclose(fp);
    }
    CHECK(grade_class_append(path, &row, &err) == SB_ERR_FORMAT);
}

/* The class's page reads one exercise and seed back, each student's last
 * grade, and ranks them: passes first, then "not faster", then wrong,
 * then what was not graded; within each, the faster over the reference. */
static void test_leaderboard_page(void)
{
    char path[512], page[512];
    snprintf(path, sizeof path, "%s/board.csv", sb_test_dir());
    snprintf(page, sizeof page, "%s/board.md", sb_test_dir());
    remove(path);
    sb_error err;
    grade_class_row r = { "2026-11-26T00:00:00Z", "ann", "kmeans/student-openmp", "FAIL (wrong)", 1, 7, 3, 0, 0, 0,
                          "m", "c" };
    CHECK(grade_class_append(path, &r, &err) == SB_OK);
    r.verdict = "PASS", r.exit_code = 0, r.vs_reference = 0.95, r.vs_parent = 1.8;   /* ann again: the last counts */
    CHECK(grade_class_append(path, &r, &err) == SB_OK);
    r.student = "b|o\nb", r.verdict = "PASS", r.vs_reference = 1.02;
    CHECK(grade_class_append(path, &r, &err) == SB_OK);
    r.student = "cat", r.verdict = "FAIL (does not build)", r.exit_code = 2, r.vs_reference = 0;
    CHECK(grade_class_append(path, &r, &err) == SB_OK);
    r.student = "dan", r.verdict = "FAIL (correct, not faster than its parent)", r.exit_code = 3, r.vs_reference = 0.6;
    CHECK(grade_class_append(path, &r, &err) == SB_OK);
    r.student = "eve", r.seed = 8, r.verdict = "PASS", r.exit_code = 0;                 /* another seed: not this page */
    CHECK(grade_class_append(path, &r, &err) == SB_OK);
    r.student = "fay", r.seed = 7, r.variant = "integral/student-openmp";                 /* another exercise */
    CHECK(grade_class_append(path, &r, &err) == SB_OK);

    grade_class_row *rows;
    int n;
    char *buf;
    CHECK(grade_class_read(path, "kmeans/student-openmp", 7, &rows, &n, &buf, &err) == SB_OK);
    CHECKF(n == 4 && !strcmp(rows[0].student, "ann") && !strcmp(rows[0].verdict, "PASS") &&
               !strcmp(rows[1].student, "b|o\nb"),
           "%d rows", n);
    free(rows);
    free(buf);
    CHECK(report_leaderboard(path, "kmeans/student-openmp", 7, page, &err) == SB_OK);
    static char md[8192];
    FILE *fp = fopen(page, "r");
    size_t len = fp ? fread(md, 1, sizeof md - 1, fp) : 0;
    md[len] = '\0';
    if (fp)
        fclose(fp);
    const char *first = strstr(md, "| 1 | b\\|o b | PASS |"), *second = strstr(md, "| 2 | ann | PASS |"),
               *third = strstr(md, "| 3 | dan |"), *fourth = strstr(md, "| 4 | cat | FAIL (does not build) | 2 |");
    CHECKF(first && second && third && fourth && first < second && second < third && third < fourth &&
               strstr(md, "4 students: **2 passed**, 1 correct but not fast enough, 0 wrong, 1 not graded") &&
               !strstr(md, "eve") && !strstr(md, "fay"),
           "%s", md);
}

/* A class's grader judges a kit's record against the reference it timed
 * itself; an undetermined call against the parent passes there (the two
 * were timed in two processes).  Before, that let the unchanged stub pass:
 * in CI its rounds read 0.91x its parent, undetermined, and its TODO parts
 * were never looked at once the reference beat the parent. */
static void test_todo_parts_fail_a_class(void)
{
    grade_opts o = { .min_diff = 0.03, .alpha = 0.05 };
    grade_reference ref = { .n = 5, .reference = { 1, 1, 1, 1, 1 }, .parent = { 2, 2, 2, 2, 2 },
                            .beats_parent = 1, .speedup = 2 };
    grade_kit_record stub = { .verdict = "FAIL (correct, not faster than its parent)", .todo_left = 3,
                              .rounds_student = "2.2 1.8 2.3 1.9 2.0", .rounds_parent = "2.0 2.1 1.9 2.2 1.8" };
    sb_effect vs_parent, vs_reference;
    int code = -1;
    const char *verdict = grade_against_reference(&o, &stub, &ref, &vs_parent, &vs_reference, &code);
    CHECKF(vs_parent.call == SB_CALL_UNDETERMINED, "the stub's rounds: %s", sb_call_name(vs_parent.call));
    CHECKF(verdict && !strncmp(verdict, "FAIL (correct, ", 15) && code == GRADE_EXIT_SLOWER, "the stub: %s, exit %d",
           verdict ? verdict : "(none)", code);
    /* the same rounds with no TODO part left pass: only the student's own
     * rounds showing no gain fail them */
    grade_kit_record done = stub;
    done.todo_left = 0;
    verdict = grade_against_reference(&o, &done, &ref, &vs_parent, &vs_reference, &code);
    CHECKF(verdict && !strcmp(verdict, "PASS") && code == GRADE_EXIT_PASS, "done: %s, exit %d",
           verdict ? verdict : "(none)", code);
    /* clearly slower than the parent fails, TODO parts or none */
    grade_kit_record slow = done;
    snprintf(slow.rounds_student, sizeof slow.rounds_student, "3.0 3.1 2.9 3.2 3.0");
    verdict = grade_against_reference(&o, &slow, &ref, &vs_parent, &vs_reference, &code);
    CHECKF(verdict && strstr(verdict, "not faster") && code == GRADE_EXIT_SLOWER, "slow: %s, exit %d",
           verdict ? verdict : "(none)", code);
}

const sb_test tests_grade_class[] = {
    { "course: a class fails a kit whose TODO parts are left, though its rounds cannot tell it from its parent",
      test_todo_parts_fail_a_class },
    { "course: a class's leaderboard page: one exercise and seed, each student's last grade, passes first",
      test_leaderboard_page },
    { "course: the class leaderboard quotes every field through base/csv (names with , \" CR LF come back whole)",
      test_class_fields_come_back },
};
const int tests_grade_class_count = sizeof tests_grade_class / sizeof tests_grade_class[0];
