/* measure.c - the measurement protocol, results files and datasets,
 * called as functions (no processes). */
#define _DEFAULT_SOURCE        /* usleep */
#include "test_groups.h"

#include "variants/agreement.h"
#include "cases/cases.h"
#include "io/catalogue.h"
#include "cases/dataset.h"
#include "variants/outputs.h"
#include "variants/registry.h"
#include "io/rows.h"

#include "segbench/clock.h"
#include "segbench/image_io.h"
#include "segbench/integral.h"
#include "segbench/kmeans.h"
#include "segbench/grabcut.h"
#include "segbench/meanshift.h"
#include "segbench/slic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_measure_protocol(void)
{
    const sb_algo *algo = sb_algo_find("integral");
    sb_image img;
    test_random_grey(&img, 150, 90, 4);
    sb_case_data cd;
    sb_error err;
    CHECKF(sb_case_open(&cd, NULL, algo, 1, NULL, &img, &err) == SB_OK, "%s", err.msg);
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
    /* per frame: each kernel sample plus the fetch; setup: the one prepare; e2e: their sum */
    CHECKF(m.frame.n == m.kernel.n && m.setup.n == 1 && m.frame_ms && m.setup_ms, "frame n %d, setup n %d",
           m.frame.n, m.setup.n);
    int sums_ok = 1;
    for (int i = 0; i < m.frame.n && m.frame_ms && m.setup_ms; i++)
        sums_ok &= m.frame_ms[i] >= m.kernel_ms[i] && fabs(m.e2e_ms[i] - (m.setup_ms[0] + m.frame_ms[i])) < 1e-9;
    CHECKF(sums_ok, "a CPU row's e2e sample is not its setup plus its frame, or a frame is below its kernel");
    /* the account of the row's time: every step it ran took some, the steps a CPU row has not took none, and
     * the timed step at least the samples it took */
    double sampled = 0;
    for (int i = 0; i < m.kernel.n; i++)
        sampled += m.kernel_ms[i];
    CHECKF(m.step_ms[SB_STEP_CHECK] > 0 && m.step_ms[SB_STEP_WARMUP] > 0 && m.step_ms[SB_STEP_TIMED] >= sampled &&
               m.step_ms[SB_STEP_FRAMES] == 0 && m.step_ms[SB_STEP_COLD] == 0,
           "steps: check %g, warm-up %g, timed %g (samples %g), frames %g, cold %g ms", m.step_ms[SB_STEP_CHECK],
           m.step_ms[SB_STEP_WARMUP], m.step_ms[SB_STEP_TIMED], sampled, m.step_ms[SB_STEP_FRAMES],
           m.step_ms[SB_STEP_COLD]);
    sb_measurement_free(&m);
    sb_case_close(&cd);
    sb_image_free(&img);
}

