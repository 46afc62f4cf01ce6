/* plan.c - --host-limit (bench/run/plan.c): a CPU row one run of which is
 * predicted to take longer than the limit is left out of the plan, the
 * serial reference and the GPU rows never; the prediction is the
 * reference's time over the row's threads, or the variant's own rate on a
 * smaller image where that is slower; a stream's frame is predicted from
 * the reference's runs on the run's images. */
#include "test_groups.h"

#include "run/state.h"

#include "variants/registry.h"

#include <math.h>
#include <string.h>

#define CHECK_NEAR(got, want, tol) \
    CHECKF(fabs((got) - (want)) <= (tol), "%s = %g, want %g", #got, (double)(got), (double)(want))
#define CHECK_INT(got, want) CHECKF((got) == (want), "%s = %d, want %d", #got, (int)(got), (int)(want))

/* A row of variant at threads on a w x h image whose kernel median is ms. */
static void add_row(sb_rows *rows, const char *stage, const char *variant, int threads, int w, int h, double ms)
{
    sb_row *row = sb_rows_add(rows);
    CHECK(row != NULL);
    if (!row)
        return;
    snprintf(row->stage, sizeof row->stage, "%s", stage);
    snprintf(row->variant, sizeof row->variant, "%s", variant);
    row->threads = threads;
    row->width = w;
    row->height = h;
    row->kernel.n = 1;
    row->kernel.median = ms;
}

static void test_prediction(void)
{
    sb_rows rows = { 0 };
    /* no run of its own: the reference's 1000 ms over 4 threads */
    CHECK_NEAR(run_host_predicted_ms(&rows, "sum", "pthread", 4, 400.0, 1000.0), 250.0, 1e-9);
    /* its own run at 4 threads on a quarter of the pixels, 200 ms: 800 ms here, slower than perfect scaling */
    add_row(&rows, "sum", "pthread", 4, 10, 10, 200.0);
    CHECK_NEAR(run_host_predicted_ms(&rows, "sum", "pthread", 4, 400.0, 1000.0), 800.0, 1e-9);
    /* another thread count, stage, variant or a larger image says nothing about this row */
    add_row(&rows, "sum", "pthread", 2, 10, 10, 900.0);
    add_row(&rows, "sqsum", "pthread", 4, 10, 10, 900.0);
    add_row(&rows, "sum", "openmp", 4, 10, 10, 900.0);
    add_row(&rows, "sum", "pthread", 4, 40, 40, 9000.0);
    CHECK_NEAR(run_host_predicted_ms(&rows, "sum", "pthread", 4, 400.0, 1000.0), 800.0, 1e-9);
    sb_rows_free(&rows);
}

static void test_limit_leaves_out_slow_cpu_rows(void)
{
    const sb_algo *algo = sb_algo_find("integral");
    CHECK(algo != NULL);
    if (!algo)
        return;
    const sb_variant *ref = sb_reference_variant(algo), *threaded = NULL, *device = NULL;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, "integral"))
            continue;
        if (!threaded && (v->flags & SB_THREADED))
            threaded = v;
        if (!device && (v->flags & SB_DEVICE))
            device = v;
    }
    CHECK(ref && threaded);
    if (!ref || !threaded)
        return;
    planned_row plan[4] = { { ref, 1 }, { threaded, 1 }, { threaded, 4 }, { device ? device : ref, 1 } };
    sb_bench_opts o;
    memset(&o, 0, sizeof o);
    o.quiet = 1;
    o.host_limit_s = 0.5;
    static bench_run r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.pipe = run_pipeline_for(&o);
    r.total = 4;
    sb_dataset_image im;
    memset(&im, 0, sizeof im);
    im.width = 20;
    im.height = 20;
    /* the reference took 1 s: one thread would take 1 s, over the limit; four 0.25 s */
    int n = 4;
    CHECK_INT(run_limit_host_rows(&r, algo, 0, &im, 1000.0, NULL, plan, &n), 1);
    CHECK_INT(n, 3);
    CHECK(plan[0].v == ref && plan[1].v == threaded && plan[1].threads == 4);
    CHECK_INT(r.host_left_out, 1);
    CHECK_INT(r.total, 3);
    /* the reference is never left out, however slow */
    n = 3;
    CHECK_INT(run_limit_host_rows(&r, algo, 0, &im, 60000.0, NULL, plan, &n), 1);
    CHECK(n == 2 && plan[0].v == ref);
    /* no limit (the run of record), or check, which times nothing: every row stays */
    planned_row again[2] = { { ref, 1 }, { threaded, 1 } };
    n = 2;
    o.host_limit_s = 0;
    CHECK_INT(run_limit_host_rows(&r, algo, 0, &im, 60000.0, NULL, again, &n), 0);
    CHECK_INT(n, 2);
    o.host_limit_s = 0.5;
    o.check_only = 1;
    r.pipe = run_pipeline_for(&o);
    CHECK_INT(run_limit_host_rows(&r, algo, 0, &im, 60000.0, NULL, again, &n), 0);
    CHECK_INT(n, 2);
}

static void test_stream_frame_prediction(void)
{
    static bench_run r;
    memset(&r, 0, sizeof r);
    r.ref_runs[r.nref_runs++] = (struct ref_run){ 0, 100.0, 10.0 };
    r.ref_runs[r.nref_runs++] = (struct ref_run){ 0, 400.0, 80.0 };
    r.ref_runs[r.nref_runs++] = (struct ref_run){ 1, 400.0, 4000.0 };
    CHECK_NEAR(run_reference_frame_ms(&r, 0, 800.0), 160.0, 1e-9);   /* the largest not above, scaled */
    CHECK_NEAR(run_reference_frame_ms(&r, 0, 200.0), 20.0, 1e-9);
    CHECK_NEAR(run_reference_frame_ms(&r, 0, 50.0), 5.0, 1e-9);      /* none below: the smallest above */
    CHECK_NEAR(run_reference_frame_ms(&r, 2, 50.0), 0.0, 1e-9);      /* no run of that stage: nothing */
}

const sb_test tests_run_plan[] = {
    { "run: --host-limit predicts a CPU row from the reference over its threads, or its own rate on a smaller "
      "image where slower", test_prediction },
    { "run: --host-limit leaves out the CPU rows predicted over it, never the reference or a GPU row; none "
      "without a limit or in check", test_limit_leaves_out_slow_cpu_rows },
    { "run: a stream frame predicted from the reference's run on the largest image not above its size",
      test_stream_frame_prediction },
};
const int tests_run_plan_count = sizeof tests_run_plan / sizeof tests_run_plan[0];
