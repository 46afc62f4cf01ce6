/* ahead.c - the cases of a batch opened ahead of the rows (bench/run/
 * ahead.c, case.c, --ahead): each case opened once, in order, its
 * reference the one the caller would have made; a batch cut short stops
 * the opener; and a bench with the opener measures the same rows, every
 * one exact, as a bench without it. */
#include "test_groups.h"

#include "cli_util.h"
#include "run/state.h"

#include "machine/host_noise.h"
#include "variants/registry.h"

#include "segbench/integral.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { CASES = 5 };

/* CASES integral cases of random images of growing sizes, their images
 * already loaded (the opener loads an image only where it is not). */
static void make_cases(run_case *cases, sb_dataset_image *ims, sb_image *images)
{
    memset(cases, 0, CASES * sizeof *cases);
    for (int k = 0; k < CASES; k++) {
        snprintf(ims[k].name, sizeof ims[k].name, "img%d", k);
        test_random_grey(&images[k], 24 + 8 * k, 16 + k, 40 + (unsigned long long)k);
        cases[k].im = &ims[k];
        cases[k].stage = 0;
        cases[k].loaded = &images[k];
    }
}

static void free_cases(run_case *cases, sb_image *images)
{
    for (int k = 0; k < CASES; k++) {
        if (cases[k].cd.c.algo)
            sb_case_close(&cases[k].cd);
        sb_image_free(&images[k]);
    }
}

static void test_opened_in_order_once(void)
{
    for (int ahead = 0; ahead <= 1; ahead++) {
        static run_case cases[CASES];
        static sb_dataset_image ims[CASES];
        sb_image images[CASES];
        make_cases(cases, ims, images);
        sb_bench_opts o = { 0 };
        o.ahead = ahead ? SB_AHEAD_ON : SB_AHEAD_OFF;
        bench_run r = { 0 };
        r.o = &o;
        r.pipe = run_pipeline_for(&o);
        CHECK((run_cases_openers(&r) > 0) == ahead);
        case_opener op;
        const sb_algo *algo = sb_algo_find("integral");
        run_cases_begin(&op, &r, algo, cases, CASES, ahead ? 2 : 0);
        CHECK(op.nthreads == (ahead ? 2 : 0));
        double opening = 0;
        for (int k = 0; k < CASES; k++) {
            run_case *c = run_case_ready(&r, &op, k);
            CHECK(c == &cases[k]);
            CHECKF(c->opened == SB_OK && c->load == SB_OK, "case %d: %s", k, c->why_not.msg);
            CHECK(c->cd.c.reference != NULL && c->cd.c.input->width == 24 + 8 * k);
            CHECK(strcmp(c->cd.c.image, ims[k].name) == 0);
            /* the reference is the one a case opened here makes */
            sb_case_data mine;
            sb_error err;
            CHECKF(sb_case_open(&mine, NULL, algo, 0, NULL, &images[k], &err) == SB_OK, "%s", err.msg);
            const sb_integral_out *want = mine.c.reference, *got = c->cd.c.reference;
            CHECK(memcmp(want->sum, got->sum, (size_t)want->width * want->height * sizeof *want->sum) == 0);
            sb_case_close(&mine);
            opening += c->open_ms;
        }
        run_cases_end(&r, &op);
        /* every case's opening is counted once: waited for, or beside the rows */
        CHECKF(r.spent.references + r.spent.references_beside >= opening - 1.0 &&
                   r.spent.references + r.spent.references_beside <= opening + 50.0,
               "references %g + beside %g against %g ms opening", r.spent.references, r.spent.references_beside,
               opening);
        free_cases(cases, images);
    }
}

/* A batch cut short (a row failed): the opener stops and is joined, and
 * what it opened can be closed. */