static void test_results_round_trip(void)
{
    sb_rows rows = { 0 };
    sb_row *r = test_row_add(&rows, "integral", "sum", "cpu", "cpu", 4, "synth-97x61-s3", 97, 61);
    snprintf(r->agreement, sizeof r->agreement, "FAIL");
    snprintf(r->metric, sizeof r->metric, "3 of 9 sums differ, \"quoted\", and commas");
    r->kernel = (sb_summary){ 3, 1.0, 1.5, 2.0, 2.5, 3.0 };
    r->e2e = (sb_summary){ 3, 2.0, 2.5, 3.0, 3.5, 4.0 };
    r->frame = (sb_summary){ .n = 3, .min = 1.2, .p25 = 1.4, .median = 1.5, .p75 = 1.6, .max = 1.8 };
    r->setup = (sb_summary){ .n = 1, .min = 0.5, .p25 = 0.5, .median = 0.5, .p75 = 0.5, .max = 0.5 };
    r->bytes = 29585;
    r->kernel_ms = malloc(3 * sizeof(double));
    r->kernel_ms[0] = 1.0;
    r->kernel_ms[1] = 2.0;
    r->kernel_ms[2] = 3.0;
    r->setup_ms = malloc(sizeof(double));
    r->setup_ms[0] = 0.5;
    r->rounds = 3;
    r->round_ms = malloc(3 * sizeof(double));
    r->round_ms[0] = 1.0;
    r->round_ms[1] = 2.25;
    r->round_ms[2] = 3.0;
    r->nround = 3;
    r->round_spread = 0.125;
    r->steal = 0.02;
    r->cpu_slowdown = 1.25;
    r->mem_slowdown = 1.375;
    snprintf(r->code_id, sizeof r->code_id, "0123456789abcdef");
    sb_error err;
    const char *csv = test_path("r.csv"), *samples = test_path("r.samples.csv");
    CHECK(sb_rows_write_csv(&rows, csv, &err) == SB_OK);
    CHECK(sb_rows_write_samples(&rows, samples, &err) == SB_OK);
    FILE *later = fopen(samples, "a");          /* a sample kind from a later version is left alone */
    if (later) {
        fprintf(later, "integral,sum,cpu,4,synth-97x61-s3,power_w,70 71 72 73 74\n");
        fclose(later);
    }
    sb_rows back;
    CHECKF(sb_rows_read_csv(csv, &back, &err) == SB_OK, "%s", err.msg);
    CHECKF(sb_rows_read_samples(samples, &back, &err) == SB_OK, "%s", err.msg);
    CHECK(back.count == 1 && sb_row_same_key(&back.row[0], r));
    CHECK(strcmp(back.row[0].metric, r->metric) == 0 && strcmp(back.row[0].agreement, "FAIL") == 0);
    CHECK(back.row[0].kernel.n == 3 && back.row[0].kernel_ms && back.row[0].kernel_ms[2] == 3.0);
    CHECK(fabs(back.row[0].kernel.p75 - 2.5) < 1e-9 && back.row[0].threads == 4);
    CHECK(back.row[0].frame.n == 3 && fabs(back.row[0].frame.p25 - 1.4) < 1e-9);
    CHECK(back.row[0].setup.n == 1 && back.row[0].setup_ms && back.row[0].setup_ms[0] == 0.5);
    CHECKF(back.row[0].e2e.n == 3 && !back.row[0].e2e_ms, "an unknown sample kind was read as e2e (n %d)",
           back.row[0].e2e.n);
    CHECKF(back.row[0].rounds == 3 && fabs(back.row[0].round_spread - 0.125) < 1e-9 &&
               fabs(back.row[0].steal - 0.02) < 1e-9 && fabs(back.row[0].cpu_slowdown - 1.25) < 1e-9 &&
               fabs(back.row[0].mem_slowdown - 1.375) < 1e-9,
           "rounds %d spread %g steal %g slowdown %g memory %g", back.row[0].rounds, back.row[0].round_spread,
           back.row[0].steal, back.row[0].cpu_slowdown, back.row[0].mem_slowdown);
    CHECKF(strcmp(back.row[0].code_id, "0123456789abcdef") == 0, "code_id read back as '%s'", back.row[0].code_id);
    CHECKF(back.row[0].nround == 3 && back.row[0].round_ms && back.row[0].round_ms[1] == 2.25,
           "the rounds' medians read back as %d", back.row[0].nround);
    sb_rows_free(&rows);
    sb_rows_free(&back);

    /* a file from before the frame and setup columns (29 fields) still reads, with n = 0 for them */
    FILE *fp = fopen(csv, "w");
    if (fp) {
        fprintf(fp, "algo,stage,variant,backend,threads,image,width,height,n,median_ms,min_ms,p25_ms,p75_ms,"
                    "max_ms,e2e_n,e2e_median_ms,e2e_min_ms,e2e_p25_ms,e2e_p75_ms,e2e_max_ms,bytes,gbps,"
                    "peak_fraction,agreement,agreement_metric,commit,date,run_id,flags\n"
                    "integral,sum,cpu,cpu,1,a,4,4,3,1,1,1,1,1,3,2,2,2,2,2,80,0.1,0.01,exact,bit-exact,abc,"
                    "2026-11-22T00:00:00Z,r1,\n");
        fclose(fp);
    }
    CHECKF(sb_rows_read_csv(csv, &back, &err) == SB_OK, "%s", err.msg);
    CHECK(back.count == 1 && back.row[0].frame.n == 0 && back.row[0].setup.n == 0 && back.row[0].e2e.n == 3);
    CHECK(back.row[0].rounds == 0 && back.row[0].steal < 0 && back.row[0].cpu_slowdown == 0);   /* not known */
    CHECK(back.row[0].code_id[0] == '\0');
    sb_rows_free(&back);
}

/* ---- outputs: made, poisoned and freed from the algorithm's layout ---- */

static int all_a5(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0xA5)
            return 0;
    return 1;
}

static void test_outputs_from_layout(void)
{
    sb_image img;
    test_random_grey(&img, 37, 11, 3);
    sb_error err;
    sb_integral_params sq = { 1 };
    void *out = NULL;
    CHECKF(sb_output_alloc(sb_algo_find("integral"), &out, &img, &sq, &err) == SB_OK, "%s", err.msg);
    if (out) {
        sb_integral_out *o = out;
        CHECK(o->width == 37 && o->height == 11 && o->sum && o->sqsum);
        sb_output_poison(out);
        CHECK(all_a5(o->sum, 37 * 11 * sizeof *o->sum) && all_a5(o->sqsum, 37 * 11 * sizeof *o->sqsum));
        sb_output_free(out);
    }
    sb_integral_params plain = { 0 };
    CHECK(sb_output_alloc(sb_algo_find("integral"), &out, &img, &plain, &err) == SB_OK &&
          ((sb_integral_out *)out)->sqsum == NULL);
    sb_output_free(out);
    sb_image_free(&img);

    /* result fields are poisoned too; the struct's own fields are kept */
    sb_image rgb;
    test_fill(&rgb, 9, 7, 3, 40);
    sb_kmeans_params kp;
    sb_algo_find("kmeans")->params_default(&kp, 0);
    CHECKF(sb_output_alloc(sb_algo_find("kmeans"), &out, &rgb, &kp, &err) == SB_OK, "%s", err.msg);
    if (out) {
        sb_kmeans_out *o = out;
        sb_output_poison(out);
        CHECK(all_a5(o->labels, 9 * 7) && all_a5(o->centres, sizeof o->centres) &&
              all_a5(&o->iterations, sizeof o->iterations) && o->k == kp.k && o->width == 9);
        sb_output_free(out);
    }
    /* a bad parameter is refused by the layout, with nothing left allocated */
    kp.k = 0;
    CHECK(sb_output_alloc(sb_algo_find("kmeans"), &out, &rgb, &kp, &err) == SB_ERR_USAGE && out == NULL);
    sb_output_free(NULL);
    sb_image_free(&rgb);
}

/* ---- upload: the ops' order, as the harness calls them ---- */

typedef struct call_log {
    char calls[32];       /* P U R F, in order */
    int n;
} call_log;

static call_log the_log;

