/* rows.c - io/ on its own: a row and its samples written and read
 * back, and base/files.h's whole-file read and path limit. */
#include "test.h"
#include "test_groups.h"

#include "base/files.h"
#include "io/rows.h"
#include "variants/outputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_row_round_trip(void)
{
    sb_rows rows = { 0 };
    sb_row *r = test_row_add(&rows, "integral", "sum", "openmp", "openmp", 2, "a,\"b\"\r\n.png", 97, 61);
    CHECK(r != NULL);
    if (!r)
        return;
    snprintf(r->agreement, sizeof r->agreement, "exact");
    snprintf(r->run_id, sizeof r->run_id, "run-1");
    r->bytes = 29585;
    double ms[3] = { 0.25, 0.5, 0.75 };
    r->kernel.n = 3;
    r->kernel.median = 0.5;
    r->kernel_ms = malloc(sizeof ms);
    if (r->kernel_ms)
        memcpy(r->kernel_ms, ms, sizeof ms);
    /* the work, as a row of rounds that differed writes it (variants/outputs.h) */
    sb_work lo = { 2, { "rounds", "relabels" }, { 410, 14 } }, hi = lo;
    hi.value[0] = 415;
    sb_work_text(&lo, &hi, r->work, sizeof r->work);
    CHECKF(strcmp(r->work, "rounds 410..415, relabels 14") == 0 && sb_work_text_varies(r->work), "'%s'", r->work);
    sb_work_text(&lo, &lo, r->work, sizeof r->work);
    CHECKF(strcmp(r->work, "rounds 410, relabels 14") == 0 && !sb_work_text_varies(r->work), "'%s'", r->work);
    sb_work_text(&lo, &hi, r->work, sizeof r->work);
    double work[3] = { 410, 415, 412 };
    r->nwork = 3;
    r->round_work = malloc(sizeof work);
    if (r->round_work)
        memcpy(r->round_work, work, sizeof work);
    double probe[3] = { 0.0, 0.231456, 0.3125 };          /* 0: a round not probed (the reference's run) */
    r->nprobe = 3;
    r->round_probe = malloc(sizeof probe);
    if (r->round_probe)
        memcpy(r->round_probe, probe, sizeof probe);
    char csv[SB_PATH_MAX], samples[SB_PATH_MAX];
    sb_error err;
    CHECK(sb_path(csv, &err, "%s/io.csv", sb_test_dir()) == SB_OK);
    CHECK(sb_path(samples, &err, "%s/io.samples.csv", sb_test_dir()) == SB_OK);
    CHECK(sb_rows_write_csv(&rows, csv, &err) == SB_OK);
    CHECK(sb_rows_write_samples(&rows, samples, &err) == SB_OK);
    sb_rows back = { 0 };
    CHECK(sb_rows_read_csv(csv, &back, &err) == SB_OK);
    CHECK(sb_rows_read_samples(samples, &back, &err) == SB_OK);
    CHECKF(back.count == 1, "%d rows read back", back.count);
    if (back.count == 1) {
        const sb_row *b = &back.row[0];
        CHECK(sb_row_same_key(b, r));
        CHECKF(strcmp(b->image, r->image) == 0, "image came back as '%s'", b->image);
        CHECK(b->threads == 2 && b->width == 97 && b->height == 61 && b->bytes == 29585);
        CHECK(b->kernel_ms && b->kernel.n == 3 && b->kernel_ms[1] == 0.5);
        CHECKF(strcmp(b->work, r->work) == 0, "work came back as '%s'", b->work);
        CHECK(b->round_work && b->nwork == 3 && b->round_work[1] == 415);
        CHECK(b->round_probe && b->nprobe == 3 && b->round_probe[0] == 0.0 && b->round_probe[1] == 0.231456);
    }
    sb_rows_free(&back);
    sb_rows_free(&rows);
}

static void test_files_and_paths(void)
{
    char path[SB_PATH_MAX];
    sb_error err;
    CHECK(sb_path(path, &err, "%s/whole.txt", sb_test_dir()) == SB_OK);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs("one\ntwo", fp);
        fclose(fp);
    }
    char *text = NULL;
    size_t len = 0;
    CHECK(sb_file_read(path, 100, &text, &len, &err) == SB_OK && text && len == 7 && strcmp(text, "one\ntwo") == 0);
    free(text);
    CHECK(sb_file_read(path, 6, &text, &len, &err) == SB_ERR_LIMIT && text == NULL);
    CHECK(sb_file_read("/nonexistent/segbench", 100, &text, &len, &err) == SB_ERR_IO);
    CHECK(sb_read_text("/nonexistent/segbench") == NULL);
    /* a path that would not fit is an error, never cut */
    static char long_name[SB_PATH_MAX + 10];
    memset(long_name, 'x', sizeof long_name - 1);
    CHECK(sb_path(path, &err, "%s/env.json", long_name) == SB_ERR_LIMIT);
    CHECKF(strstr(err.msg, "longer than") != NULL, "message: %s", err.msg);
}

const sb_test tests_io_results[] = {
    { "io: a row and its samples written and read back whole (a name with , \" CR LF too)", test_row_round_trip },
    { "io: a whole file read with a size limit; a path over SB_PATH_MAX is an error", test_files_and_paths },
};
const int tests_io_results_count = sizeof tests_io_results / sizeof tests_io_results[0];