static void test_cut_short(void)
{
    static run_case cases[CASES];
    static sb_dataset_image ims[CASES];
    sb_image images[CASES];
    make_cases(cases, ims, images);
    sb_bench_opts o = { 0 };
    o.ahead = SB_AHEAD_ON;
    bench_run r = { 0 };
    r.o = &o;
    r.pipe = run_pipeline_for(&o);
    case_opener op;
    run_cases_begin(&op, &r, sb_algo_find("integral"), cases, CASES, 2);
    CHECK(run_case_ready(&r, &op, 0)->opened == SB_OK);
    run_cases_end(&r, &op);
    CHECK(op.next >= 1 && op.next <= CASES + 2);
    for (int k = 0; k < CASES; k++)               /* opened whole, or never */
        CHECK(cases[k].ready ? cases[k].opened == SB_OK && cases[k].cd.c.algo : cases[k].cd.c.algo == NULL);
    free_cases(cases, images);
}

/* Cases of a pipeline step (mean-shift's flood: its input the filter's
 * output, both through the memo) opened by three openers at once: each
 * opened, each step run once an image, all closed. */
static void test_pipeline_steps_two_openers(void)
{
    static run_case cases[CASES];
    static sb_dataset_image ims[CASES];
    sb_image images[CASES];
    memset(cases, 0, sizeof cases);
    for (int k = 0; k < CASES; k++) {
        snprintf(ims[k].name, sizeof ims[k].name, "rgb%d", k);
        test_random_rgb(&images[k], 20 + 4 * k, 12, 70 + (unsigned long long)k);
        cases[k] = (run_case){ .im = &ims[k], .loaded = &images[k] };
    }
    sb_bench_opts o = { 0 };
    bench_run r = { 0 };
    r.o = &o;
    r.pipe = run_pipeline_for(&o);
    r.memo = sb_case_memo_new(NULL);
    case_opener op;
    long runs = sb_case_memo_steps_run(r.memo);
    run_cases_begin(&op, &r, sb_algo_find("meanshift-flood"), cases, CASES, 3);
    for (int k = 0; k < CASES; k++) {
        run_case *c = run_case_ready(&r, &op, k);
        CHECKF(c->opened == SB_OK && c->cd.c.reference, "case %d: %s", k, c->why_not.msg);
    }
    run_cases_end(&r, &op);
    /* the filter of each image, then the flood's own reference (merge starts from it) */
    CHECKF(sb_case_memo_steps_run(r.memo) - runs == 2 * CASES, "%ld memo runs",
           sb_case_memo_steps_run(r.memo) - runs);
    free_cases(cases, images);
    sb_case_memo_free(r.memo);
}

/* Two threads opening cases of the step a pipeline starts from (mean-
 * shift's filter at the flood's radius) at the same moment. */
typedef struct memo_opener {
    pthread_barrier_t *start;
    sb_case_memo *memo;           /* the two share it */
    int stage;
    const sb_image *img;
    sb_case_data cd;
    sb_status st;
} memo_opener;

static void *open_after_barrier(void *arg)
{
    memo_opener *m = arg;
    sb_error err;
    pthread_barrier_wait(m->start);
    m->st = sb_case_open(&m->cd, m->memo, sb_algo_find("meanshift-filter"), m->stage, NULL, m->img, &err);
    return NULL;
}

/* Did two openings of images a and b at once run their references
 * overlapped in time?  (The memo's runs: one when a and b are alike.) */