static void log_call(char c)
{
    if (the_log.n < (int)sizeof the_log.calls - 1)
        the_log.calls[the_log.n++] = c;
}
static sb_status log_prepare(void **state, const sb_image *in, const void *params, void *out, const sb_exec *e,
                             sb_error *err)
{
    (void)in, (void)params, (void)out, (void)e, (void)err;
    log_call('P');
    *state = &the_log;
    return SB_OK;
}
static sb_status log_upload(void *state, sb_error *err)
{
    (void)state, (void)err;
    log_call('U');
    return SB_OK;
}
static sb_status log_run(void *state, sb_error *err)
{
    (void)state, (void)err;
    log_call('R');
    return SB_OK;
}
static sb_status log_fetch(void *state, sb_error *err)
{
    (void)state, (void)err;
    log_call('F');
    return SB_OK;
}
static void log_release(void *state)
{
    (void)state;
    log_call('X');
}

/* A small integral case for the logged variants. */
static void logged_case_open(sb_case_data *cd, sb_image *img) { test_integral_case(cd, img); }

static void test_upload_order(void)
{
    static const sb_variant_ops ops = { log_prepare, log_upload, log_run, log_fetch, log_release };
    const sb_variant v = { "integral", "logged", "cpu", "NONE", 0, 1u, &ops, "records its calls", "integral/logged",
                           __FILE__, NULL, "", NULL };
    sb_image img;
    sb_case_data cd;
    sb_error err;
    logged_case_open(&cd, &img);

    memset(&the_log, 0, sizeof the_log);
    sb_run_times t = { -1, -1, -1, -1 };
    CHECK(sb_run_once(&cd.c, &v, 1, NULL, cd.reference, 0, &t, &err) == SB_OK);
    CHECKF(strcmp(the_log.calls, "PURFX") == 0, "one run called %s, not PURFX", the_log.calls);
    CHECK(t.setup_ms >= 0 && t.frame_ms >= t.run_ms && t.run_ms >= 0);

    /* a session uploads once when it opens, then once per frame; samples time run() alone */
    memset(&the_log, 0, sizeof the_log);
    sb_session s;
    CHECK(sb_session_open(&s, &cd.c, &v, 1, NULL, 0, &err) == SB_OK);
    double ms;
    CHECK(sb_session_sample(&s, 0, &ms, &err) == SB_OK);
    CHECK(sb_session_frame(&s, &ms, &err) == SB_OK && ms >= 0);
    CHECK(sb_session_frame(&s, &ms, &err) == SB_OK);
    sb_session_close(&s);
    CHECKF(strcmp(the_log.calls, "PURURFURFX") == 0, "a session called %s, not PURURFURFX", the_log.calls);
    sb_case_close(&cd);
    sb_image_free(&img);
}

/* A run that takes about 12 ms of the host clock. */
static sb_status log_run_slow(void *state, sb_error *err)
{
    (void)state, (void)err;
    log_call('R');
    double t0 = sb_clock_ms();
    while (sb_clock_ms() - t0 < 12.0)
        usleep(1000);
    return SB_OK;
}

static int runs_logged(void)
{
    int n = 0;
    for (int i = 0; i < the_log.n; i++)
        n += the_log.calls[i] == 'R';
    return n;
}

/* The protocol's cheap edges: a host row whose check run took the warm-up
 * time goes straight to timing, and the serial reference is repeated for a
 * median of three only where one run takes at most SB_REFERENCE_MEDIAN_OF
 * budgets (these ran a warm-up run, and repeated 0.3 to 1 s references). */
static void test_protocol_spends_no_spare_runs(void)
{
    static const sb_variant_ops ops = { log_prepare, log_upload, log_run_slow, log_fetch, log_release };
    const sb_variant v = { "integral", "slowlog", "cpu", "NONE", 0, 1u, &ops, "12 ms a run", "integral/slowlog",
                           __FILE__, NULL, "", NULL };
    sb_image img;
    sb_case_data cd;
    sb_error err;
    logged_case_open(&cd, &img);
    sb_timing_opts o;
    sb_timing_defaults(&o);
    o.warmup_ms = 10.0;
    o.budget_ms = 40.0;
    o.max_reps = 4;
    o.census = 1;             /* asked of a host row: not taken */
    sb_measurement m;

    memset(&the_log, 0, sizeof the_log);
    CHECKF(sb_measure(&cd.c, &v, 1, NULL, &o, &m, &err) == SB_OK, "%s", err.msg);
    CHECKF(runs_logged() == 1 + m.kernel.n, "%d runs for %d samples: a warm-up ran after a 12 ms check",
           runs_logged(), m.kernel.n);
    /* (the warm-up step's time is no longer asserted: it now holds the
     * wait for quiet CPUs and their speed probe, which take what the
     * machine's load makes them; the run count above says no run was a
     * warm-up) */
    CHECKF(m.census_n == -1, "census %d", m.census_n);
    sb_measurement_free(&m);

    /* the reference variant: its case's reference run is its first sample;
     * 4 budgets (400 ms at the default budget) is one sample, 3 a median of three */
    const sb_variant *ref = cd.c.reference_variant;
    const double budgets[] = { 4.0, 3.0 };
    const int samples[] = { 1, 3 };
    for (int i = 0; i < 2; i++) {
        cd.c.ref_times.run_ms = budgets[i] * o.budget_ms;
        CHECKF(sb_measure(&cd.c, ref, 1, NULL, &o, &m, &err) == SB_OK, "%s", err.msg);
        CHECKF(m.kernel.n == samples[i] && strcmp(m.agreement.verdict, "reference") == 0,
               "%d samples (%s) of a reference run of %g budgets, not %d", m.kernel.n, m.agreement.verdict,
               budgets[i], samples[i]);
        sb_measurement_free(&m);
    }
    sb_case_close(&cd);
    sb_image_free(&img);
}

