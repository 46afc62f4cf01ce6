/* text.c - the report's safe text (report_parts.h): names made safe for
 * Markdown tables and gnuplot strings, never cut without a word. */
#include "test.h"

#include "report/report_parts.h"

#include "harness/registry.h"
#include "io/stream_rows.h"

#include <stdio.h>
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

/* The lessons page's frames-in-flight table sets a narrow branch's stream
 * beside its parent's at the same K and kind of run (SLIC's cuda-labels16
 * against the top, cuda-rows); the top's own parent has no stream rows.  A
 * p99 above twice p50 is marked (‡), one at twice is not. */
static void test_in_flight_over_parent(void)
{
    sb_stream_row rows[3];
    memset(rows, 0, sizeof rows);
    const char *variant[3] = { "cuda-rows", "cuda-labels16", "cuda-labels16" };
    const double fps[3] = { 320.0, 352.0, 500.0 };
    const int k[3] = { 1, 1, 2 };
    for (int i = 0; i < 3; i++) {
        snprintf(rows[i].algo, sizeof rows[i].algo, "slic");
        snprintf(rows[i].stage, sizeof rows[i].stage, "s16");
        snprintf(rows[i].variant, sizeof rows[i].variant, "%s", variant[i]);
        snprintf(rows[i].backend, sizeof rows[i].backend, "cuda-shared");
        snprintf(rows[i].sequence, sizeof rows[i].sequence, "scene-3840x2160");
        snprintf(rows[i].runs, sizeof rows[i].runs, "overlap");
        snprintf(rows[i].agreement, sizeof rows[i].agreement, "exact");
        snprintf(rows[i].bound_by, sizeof rows[i].bound_by, "run");
        rows[i].in_flight = k[i];
        rows[i].fps = fps[i];
        rows[i].p50_ms = 3.0;
        rows[i].p99_ms = i == 2 ? 6.5 : 6.0;        /* the last one's tail is above twice p50 */
    }
    stream_set ss = { rows, 3 };
    char text[4096] = "";
    FILE *md = fmemopen(text, sizeof text - 1, "w");
    if (!md) {
        CHECK(0);
        return;
    }
    report_streams_in_flight(md, &ss);
    fclose(md);
    CHECKF(strstr(text, "| over its parent |") && strstr(text, "| cuda-rows | 1 | 320.0 | 1.00x | - |") &&
               strstr(text, "| cuda-labels16 | 1 | 352.0 | 1.00x | 1.10x |") &&
               strstr(text, "| cuda-labels16 | 2 | 500.0 | 1.42x | - | 3 / 6.5 \xe2\x80\xa1 |") &&
               strstr(text, "| 1.10x | 3 / 6 |"),
           "%s", text);
}

/* Colour frames to the integral image: the colour branch (cuda-colour)
 * is set beside its parent's row from the same colour frames, never
 * beside the parent's grey row; the host's part is shown; and the first
 * screen's best GPU row is taken from the grey frames alone. */
static void test_in_flight_from_colour(void)
{
    sb_stream_row rows[3];
    memset(rows, 0, sizeof rows);
    const char *variant[3] = { "cuda-fused", "cuda-fused", "cuda-colour" };
    const char *source[3] = { "", "colour", "colour" };
    const double fps[3] = { 1600.0, 230.0, 1500.0 }, host[3] = { 0, 13.1, 0 };
    for (int i = 0; i < 3; i++) {
        snprintf(rows[i].algo, sizeof rows[i].algo, "integral");
        snprintf(rows[i].stage, sizeof rows[i].stage, "sum");
        snprintf(rows[i].variant, sizeof rows[i].variant, "%s", variant[i]);
        snprintf(rows[i].backend, sizeof rows[i].backend, "cuda-shared");
        snprintf(rows[i].sequence, sizeof rows[i].sequence, "scene-3840x2160");
        snprintf(rows[i].runs, sizeof rows[i].runs, "overlap");
        snprintf(rows[i].agreement, sizeof rows[i].agreement, "exact");
        snprintf(rows[i].bound_by, sizeof rows[i].bound_by, "%s", i == 1 ? "host" : "fetch");
        snprintf(rows[i].source, sizeof rows[i].source, "%s", source[i]);
        rows[i].in_flight = 3;
        rows[i].fps = fps[i];
        rows[i].host_ms = host[i];
        rows[i].p50_ms = 1.0;
        rows[i].p99_ms = 1.2;
    }
    stream_set ss = { rows, 3 };
    char text[8192] = "";
    FILE *md = fmemopen(text, sizeof text - 1, "w");
    if (!md) {
        CHECK(0);
        return;
    }
    report_streams_in_flight(md, &ss);
    fclose(md);
    CHECKF(strstr(text, "| scene-3840x2160 from colour | cuda-colour | 3 | 1500.0 | - | 6.52x |") &&
               strstr(text, "| scene-3840x2160 from colour | cuda-fused | 3 | 230.0 |") &&
               strstr(text, "| host 13.1; ") && strstr(text, "(host) |"),
           "%s", text);
    const sb_algo *algo = sb_algo_find("integral");
    md = fmemopen(text, sizeof text - 1, "w");
    if (!md) {
        CHECK(0);
        return;
    }
    report_streams_table(md, &ss, &algo, 1);
    fclose(md);
    CHECKF(strstr(text, "| cuda-fused, 3 in flight | 1600.0 |") && !strstr(text, "cuda-colour, 3"), "%s", text);
}

const sb_test tests_report_text[] = {
    { "report: the frames-in-flight table gives a narrow branch's gain over its parent at the same K, and marks latency tails",
      test_in_flight_over_parent },
    { "report: colour frames -- the colour branch against its parent from the same colour frames; the first screen "
      "takes grey frames' rows", test_in_flight_from_colour },
    { "report: safe text for Markdown and gnuplot in caller buffers, a long name whole, one past the limit ends in ...",
      test_safe_text },
};
const int tests_report_text_count = sizeof tests_report_text / sizeof tests_report_text[0];
