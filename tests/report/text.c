/* text.c - the report's safe text (report_parts.h): names made safe for
 * Markdown tables and gnuplot strings, never cut without a word. */
#include "test.h"

#include "report/report_parts.h"

#include <string.h>

static void test_safe_text(void)
{
    char long_name[700];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    /* before: sixteen static buffers of 512 characters, text cut at 512 without a word */
    const char *md = report_md(REPORT_TEXT, long_name);
    CHECKF(strlen(md) == strlen(long_name), "a 699-character name came back as %zu characters", strlen(md));
    /* before: a seventeenth use in one call overwrote the first */
    char line[2048];
    snprintf(line, sizeof line, "%s %s %s %s %s %s %s %s %s %s %s %s %s %s %s %s %s", report_md(REPORT_TEXT, "a|b\nc"),
             report_gp(REPORT_TEXT, "1"), report_gp(REPORT_TEXT, "2"), report_gp(REPORT_TEXT, "3"),
             report_gp(REPORT_TEXT, "4"), report_gp(REPORT_TEXT, "5"), report_gp(REPORT_TEXT, "6"),
             report_gp(REPORT_TEXT, "7"), report_gp(REPORT_TEXT, "8"), report_gp(REPORT_TEXT, "9"),
             report_gp(REPORT_TEXT, "10"), report_gp(REPORT_TEXT, "11"), report_gp(REPORT_TEXT, "12"),
             report_gp(REPORT_TEXT, "13"), report_gp(REPORT_TEXT, "14"), report_gp(REPORT_TEXT, "15"),
             report_gp(REPORT_TEXT, "16"));
    CHECKF(strcmp(line, "a\\|b c 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16") == 0, "seventeen in one call: '%s'", line);
    CHECK(strcmp(report_gp(REPORT_TEXT, "it's\tok"), "it''s ok") == 0);
    static char huge[4 * REPORT_TEXT_MAX];
    memset(huge, '|', sizeof huge - 1);
    const char *cut = report_md(REPORT_TEXT, huge);
    size_t n = strlen(cut);
    CHECKF(n < REPORT_TEXT_MAX && n >= 3 && strcmp(cut + n - 3, "...") == 0, "text over the limit ends in '...' (%zu)", n);
}

const sb_test tests_report_text[] = {
    { "report: safe text for Markdown and gnuplot in caller buffers, a long name whole, one past the limit ends in ...",
      test_safe_text },
};
const int tests_report_text_count = sizeof tests_report_text / sizeof tests_report_text[0];