/* A prepare that fails half-way leaves its state for release(): once, and
 * nothing else runs (the CUDA rungs rely on this instead of undoing their
 * own steps). */
static sb_status log_prepare_fails(void **state, const sb_image *in, const void *params, void *out, const sb_exec *e,
                                   sb_error *err)
{
    (void)in, (void)params, (void)out, (void)e;
    log_call('P');
    *state = &the_log;
    return sb_fail(err, SB_ERR_DEVICE, "half-way");
}

static void test_failed_prepare_released(void)
{
    static const sb_variant_ops ops = { log_prepare_fails, log_upload, log_run, log_fetch, log_release };
    const sb_variant v = { "integral", "half", "cpu", "NONE", 0, 1u, &ops, "fails in prepare", "integral/half",
                           __FILE__, NULL, "", NULL };
    sb_image img;
    sb_case_data cd;
    sb_error err;
    logged_case_open(&cd, &img);

    memset(&the_log, 0, sizeof the_log);
    CHECK(sb_run_once(&cd.c, &v, 1, NULL, cd.reference, 0, NULL, &err) == SB_ERR_DEVICE);
    CHECKF(strcmp(the_log.calls, "PX") == 0, "a failed run_once called %s, not PX", the_log.calls);

    memset(&the_log, 0, sizeof the_log);
    sb_session s;
    CHECK(sb_session_open(&s, &cd.c, &v, 1, NULL, 0, &err) == SB_ERR_DEVICE);
    CHECKF(strcmp(the_log.calls, "PX") == 0, "a failed session called %s, not PX", the_log.calls);
    sb_case_close(&cd);
    sb_image_free(&img);
}

/* Every device variant moves its frame in upload(); host variants have none. */
static void test_upload_declared(void)
{
    int bad = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (!v->ops)
            continue;                  /* not built here */
        int device = (v->flags & SB_DEVICE) != 0, has = v->ops->upload != NULL;
        if (device != has) {
            printf("    %s/%s: %s\n", v->algo, v->name,
                   device ? "a device variant without upload()" : "a host variant with upload()");
            bad++;
        }
    }
    CHECKF(bad == 0, "%d variant(s) break the upload rule of variant.h", bad);
}

/* The README's rule 3: a line's needs, flags and backend agree. */
static void test_variant_lines_agree(void)
{
    int bad = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        int device = (v->flags & SB_DEVICE) != 0, threaded = (v->flags & SB_THREADED) != 0;
        int gpu_needs = !strcmp(v->needs, "CUDA") || !strcmp(v->needs, "NPP");
        int pool = !strcmp(v->backend, "pthread") || !strcmp(v->backend, "openmp");
        const char *why = NULL;
        if (device != gpu_needs)
            why = "SB_DEVICE and needs CUDA or NPP disagree";
        else if (threaded != pool)
            why = "SB_THREADED and the backend disagree";
        else if (!strcmp(v->backend, "openmp") != !strcmp(v->needs, "OPENMP"))
            why = "an openmp variant needs OPENMP, and only it";
        if (why) {
            printf("    %s/%s: %s\n", v->algo, v->name, why);
            bad++;
        }
    }
    CHECKF(bad == 0, "%d registration(s) break the README's rule 3", bad);
}

/* The agreement check compares each declared part as declared: labels as
 * a partition (renamed regions pass, a moved pixel fails), a count field
 * exactly, records as bytes, and a reported field never. */
static void test_declared_checks(void)
{
    sb_image img;
    test_fill(&img, 5, 4, 4, 0);
    sb_ms_params mp;
    const sb_algo *merge = sb_algo_find("meanshift-merge");
    merge->params_default(&mp, 0);
    int32_t ref_labels[20], got_labels[20];
    for (int i = 0; i < 20; i++) {
        ref_labels[i] = i % 5 < 2 ? 0 : 1;
        got_labels[i] = i % 5 < 2 ? 7 : 3;            /* the same regions, other numbers */
    }
    sb_ms_regions ref = { 5, 4, ref_labels, 2 }, got = { 5, 4, got_labels, 2 };
    sb_agreement ag;
    sb_output_check(merge, &img, &mp, &ref, &got, 0, &ag);
    CHECKF(ag.ok && strstr(ag.metric, "as a partition") && strstr(ag.metric, "region count (2)"), "%s", ag.metric);
    got_labels[5 * 3 + 2] = 7;                        /* (2,3) joins the other region */
    sb_output_check(merge, &img, &mp, &ref, &got, 0, &ag);
    CHECKF(!ag.ok && strstr(ag.metric, "partitions differ") && strstr(ag.metric, "(2,3)"), "%s", ag.metric);
    got_labels[5 * 3 + 2] = 3;
    got.count = 3;
    sb_output_check(merge, &img, &mp, &ref, &got, 0, &ag);
    CHECKF(!ag.ok && strstr(ag.metric, "the region count 3 != 2"), "%s", ag.metric);
    sb_image_free(&img);

    /* k-means: one centre (a record) differs; the others and the labels agree */
    sb_image rgb;
    test_fill(&rgb, 3, 2, 3, 9);
    sb_kmeans_params kp;
    const sb_algo *km = sb_algo_find("kmeans");
    km->params_default(&kp, 0);
    uint8_t labels[6] = { 0 };
    sb_kmeans_out kr, kg;
    memset(&kr, 0, sizeof kr);
    kr.width = 3;
    kr.height = 2;
    kr.k = kp.k;
    kr.labels = labels;
    kr.iterations = 4;
    kg = kr;
    kg.centres[5][1] = 1;
    sb_output_check(km, &rgb, &kp, &kr, &kg, 0, &ag);
    CHECKF(!ag.ok && strstr(ag.metric, "1 of 16 centres differ, first at [5]"), "%s", ag.metric);
    kg.centres[5][1] = 0;
    kg.centres[kp.k][0] = 1;                          /* past k: not part of the output */
    sb_output_check(km, &rgb, &kp, &kr, &kg, 0, &ag);
    CHECKF(ag.ok, "%s", ag.metric);
    sb_image_free(&rgb);

    /* max-flow: rounds differ by design and are shown, not compared */
    sb_image grey;
    test_fill(&grey, 2, 2, 3, 0);
    sb_grabcut_params gp;
    const sb_algo *cut = sb_algo_find("grabcut-maxflow");
    cut->params_default(&gp, 0);
    uint8_t fa[4] = { 1, 0, 0, 1 }, fb[4] = { 1, 0, 0, 1 };
    sb_gc_cut_out ca = { 2, 2, fa, 77, 10, 2 }, cb = { 2, 2, fb, 77, 99, 5 };
    sb_output_check(cut, &grey, &gp, &ca, &cb, 0, &ag);
    CHECKF(ag.ok && strstr(ag.metric, "the flow (77)") && strstr(ag.metric, "rounds 99, global relabels 5"), "%s",
           ag.metric);
    cb.flow = 78;
    sb_output_check(cut, &grey, &gp, &ca, &cb, 0, &ag);
    CHECKF(!ag.ok && strstr(ag.metric, "the flow 78 != 77"), "%s", ag.metric);
    sb_image_free(&grey);
}