static int open_two_at_once(int stage, const sb_image *a, const sb_image *b, long *runs, const void **outs)
{
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    memo_opener m[2];
    memset(m, 0, sizeof m);
    sb_case_memo *memo = sb_case_memo_new(NULL);
    for (int i = 0; i < 2; i++) {
        m[i].memo = memo;
        m[i].start = &start;
        m[i].stage = stage;
        m[i].img = i ? b : a;
    }
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, open_after_barrier, &m[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    *runs = sb_case_memo_steps_run(memo);
    const sb_run_times *x = &m[0].cd.c.ref_times, *y = &m[1].cd.c.ref_times;
    int overlapped = x->began_ms < y->began_ms + y->run_ms && y->began_ms < x->began_ms + x->run_ms;
    for (int i = 0; i < 2; i++) {
        CHECK(m[i].st == SB_OK);
        outs[i] = m[i].cd.c.reference;
        if (m[i].st == SB_OK)
            sb_case_close(&m[i].cd);
    }
    sb_case_memo_free(memo);
    return overlapped;
}

/* The pipeline memo holds its lock while it finds or reserves an entry,
 * not while the entry's reference runs: two images' filters run at once
 * on two openers (before, the second waited for the first), and two
 * openings of one image share one run, the second waiting for it. */
static void test_memo_runs_side_by_side(void)
{
    const sb_algo *filter = sb_algo_find("meanshift-filter");
    int stage = -1;
    for (int s = 0; s < filter->stage_count && stage < 0; s++)
        stage = sb_case_uses_memo(filter, s) ? s : -1;
    CHECK(stage >= 0);
    long runs;
    const void *outs[2];
    int overlapped = 0;
    /* a loaded box may put one thread off its core for a whole run: up to three tries */
    for (int attempt = 0; attempt < 3 && !overlapped && stage >= 0; attempt++) {
        sb_image a, b;
        test_random_rgb(&a, 120, 90, 900 + 2 * (unsigned long long)attempt);
        test_random_rgb(&b, 120, 90, 901 + 2 * (unsigned long long)attempt);
        overlapped = open_two_at_once(stage, &a, &b, &runs, outs);
        CHECKF(runs == 2, "%ld runs for two images", runs);
        sb_image_free(&a);
        sb_image_free(&b);
    }
    CHECKF(overlapped, "two images' filters never ran at the same time in three tries");
    sb_image c;
    test_random_rgb(&c, 120, 90, 990);
    open_two_at_once(stage, &c, &c, &runs, outs);
    CHECKF(runs == 1 && outs[0] == outs[1], "%ld runs for one image twice", runs);
    sb_image_free(&c);
}

/* A thread that spins until told, exempt from the quiet wait or not. */
static volatile int spin_stop;
static void *spinner(void *arg)
{
    if (arg)
        sb_host_quiet_exempt_self(1);
    while (!spin_stop)
        ;
    if (arg)
        sb_host_quiet_exempt_self(0);
    return NULL;
}

static double quiet_wait_beside(int exempt)
{
    pthread_t t;
    spin_stop = 0;
    CHECK(pthread_create(&t, NULL, spinner, exempt ? (void *)1 : NULL) == 0);
    struct timespec nap = { 0, 5000000 };       /* 5 ms: the spinner has started */
    nanosleep(&nap, NULL);
    double waited = sb_host_wait_quiet(SB_QUIET_MAX_MS);
    spin_stop = 1;
    pthread_join(t, NULL);
    return waited;
}

/* Every device row waits for the process's other threads to stop
 * spinning (host_noise.h); the opener, busy with a reference, is not one
 * of them.  Before, every GPU row beside it waited the whole 50 ms. */
static void test_rows_do_not_wait_for_the_opener(void)
{
    double other = quiet_wait_beside(0), opener = quiet_wait_beside(1);
    CHECKF(other >= SB_QUIET_MAX_MS * 0.9, "waited %g ms for a spinning thread", other);
    CHECKF(opener < SB_QUIET_MAX_MS * 0.5, "waited %g ms for the exempt opener", opener);
}

/* The rows of a bench (algorithm, stage, variant, threads, image), one a
 * line, sorted, with their agreement; "" when the CSV is missing. */
static void row_keys(const char *csv, char *out, size_t size)
{
    char cmd[1500];
    snprintf(cmd, sizeof cmd, "cut -d, -f1-3,5,6,24 %s | sort", test_shq(csv));
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    pclose(p);
}

/* A pipeline step (its input through the memo), two images, host rows:
 * with the opener and without, the same rows, each exact or the reference. */
static void test_bench_same_rows(void)
{
    const char *a = test_grey_png("ahead-a.png", 40, 30, 5), *b = test_grey_png("ahead-b.png", 48, 32, 6);
    static char keys[2][8192];
    for (int ahead = 0; ahead <= 1; ahead++) {
        const char *dir = test_pathf("ahead-%s", ahead ? "on" : "off");
        cli_result *r = cli("bench --image %s --image %s --algo meanshift-flood,integral --variant cpu,openmp "
                            "--threads 1,2 --budget 2 --quiet --stream off --repeat off --ahead %s --results %s",
                            a, b, ahead ? "on" : "off", test_shq(dir));
        CHECKF(r->code == 0, "--ahead %s: exit %d: %s", ahead ? "on" : "off", r->code, r->err);
        char csv[1200];
        for (int f = 0; f < 2; f++) {
            snprintf(csv, sizeof csv, "%s/%s.csv", dir, f ? "integral" : "meanshift-flood");
            row_keys(csv, keys[ahead] + strlen(keys[ahead]), sizeof keys[ahead] - strlen(keys[ahead]));
        }
        snprintf(csv, sizeof csv, "%s/env.json", dir);
        static char env[1 << 16];
        test_slurp(csv, env, sizeof env);
        CHECKF(strstr(env, ahead ? "ahead=on" : "ahead=off"), "%.600s", env);
    }
    /* two headers; on each image cpu and openmp t2 of meanshift-flood's one
     * stage and integral's two, and openmp t1 where the sweep is (one image,
     * the first stage) */
    CHECKF(test_lines(keys[1]) == 2 + 2 * 2 * 3 + 2, "%s", keys[1]);
    /* the verdicts may differ on the serial row alone (its run, or its
     * samples): "reference" reads as "exact" (the whole word: padded, the
     * two lines differed by its spaces, and the test failed one run in a
     * few on the 2-core box) */
    char *k[2] = { keys[0], keys[1] };
    for (int i = 0; i < 2; i++)
        for (char *p; (p = strstr(k[i], ",reference"));) {
            memcpy(p, ",exact", 6);
            memmove(p + 6, p + 10, strlen(p + 10) + 1);
        }
    CHECKF(strcmp(keys[0], keys[1]) == 0, "off:\n%s\non:\n%s", keys[0], keys[1]);
    CHECK(!strstr(keys[1], "FAIL") && !strstr(keys[1], "mismatch"));
}

/* On a GPU (test_gpu.c lists it): a scene whose serial-reference row
 * --host-limit leaves out has its frames' references made beside the GPU
 * rows of the algorithm's last batch (frames_ahead.c), not where the
 * stream rows wait for them, and the GPU stream rows check against them,
 * every one exact. */
void test_gpu_bench_frames_ahead(void)
{
    const char *root = test_path("ahead-scene");
    if (!test_build_set(root, "ahead-scene", "synth 96x64\nscene 96x64 frames=3\n"))   /* make test-gpu builds sbgen */
        return;
    test_sh("cd %s && %s bench --set ahead-scene --algo kmeans --variant 'cpu,cuda-*' --ahead on --host-limit "
            "0.000001 --stream-seconds 0.1 --budget 2 --repeat off --results res >out.txt 2>err.txt", root,
            test_segbench_path());
    char path[4300], text[1 << 15];
    static char err[1 << 16];
    snprintf(path, sizeof path, "%s/err.txt", root);
    test_slurp(path, err, sizeof err);
    CHECKF(strstr(err, "stream kmeans/cpu scene-96x64: left to the run of record"), "%.2000s", err);
    CHECKF(!strstr(err, "the serial reference of each of"), "the frames were made at the streams' turn:\n%.2000s", err);
    snprintf(path, sizeof path, "%s/res/kmeans.stream.csv", root);
    test_slurp(path, text, sizeof text);
    CHECKF(test_lines(text) >= 2 && strstr(text, ",exact") && !strstr(text, "mismatch") && !strstr(text, "FAIL"),
           "%.2000s", text);
}

const sb_test tests_run_ahead[] = {
    { "run: --ahead opens a batch's cases in order, once each, their references those the caller makes, their "
      "time counted once", test_opened_in_order_once },
    { "run: --ahead's three openers open a pipeline step's cases, each step once an image",
      test_pipeline_steps_two_openers },
    { "run: a batch cut short stops the --ahead opener, which opens no more", test_cut_short },
    { "run: the pipeline memo runs two images' references at once, and one image's once for two openers",
      test_memo_runs_side_by_side },
    { "run: a GPU row's wait for quiet CPUs does not wait for the --ahead opener", test_rows_do_not_wait_for_the_opener },
    { "run: bench with --ahead on and off measures the same rows, each exact (a pipeline step, two images)",
      test_bench_same_rows },
};
const int tests_run_ahead_count = sizeof tests_run_ahead / sizeof tests_run_ahead[0];
