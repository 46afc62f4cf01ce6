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
    char *first = REPORT_TEXT, *same[20];
    report_md(first, "a|b\nc");
    for (int i = 0; i < 20; i++)
        same[i] = (char *)report_gp(REPORT_TEXT, "x");
    CHECKF(strcmp(first, "a\\|b c") == 0, "the first text, after 20 more: '%s'", first);
    CHECK(strcmp(same[19], "x") == 0);
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