/* A narrow variant (SB_NARROW) gets the algorithm's narrow layout -- SLIC's
 * labels in 16 bits, no 32-bit plane -- and the check compares it with the
 * reference's 32-bit labels by value: equal numbers pass and say so, one
 * moved label fails naming it, and a reference label no 16 bits hold
 * (-1) never equals the 65535 its low bits make.  Every SB_NARROW variant's
 * algorithm has a narrow layout. */
static void test_narrow_outputs(void)
{
    sb_image rgb;
    test_patchy_rgb(&rgb, 48, 40, 11);
    const sb_algo *slic = sb_algo_find("slic");
    sb_slic_params p;
    slic->params_default(&p, 0);
    sb_error err;
    void *ref = NULL, *got = NULL;
    CHECKF(sb_output_alloc(slic, &ref, &rgb, &p, &err) == SB_OK, "%s", err.msg);
    CHECKF(sb_output_alloc_for(slic, SB_NARROW, &got, &rgb, &p, &err) == SB_OK, "%s", err.msg);
    if (!ref || !got) {
        sb_output_free(ref);
        sb_output_free(got);
        sb_image_free(&rgb);
        return;
    }
    CHECKF(sb_slic_serial(&rgb, &p, ref, &err) == SB_OK, "%s", err.msg);
    sb_slic_out *r = ref, *g = got;
    CHECK(g->labels == NULL && g->labels16 != NULL && r->labels16 == NULL);
    CHECK(sb_output_layout(got)->plane[0].size == 2 && sb_output_layout(ref)->plane[0].size == 4);
    size_t n = 48 * 40;
    for (size_t i = 0; i < n; i++)
        g->labels16[i] = (uint16_t)r->labels[i];
    memcpy(g->centres, r->centres, (size_t)r->centre_count * sizeof *r->centres);
    g->superpixels = r->superpixels;
    g->iterations = r->iterations;

    sb_agreement ag;
    sb_output_check(slic, &rgb, &p, ref, got, SB_NARROW, &ag);
    CHECKF(ag.ok && strstr(ag.metric, "1920 labels (in 16 bits)"), "%s", ag.metric);
    g->labels16[48 * 5 + 7] ^= 1;
    sb_output_check(slic, &rgb, &p, ref, got, SB_NARROW, &ag);
    CHECKF(!ag.ok && strstr(ag.metric, "1 of 1920 labels differ, first at (7,5)"), "%s", ag.metric);
    g->labels16[48 * 5 + 7] ^= 1;
    int32_t was = r->labels[3];
    r->labels[3] = -1;
    g->labels16[3] = 65535;
    sb_output_check(slic, &rgb, &p, ref, got, SB_NARROW, &ag);
    CHECKF(!ag.ok && strstr(ag.metric, "first at (3,0): 65535 != -1"), "%s", ag.metric);
    r->labels[3] = was;
    g->labels16[3] = (uint16_t)was;
    sb_output_check(slic, &rgb, &p, ref, ref, 0, &ag);     /* a 32-bit output says nothing of bits */
    CHECKF(ag.ok && !strstr(ag.metric, "bits"), "%s", ag.metric);
    sb_output_free(ref);
    sb_output_free(got);
    sb_image_free(&rgb);

    int narrow = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (!(v->flags & SB_NARROW))
            continue;
        narrow++;
        const sb_algo *a = sb_algo_find(v->algo);
        CHECKF(a && a->narrow_layout, "%s is SB_NARROW but its algorithm has no narrow layout", v->who);
    }
    CHECK(narrow >= 1);
}

/* An algorithm whose variants take grey made from colour (luma_input:
 * the integral image) keeps the colour image in its case: from a colour
 * image the input is its luma, pixel by pixel (sb_luma_u8); from a grey
 * one the colour repeats it.  An SB_COLOUR_IN variant is prepared with
 * the colour, any other with the grey; every SB_COLOUR_IN variant's
 * algorithm takes luma input. */
