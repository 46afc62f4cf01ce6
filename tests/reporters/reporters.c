/* reporters.c - the set of reporters a run writes through
 * (bench/reporters/), called as functions: every row reaches every
 * reporter in order, the samples before their row; a failing reporter
 * stops the row and the rest; every begun reporter ends; the files hold
 * what the row held. */
#include "cli_util.h"
#include "test_groups.h"

#include "variants/registry.h"
#include "reporters/reporters.h"

#include <stdio.h>
#include <string.h>

/* A reporter that writes its name and each call into a shared log. */
typedef struct spy {
    char name[16];
    char *log;                    /* 512 bytes, shared by every spy */
    int fail_row;                 /* its row() fails */
} spy;

static void spy_note(spy *s, const char *what)
{
    size_t used = strlen(s->log);
    snprintf(s->log + used, 512 - used, "%s%s:%s", used ? " " : "", s->name, what);
}

static sb_status spy_begin(sb_reporter *self, const char *dir, const sb_algo *algo, int keep, sb_error *err)
{
    (void)dir, (void)algo, (void)keep, (void)err;
    spy_note(self->state, "begin");
    return SB_OK;
}

static sb_status spy_row(sb_reporter *self, const sb_row_report *rr, sb_error *err)
{
    (void)rr;
    spy *s = self->state;
    spy_note(s, "row");
    return s->fail_row ? sb_fail(err, SB_ERR_IO, "%s: disk full", s->name) : SB_OK;
}

static sb_status spy_end(sb_reporter *self, const char *dir, const sb_algo *algo, int finished, sb_error *err)
{
    (void)dir, (void)algo, (void)err;
    spy_note(self->state, finished ? "end" : "end-unfinished");
    return SB_OK;
}

static void test_set_order_and_failure(void)
{
    static char log[512];
    static spy spies[3] = { { "a", log, 0 }, { "b", log, 1 }, { "c", log, 0 } };
    sb_reporters rs;
    memset(&rs, 0, sizeof rs);
    for (int i = 0; i < 3; i++)
        rs.list[rs.n++] = (sb_reporter){ .name = spies[i].name, .begin = spy_begin, .row = spy_row, .end = spy_end,
                                         .state = &spies[i] };
    const sb_algo *algo = sb_algo_find("integral");
    sb_error err = { SB_OK, "" };
    CHECK(sb_reporters_begin(&rs, algo, 0, &err) == SB_OK);
    sb_row_report rr = { .kind = SB_ROW_CHECKED, .algo = algo, .stage = "sum", .verdict = "exact", .metric = "m" };
    sb_status st = sb_reporters_row(&rs, &rr, &err);
    CHECKF(st == SB_ERR_IO && strstr(err.msg, "b: disk full"), "%d %s", st, err.msg);
    CHECK(sb_reporters_end(&rs, algo, 0, &err) == SB_OK);
    CHECKF(strcmp(log, "a:begin b:begin c:begin a:row b:row a:end-unfinished b:end-unfinished c:end-unfinished") == 0,
           "%s", log);
}

/* The bench set: samples, the row, the census, the console, then JSON
 * at the end; the files hold the row. */
static void test_bench_set_writes_the_row(void)
{
    const char *dir = test_pathf("reporters");
    test_sh("rm -rf %s && mkdir -p %s", test_shq(dir), test_shq(dir));
    sb_reporters rs;
    sb_reporters_config cfg = { .files = 1, .census = 1, .json = 1, .quiet = 1 };
    sb_reporters_init(&rs, &cfg, dir);
    static const char *const order[] = { "samples", "csv", "kernels", "quality", "console", "json", "streams" };
    int in_order = rs.n == 7;
    for (int i = 0; in_order && i < 7; i++)
        in_order = !strcmp(rs.list[i].name, order[i]);
    CHECKF(in_order, "%d reporters", rs.n);
    const sb_algo *algo = sb_algo_find("integral");
    const sb_variant *v = sb_variant_find("integral", "cpu");
    sb_error err = { SB_OK, "" };
    CHECK(sb_reporters_begin(&rs, algo, 0, &err) == SB_OK);
    CHECK(sb_reporters_take_census(&rs));
    static double kernel_ms[3] = { 1.0, 2.0, 3.0 };
    sb_row row = { .threads = 1, .width = 4, .height = 2, .kernel = { .n = 3, .median = 2.0, .p25 = 1.5, .p75 = 2.5 },
                   .kernel_ms = kernel_ms };
    snprintf(row.algo, sizeof row.algo, "integral");
    snprintf(row.stage, sizeof row.stage, "sum");
    snprintf(row.variant, sizeof row.variant, "cpu");
    snprintf(row.backend, sizeof row.backend, "cpu");
    snprintf(row.image, sizeof row.image, "tiny, \"quoted\"");
    snprintf(row.agreement, sizeof row.agreement, "exact");
    snprintf(row.run_id, sizeof row.run_id, "run-1");
    sb_kernel_info k[1] = { { .block = 256, .regs = 32, .occupancy = 1.0 } };
    snprintf(k[0].name, sizeof k[0].name, "void scan<int, 2>");
    sb_row_report rr = { .kind = SB_ROW_MEASURED, .algo = algo, .stage = "sum", .v = v, .threads = 1,
                         .image = row.image, .label = "integral sum cpu t1 tiny", .row = &row, .census = k,
                         .census_n = 1 };
    CHECKF(sb_reporters_row(&rs, &rr, &err) == SB_OK, "%s", err.msg);
    CHECKF(sb_reporters_end(&rs, algo, 1, &err) == SB_OK, "%s", err.msg);
    static char text[1 << 14];
    test_slurp(test_pathf("reporters/integral.csv"), text, sizeof text);
    CHECKF(test_lines(text) == 2 && strstr(text, "\nintegral,sum,cpu,cpu,1,\"tiny, \"\"quoted\"\"\",4,2,3,"), "%s", text);
    test_slurp(test_pathf("reporters/integral.samples.csv"), text, sizeof text);
    CHECKF(test_lines(text) >= 2 && strstr(text, "run-1"), "%s", text);
    test_slurp(test_pathf("reporters/integral.kernels.csv"), text, sizeof text);
    CHECKF(strstr(text, "\nsum,cpu,\"tiny, \"\"quoted\"\"\",\"void scan<int, 2>\",256,32,"), "%s", text);
    test_slurp(test_pathf("reporters/integral.json"), text, sizeof text);
    CHECKF(strstr(text, "\"variant\": \"cpu\""), "%.2000s", text);
}

const sb_test tests_reporters[] = {
    { "reporters: a row reaches each reporter in order; one that fails stops the rest; every begun one ends",
      test_set_order_and_failure },
    { "reporters: bench's set writes a row's samples, row, census and JSON, names quoted", test_bench_set_writes_the_row },
};
const int tests_reporters_count = sizeof tests_reporters / sizeof tests_reporters[0];
