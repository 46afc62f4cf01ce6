/* test_harness.c - the measurement protocol, results files and datasets,
 * called as functions (no processes). */
#include "test_groups.h"

#include "../bench/cases.h"
#include "../bench/dataset.h"
#include "../bench/registry.h"
#include "../bench/results.h"

#include "segbench/image_io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_measure_protocol(void)
{
    const sb_algo *algo = sb_algo_find("integral");
    sb_image img;
    test_random_grey(&img, 150, 90, 4);
    sb_case_data cd;
    sb_error err;
    CHECKF(sb_case_open(&cd, algo, 1, NULL, &img, &err) == SB_OK, "%s", err.msg);
    sb_timing_opts o;
    sb_timing_defaults(&o);
    o.budget_ms = 30;
    o.min_reps = 7;
    o.max_reps = 40;
    sb_measurement m;
    const sb_variant *v = sb_variant_find("integral", "pthread");
    CHECKF(sb_measure(&cd.c, v, 3, NULL, &o, &m, &err) == SB_OK, "%s", err.msg);
    CHECKF(m.agreement.ok, "%s", m.agreement.metric);
    CHECK(m.kernel.n >= 7 && m.kernel.n <= 40 && m.e2e.n >= 7);
    CHECK(m.kernel.min <= m.kernel.median && m.kernel.median <= m.kernel.max && m.kernel.min > 0);
    CHECK(m.e2e.min > 0 && m.e2e.min <= m.e2e.median);
    /* a CPU row's end to end is each kernel sample plus its setup: never below the kernel time */
    CHECKF(m.e2e.n == m.kernel.n && m.e2e.median >= m.kernel.median && m.e2e.min >= m.kernel.min,
           "e2e %d samples, median %g, kernel %d samples, median %g", m.e2e.n, m.e2e.median, m.kernel.n,
           m.kernel.median);
    sb_measurement_free(&m);
    sb_case_close(&cd);
    sb_image_free(&img);
}

static void test_results_round_trip(void)
{
    sb_rows rows = { 0 };
    sb_row *r = sb_rows_add(&rows);
    snprintf(r->algo, sizeof r->algo, "integral");
    snprintf(r->stage, sizeof r->stage, "sum");
    snprintf(r->variant, sizeof r->variant, "cpu");
    snprintf(r->backend, sizeof r->backend, "cpu");
    snprintf(r->image, sizeof r->image, "synth-97x61-s3");
    snprintf(r->agreement, sizeof r->agreement, "FAIL");
    snprintf(r->metric, sizeof r->metric, "3 of 9 sums differ, \"quoted\", and commas");
    r->threads = 4;
    r->width = 97;
    r->height = 61;
    r->kernel = (sb_summary){ 3, 1.0, 1.5, 2.0, 2.5, 3.0 };
    r->e2e = (sb_summary){ 3, 2.0, 2.5, 3.0, 3.5, 4.0 };
    r->bytes = 29585;
    r->kernel_ms = malloc(3 * sizeof(double));
    r->kernel_ms[0] = 1.0;
    r->kernel_ms[1] = 2.0;
    r->kernel_ms[2] = 3.0;
    sb_error err;
    const char *csv = test_path("r.csv"), *samples = test_path("r.samples.csv");
    CHECK(sb_rows_write_csv(&rows, csv, &err) == SB_OK);
    CHECK(sb_rows_write_samples(&rows, samples, &err) == SB_OK);
    sb_rows back;
    CHECKF(sb_rows_read_csv(csv, &back, &err) == SB_OK, "%s", err.msg);
    CHECKF(sb_rows_read_samples(samples, &back, &err) == SB_OK, "%s", err.msg);
    CHECK(back.count == 1 && sb_row_same_key(&back.row[0], r));
    CHECK(strcmp(back.row[0].metric, r->metric) == 0 && strcmp(back.row[0].agreement, "FAIL") == 0);
    CHECK(back.row[0].kernel.n == 3 && back.row[0].kernel_ms && back.row[0].kernel_ms[2] == 3.0);
    CHECK(fabs(back.row[0].kernel.p75 - 2.5) < 1e-9 && back.row[0].threads == 4);
    sb_rows_free(&rows);
    sb_rows_free(&back);
}

static void test_generator_deterministic(void)
{
    /* two generations of the smoke set give the same bytes */
    char cmd[1200];
    const char *a = test_path("gen-a"), *b = test_path("gen-b");
    snprintf(cmd, sizeof cmd, "./build/sbgen datasets/sets/smoke.set %s 2>/dev/null && "
             "./build/sbgen datasets/sets/smoke.set %s 2>/dev/null && "
             "cmp -s %s/synth-160x120.png %s/synth-160x120.png && "
             "cmp -s %s/synth-97x61-s3.labels.png %s/synth-97x61-s3.labels.png",
             a, b, a, b, a, b);
    CHECKF(system(cmd) == 0, "sbgen output differs between two runs (or sbgen failed)");
    char manifest[600];
    snprintf(manifest, sizeof manifest, "%s/manifest.tsv", a);
    sb_dataset ds;
    sb_error err;
    if (sb_dataset_load_manifest(manifest, &ds, &err) != SB_OK) {
        CHECKF(0, "%s", err.msg);
        return;
    }
    CHECK(ds.count == 3 && strcmp(ds.images[0].name, "synth-160x120") == 0 && ds.images[0].gallery);
    CHECK(ds.images[0].rect[2] > 0 && ds.images[0].rect[3] > 0 && ds.images[0].mask[0]);
    CHECK(strcmp(ds.images[2].kind, "photo") == 0);
    /* the mask marks exactly the object's pixels, and the rectangle holds them */
    sb_image mask;
    if (sb_image_load(ds.images[0].mask, SB_LOAD_GREY, &mask, &err) == SB_OK) {
        int inside = 0, outside = 0;
        const int *rc = ds.images[0].rect;
        for (int y = 0; y < mask.height; y++)
            for (int x = 0; x < mask.width; x++)
                if (sb_image_row(&mask, y)[x]) {
                    int in = x >= rc[0] && x < rc[0] + rc[2] && y >= rc[1] && y < rc[1] + rc[3];
                    inside += in;
                    outside += !in;
                }
        CHECKF(inside > 100 && outside == 0, "object pixels: %d inside the rectangle, %d outside", inside, outside);
        sb_image_free(&mask);
    } else {
        CHECKF(0, "%s", err.msg);
    }
    sb_dataset_free(&ds);
}

const sb_test tests_harness[] = {
    { "harness: check, warm-up, repetition and end-to-end on a CPU variant", test_measure_protocol },
    { "results: CSV and raw samples round-trip (quotes, commas)", test_results_round_trip },
    { "datasets: the generator is deterministic and its truth consistent", test_generator_deterministic },
};
const int tests_harness_count = sizeof tests_harness / sizeof tests_harness[0];