static void test_colour_cases(void)
{
    const sb_algo *integral = sb_algo_find("integral");
    CHECK(integral->luma_input && integral->load_mode == SB_LOAD_RGB);
    sb_image rgb, grey;
    test_patchy_rgb(&rgb, 23, 9, 77);
    test_random_grey(&grey, 23, 9, 78);
    sb_case_data cd;
    sb_error err = { SB_OK, "" };
    sb_status st = sb_case_open(&cd, NULL, integral, 0, NULL, &rgb, &err);
    CHECKF(st == SB_OK, "%s", err.msg);
    if (!st) {
        int bad = 0;
        for (int y = 0; y < 9; y++)
            for (int x = 0; x < 23; x++) {
                const uint8_t *c = sb_image_row(&rgb, y) + 3 * x;
                bad += sb_image_row(cd.c.input, y)[x] != sb_luma_u8(c[0], c[1], c[2]);
                bad += memcmp(sb_image_row(cd.c.colour, y) + 3 * x, c, 3) != 0;
            }
        CHECKF(bad == 0 && cd.c.input->channels == 1 && cd.c.colour->channels == 3, "%d pixels differ", bad);
        const sb_variant cpu = *sb_variant_find("integral", "cpu");
        sb_variant colour_in = cpu;
        colour_in.flags |= SB_COLOUR_IN;
        CHECK(sb_case_input(&cd.c, &cpu) == cd.c.input && sb_case_input(&cd.c, &colour_in) == cd.c.colour);
        sb_case_close(&cd);
    }
    st = sb_case_open(&cd, NULL, integral, 0, NULL, &grey, &err);
    CHECKF(st == SB_OK, "%s", err.msg);
    if (!st) {
        int bad = 0;
        for (int y = 0; y < 9; y++)
            for (int x = 0; x < 23; x++) {
                uint8_t v = sb_image_row(&grey, y)[x];
                const uint8_t *c = sb_image_row(cd.c.colour, y) + 3 * x;
                bad += sb_image_row(cd.c.input, y)[x] != v || c[0] != v || c[1] != v || c[2] != v;
            }
        CHECKF(bad == 0, "%d pixels of a grey image differ", bad);
        sb_case_close(&cd);
    }
    st = sb_case_open(&cd, NULL, sb_algo_find("kmeans"), 0, NULL, &rgb, &err);
    CHECKF(st == SB_OK && cd.c.colour == NULL, "k-means keeps no second image: %s", err.msg);
    if (!st)
        sb_case_close(&cd);
    sb_image_free(&rgb);
    sb_image_free(&grey);

    int colour = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (!(v->flags & SB_COLOUR_IN))
            continue;
        colour++;
        const sb_algo *a = sb_algo_find(v->algo);
        CHECKF(a && a->luma_input, "%s is SB_COLOUR_IN but its algorithm does not take luma", v->who);
    }
    CHECK(colour >= 1);
}

/* A pipeline step's input is made by the harness from the reference of
 * the steps before (algo->after, algo->feed): the merge step's input is
 * the filter's output, its flood labels the flood's; the filter, which
 * flood and merge share, runs once for both, and so does the flood, whose
 * own case's reference the merge starts from.  A filter case opened first
 * (bench measures the filter before the flood) spares the flood's case
 * its filter run. */
