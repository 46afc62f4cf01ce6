/* grade_class.c - the class leaderboard `segbench grade --class` keeps. */
#include "test.h"

#include "base/csv.h"
#include "course/grade_class.h"

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

const sb_test tests_grade_class[] = {
    { "course: the class leaderboard quotes every field through base/csv (names with , \" CR LF come back whole)",
      test_class_fields_come_back },
};
const int tests_grade_class_count = sizeof tests_grade_class / sizeof tests_grade_class[0];
