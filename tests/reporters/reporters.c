/* reporters.c - the set of reporters a run writes through
 * (bench/reporters/), called as functions: every row reaches every
 * reporter in order, the samples before their row; a failing reporter
 * stops the row and the rest; every begun reporter ends; the files hold
 * what the row held. */
#include "cli_util.h"
#include "test_groups.h"

#include "variants/registry.h"
#include "reporters/reporters.h"

#include "segbench/image_io.h"

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

static sb_status spy_end(sb_reporter *self, const char *dir, const sb_algo *algo, const sb_rows *measured,
                         int finished, sb_error *err)
{
    (void)measured;
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
    CHECK(sb_reporters_end(&rs, algo, NULL, 0, &err) == SB_OK);
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
    static const char *const order[] = { "samples", "csv", "kernels", "quality", "console", "json", "streams",
                                         "repeat", "record", "catalogue", "gallery" };
    int in_order = rs.n == 11;
    for (int i = 0; in_order && i < 11; i++)
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
    CHECKF(sb_reporters_end(&rs, algo, NULL, 1, &err) == SB_OK, "%s", err.msg);
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

/* repeat.csv is written whole as the re-measure ends: a re-measure that
 * stops leaves the file before it as it was (before, the file was opened
 * for writing as the re-measure began, and a kill left it half-written). */
static void test_repeat_written_whole(void)
{
    const char *dir = test_pathf("reporters-repeat");
    test_sh("rm -rf %s && mkdir -p %s && printf 'old\\n' > %s/repeat.csv", test_shq(dir), test_shq(dir),
            test_shq(dir));
    sb_reporters rs;
    sb_reporters_config cfg = { .files = 1, .quiet = 1 };
    sb_reporters_init(&rs, &cfg, dir);
    sb_row first = { .threads = 2, .kernel = { .n = 10, .median = 1.0 } };
    snprintf(first.algo, sizeof first.algo, "kmeans");
    snprintf(first.stage, sizeof first.stage, "fixed10");
    snprintf(first.variant, sizeof first.variant, "openmp");
    snprintf(first.image, sizeof first.image, "a,b");
    sb_repeat_report rr = { .first = &first, .again_median_ms = 1.05, .again_n = 12, .ratio = 1.05, .within = 1 };
    sb_error err = { SB_OK, "" };
    static char text[4096];
    CHECK(sb_reporters_repeat_begin(&rs, "integral,sum,cpu,1,x,1,1,1,1,1,yes,,,,,\n", &err) == SB_OK);
    CHECK(sb_reporters_repeat_row(&rs, &rr, &err) == SB_OK);
    CHECK(sb_reporters_repeat_end(&rs, 0, &err) == SB_OK);              /* stopped: nothing written */
    test_slurp(test_pathf("reporters-repeat/repeat.csv"), text, sizeof text);
    CHECKF(strcmp(text, "old\n") == 0, "%s", text);
    CHECK(sb_reporters_repeat_begin(&rs, "integral,sum,cpu,1,x,1,1,1,1,1,yes,,,,,\n", &err) == SB_OK);
    CHECK(sb_reporters_repeat_row(&rs, &rr, &err) == SB_OK);
    CHECK(sb_reporters_repeat_end(&rs, 1, &err) == SB_OK);
    test_slurp(test_pathf("reporters-repeat/repeat.csv"), text, sizeof text);
    CHECKF(test_lines(text) == 3 && !strncmp(text, "algo,stage,variant,threads,image,", 33) &&
               strstr(text, "\nintegral,sum,cpu,1,x,") && strstr(text, "\nkmeans,fixed10,openmp,2,\"a,b\",1.000000,10,"
                                                                      "1.050000,12,1.0500,yes,,,,,\n"),
           "%s", text);
}

/* The gallery's pictures are written by its reporter, not by the
 * algorithm (before, algo->gallery wrote each PNG itself as the case
 * opened): an album's picture, drawn and encoded, reaches
 * gallery/<file> whole, readable, and its line the index. */
static void test_gallery_writes_the_album(void)
{
    const char *dir = test_pathf("reporters-gallery");
    test_sh("rm -rf %s && mkdir -p %s", test_shq(dir), test_shq(dir));
    sb_reporters rs;
    sb_reporters_config cfg = { .files = 1, .quiet = 1 };
    sb_reporters_init(&rs, &cfg, dir);
    sb_error err = { SB_OK, "" };
    CHECKF(sb_reporters_run_begin(&rs, "integral", &err) == SB_OK, "%s", err.msg);
    const sb_algo *algo = sb_algo_find("integral");
    CHECK(sb_reporters_begin(&rs, algo, 0, &err) == SB_OK);
    sb_image pic = { 0 };
    CHECK(sb_image_alloc(&pic, 3, 2, 1, &err) == SB_OK);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++)
            sb_image_row(&pic, y)[x] = (unsigned char)(40 * (y * 3 + x));
    sb_gallery_album album;
    sb_gallery_album_begin(&album, "integral-tiny");
    CHECKF(sb_gallery_add(&album, "input", &pic, SB_OK, "input, grey", &err) == SB_OK, "%s", err.msg);
    CHECK(sb_gallery_add(&album, "broken", &pic, SB_ERR_NOMEM, "never drawn", &err) == SB_ERR_NOMEM);
    CHECK(album.count == 1 && album.pic[0].bytes > 8 && !memcmp(album.pic[0].png, "\x89PNG", 4));
    sb_gallery_report gr = { .algo = algo, .image = "tiny", .album = &album };
    CHECKF(sb_reporters_gallery(&rs, &gr, &err) == SB_OK, "%s", err.msg);
    CHECK(sb_reporters_end(&rs, algo, NULL, 1, &err) == SB_OK);
    sb_reporters_run_end(&rs);
    sb_gallery_album_free(&album);
    sb_image back = { 0 };
    CHECKF(sb_image_load(test_pathf("reporters-gallery/gallery/integral-tiny-input.png"), SB_LOAD_GREY, &back, &err) ==
               SB_OK, "%s", err.msg);
    CHECK(back.width == 3 && back.height == 2 && sb_image_row(&back, 1)[2] == 200);
    static char text[4096];
    test_slurp(test_pathf("reporters-gallery/gallery/index.tsv"), text, sizeof text);
    CHECKF(strstr(text, "integral\ttiny\tintegral-tiny-input.png\tinput, grey\n") != NULL, "%s", text);
    sb_image_free(&pic);
    sb_image_free(&back);
}

const sb_test tests_reporters[] = {
    { "reporters: repeat.csv is written whole as the re-measure ends, never half", test_repeat_written_whole },
    { "reporters: the gallery's pictures come drawn and encoded, and its reporter writes them and their lines",
      test_gallery_writes_the_album },
    { "reporters: a row reaches each reporter in order; one that fails stops the rest; every begun one ends",
      test_set_order_and_failure },
    { "reporters: bench's set writes a row's samples, row, census and JSON, names quoted", test_bench_set_writes_the_row },
};
const int tests_reporters_count = sizeof tests_reporters / sizeof tests_reporters[0];