static void test_pipeline_steps(void)
{
    sb_image rgb;
    test_patchy_rgb(&rgb, 61, 37, 5);
    sb_error err;
    sb_case_data flood, merge;
    sb_case_memo *memo = sb_case_memo_new(NULL);      /* shared by the cases below, as bench's run shares one */
    long before = sb_case_memo_steps_run(memo);
    CHECKF(sb_case_open(&flood, memo, sb_algo_find("meanshift-flood"), 0, NULL, &rgb, &err) == SB_OK, "%s", err.msg);
    CHECK(sb_case_memo_steps_run(memo) == before + 2);             /* the filter, and the flood's own reference */
    CHECKF(sb_case_open(&merge, memo, sb_algo_find("meanshift-merge"), 0, NULL, &rgb, &err) == SB_OK, "%s", err.msg);
    CHECK(sb_case_memo_steps_run(memo) == before + 2);             /* both kept */

    sb_ms_params p;
    sb_algo_find("meanshift-filter")->params_default(&p, 0);
    uint32_t *luv = malloc((size_t)61 * 37 * sizeof *luv);
    sb_ms_luv f = { 61, 37, luv };
    CHECK(luv && sb_ms_serial(SB_MS_FILTER, &rgb, &p, &f, &err) == SB_OK);
    CHECK(flood.input.channels == 4 && !memcmp(flood.input.data, luv, (size_t)61 * 37 * 4));
    CHECK(merge.input.channels == 4 && !memcmp(merge.input.data, luv, (size_t)61 * 37 * 4));
    const sb_ms_params *mp = merge.params;
    const sb_ms_regions *fr = flood.reference;
    CHECK(mp->flood && !memcmp(mp->flood, fr->labels, (size_t)61 * 37 * sizeof(int32_t)));
    free(luv);
    sb_case_close(&merge);
    sb_case_close(&flood);

    /* the filter first, as bench orders them: the flood then runs no filter of its own */
    sb_image other;
    test_patchy_rgb(&other, 45, 29, 6);
    sb_case_data filter;
    before = sb_case_memo_steps_run(memo);
    CHECKF(sb_case_open(&filter, memo, sb_algo_find("meanshift-filter"), 0, NULL, &other, &err) == SB_OK, "%s", err.msg);
    CHECK(sb_case_memo_steps_run(memo) == before + 1 && filter.c.ref_times.run_ms > 0);   /* timed: the serial row's sample */
    sb_case_close(&filter);
    CHECKF(sb_case_open(&filter, memo, sb_algo_find("meanshift-filter"), 1, NULL, &other, &err) == SB_OK, "%s", err.msg);
    CHECK(sb_case_memo_steps_run(memo) == before + 1);             /* r8: no pipeline starts from it, not kept */
    sb_case_close(&filter);
    CHECKF(sb_case_open(&flood, memo, sb_algo_find("meanshift-flood"), 0, NULL, &other, &err) == SB_OK, "%s", err.msg);
    CHECKF(sb_case_memo_steps_run(memo) == before + 2, "%ld runs after the filter's case, want 1 (the flood)",
           sb_case_memo_steps_run(memo) - before - 1);
    sb_case_close(&flood);
    sb_image_free(&other);

    /* GrabCut: the graph step's upstream is the GMM step's output on the same image */
    sb_grabcut_params gp;
    const sb_algo *graph = sb_algo_find("grabcut-graph");
    graph->params_default(&gp, 0);
    gp.rect[0] = 10, gp.rect[1] = 5, gp.rect[2] = 30, gp.rect[3] = 20;
    sb_case_data g;
    CHECKF(sb_case_open(&g, NULL, graph, 0, &gp, &rgb, &err) == SB_OK, "%s", err.msg);
    const sb_gc_gmm_out *mix = ((const sb_grabcut_params *)g.params)->upstream;
    CHECK(g.steps == 2 && mix && mix->width == 61 && g.input.channels == 3);
    sb_case_close(&g);
    /* a case opened with no memo runs its steps for itself alone, and frees them with it */
    long shared = sb_case_memo_steps_run(memo);
    CHECKF(sb_case_open(&flood, NULL, sb_algo_find("meanshift-flood"), 0, NULL, &rgb, &err) == SB_OK, "%s", err.msg);
    CHECK(flood.own_memo && flood.memo != memo && sb_case_memo_steps_run(flood.memo) == 2 &&
          sb_case_memo_steps_run(memo) == shared);
    sb_case_close(&flood);
    sb_case_memo_free(memo);
    sb_image_free(&rgb);
}

/* variants.tsv records each variant's source file (the report's links);
 * a file from before that column takes it from the registry. */
static void test_catalogue_source_file(void)
{
    const char *dir = test_path("catalogue");
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    CHECK(system(cmd) == 0);
    sb_error err;
    static sb_catalogue c;            /* large: not on a test's stack */
    CHECK(sb_catalogue_write(dir, "integral", &err) == SB_OK);
    CHECK(sb_catalogue_load(&c, dir) == 1);
    const sb_variant *v = sb_catalogue_find(&c, "integral", "cuda-pdl");
    CHECKF(v && v->file && !strcmp(v->file, "impl_cuda/integral/6_pdl.cu"), "%s", v && v->file ? v->file : "none");
    char path[700];
    snprintf(path, sizeof path, "%s/variants.tsv", dir);
    FILE *fp = fopen(path, "w");
    fputs("algo\tname\tbackend\tflags\tstages\tsummary\nintegral\tcuda-shared\tcuda-shared\t2\t65535\told words\n"
          "integral\tcuda-gone\tcuda-shared\t2\t65535\tremoved since\n", fp);
    fclose(fp);
    CHECK(sb_catalogue_load(&c, dir) == 1 && sb_catalogue_count(&c) == 2);
    /* an old run's name: the variant's name now, its file as this tree has it */
    v = sb_catalogue_find(&c, "integral", "cuda-shared");
    CHECKF(v && !strcmp(v->name, "cuda-pdl") && !strcmp(v->summary, "old words") && v->file &&
               !strcmp(v->file, "impl_cuda/integral/6_pdl.cu") && v->parent && !strcmp(v->parent, "cuda-inflight"),
           "an old file's row: %s", v && v->file ? v->file : "no file");
    v = sb_catalogue_find(&c, "integral", "cuda-gone");
    CHECK(v && !v->file);
    /* writing over an older file lists the variants new since (it once
     * kept the old file's list, and left the integral image's new rungs out) */
    CHECK(sb_catalogue_write(dir, "integral", &err) == SB_OK);
    CHECK(sb_catalogue_load(&c, dir) == 1);
    v = sb_catalogue_find(&c, "integral", "cuda-fused");
    CHECK(v && v->file && !strcmp(v->file, "impl_cuda/integral/12_fused.cu"));
    int listed = 0;
    for (int i = 0; i < sb_catalogue_count(&c); i++)
        listed += !strcmp(sb_catalogue_at(&c, i)->name, "cuda-fused");
    CHECK(listed == 1);
    /* no file: the registry stands in, as it does for NULL */
    CHECK(sb_catalogue_load(&c, "/nonexistent") == 0 && sb_catalogue_count(&c) == sb_catalogue_count(NULL));
    sb_catalogue_free(&c);
}

/* A rung file's place in its ladder: the number its name opens with
 * (1_naive.cu), or that follows the name of its family of ladders
 * (mean-shift's filter_2_shared.cu); 0 when it has none. */
static int rung_number(const char *base)
{
    const char *p = base;
    while (*p >= 'a' && *p <= 'z')
        p++;
    if (p != base && *p == '_')
        p++;
    return *p >= '1' && *p <= '9' && strchr(p, '_') ? atoi(p) : 0;
}

/* The registry is the variants' own SB_VARIANT lines: each row once, for a
 * known algorithm, from a file that exists; every compiled registration
 * found its row; a CUDA rung's file name opens with its place in the
 * ladder (1_naive.cu, or filter_1_global.cu in a family), and the numbers
 * rise down each algorithm's list. */
static void test_registrations(void)
{
    CHECKF(sb_registry_strays() == 0, "%d registration(s) matched no row or a taken one", sb_registry_strays());
    int bad = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        const char *why = NULL;
        const char *base = v->file ? strrchr(v->file, '/') : NULL;
        base = base ? base + 1 : v->file;
        int rung = !strncmp(v->backend, "cuda-", 5) && !(v->flags & SB_FLOOR);
        if (!sb_algo_find(v->algo))
            why = "no such algorithm";
        else if (sb_variant_find(v->algo, v->name) != v)
            why = "registered twice";
        else if (!v->file || access(v->file, R_OK) != 0)
            why = "its file is not there";
        else if (rung && !rung_number(base))
            why = "a CUDA rung whose file name does not open with its number";
        if (!why && rung) {
            /* the previous rung of the same algorithm has a smaller number */
            for (int j = i - 1; j >= 0; j--) {
                const sb_variant *u = sb_variant_at(j);
                if (strcmp(u->algo, v->algo) != 0 || strncmp(u->backend, "cuda-", 5) || (u->flags & SB_FLOOR))
                    continue;
                const char *ub = strrchr(u->file, '/') + 1;
                if (rung_number(ub) > rung_number(base))
                    why = "listed after a rung with a larger number";
                break;
            }
        }
        if (why) {
            printf("    %s/%s (%s): %s\n", v->algo, v->name, v->file ? v->file : "?", why);
            bad++;
        }
    }
    CHECKF(bad == 0, "%d registration(s) are not sound", bad);
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

/* The sizes and scenes of a set file: its synth and scene lines, in order. */
static void set_sizes(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *fp = fopen(path, "r");
    CHECKF(fp != NULL, "%s: cannot open", path);
    char line[256];
    size_t used = 0;
    while (fp && fgets(line, sizeof line, fp))
        if ((!strncmp(line, "synth ", 6) || !strncmp(line, "scene ", 6)) && used + strlen(line) < size)
            used += (size_t)snprintf(out + used, size - used, "%s", line);
    if (fp)
        fclose(fp);
}

/* make bench's default set and the run of record's differ in photos alone:
 * every table has the same columns (sizes) and the same stream rows. */
static void test_default_and_record_sets(void)
{
    char def[2048], rec[2048];
    set_sizes("datasets/sets/default.set", def, sizeof def);
    set_sizes("datasets/sets/record.set", rec, sizeof rec);
    CHECKF(def[0] && strcmp(def, rec) == 0, "default's sizes and scenes:\n%s\nrecord's:\n%s", def, rec);
}

/* The defaults leave every field they do not name off: before, a caller's
 * stack struct kept whatever gpu_warm held, and a new field (the host
 * probes) read garbage -- the suite crashed. */
static void test_timing_defaults_clear(void)
{
    sb_timing_opts o;
    memset(&o, 0xa5, sizeof o);
    sb_timing_defaults(&o);
    CHECKF(o.gpu_warm == 0 && o.probes == NULL && o.census == 0 && o.gpu_uuid[0] == '\0',
           "gpu_warm %d, probes %p, census %d", o.gpu_warm, (void *)o.probes, o.census);
}

const sb_test tests_harness[] = {
    { "sets: make bench's default set and the run of record's have the same sizes and scenes",
      test_default_and_record_sets },
    { "harness: check, warm-up, repetition, per frame, setup and end-to-end on a CPU variant",
      test_measure_protocol },
    { "harness: the timing defaults leave every field they do not set off", test_timing_defaults_clear },
    { "results: CSV and raw samples round-trip (quotes, commas, frame and setup, rounds and their medians, steal, CPU "
      "speed; older files)",
      test_results_round_trip },
    { "harness: prepare, upload, run, fetch, release in order; a frame uploads again", test_upload_order },
    { "harness: no warm-up after a check run as long as one; a reference repeated only up to 3 budgets",
      test_protocol_spends_no_spare_runs },
    { "harness: a prepare that fails half-way has its state released, once, and nothing else runs",
      test_failed_prepare_released },
    { "outputs: planes and result fields made, poisoned and freed from the algorithm's layout",
      test_outputs_from_layout },
    { "variants: every device variant has upload(), no host variant has one", test_upload_declared },
    { "variants: each registration's needs, flags and backend agree", test_variant_lines_agree },
    { "variants: one row each, from its own numbered file, every compiled one registered", test_registrations },
    { "agreement: each declared part compared as declared (partition, count, records; reported parts not)",
      test_declared_checks },
    { "agreement: a narrow variant's 16-bit labels against the reference's 32-bit ones, by value",
      test_narrow_outputs },
    { "cases: the integral image's grey is the luma of its colour image, kept for SB_COLOUR_IN variants",
      test_colour_cases },
    { "cases: a pipeline step's input from the steps before, each run once", test_pipeline_steps },
    { "variants: variants.tsv keeps each variant's file (an older file: the registry's); written, it is read back",
      test_catalogue_source_file },
    { "datasets: the generator is deterministic and its truth consistent", test_generator_deterministic },
};
const int tests_harness_count = sizeof tests_harness / sizeof tests_harness[0];
