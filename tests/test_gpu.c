/* test_gpu.c - `make test-gpu`: every CUDA variant of every algorithm,
 * bit-exact against the serial reference on awkward sizes, every stage,
 * repeated runs.  --quick runs the small cases only (for
 * compute-sanitizer); --exclude leaves variants out (racecheck skips
 * NPP's own kernels; "graph-loops" names every SB_GRAPH_LOOP variant). */
#include "test.h"
#include "test_groups.h"

#include "variants/agreement.h"
#include "base/args.h"
#include "cases/cases.h"
#include "cases/dataset.h"
#include "cases/frames.h"
#include "variants/registry.h"
#include "measure/stream.h"

#include "segbench/device.h"
#include "segbench/grabcut.h"
#include "segbench/kmeans.h"
#include "segbench/maxflow.h"
#include "segbench/meanshift.h"
#include "segbench/rng.h"
#include "segbench/slic.h"

#include <stdlib.h>
#include <string.h>

static int gpu_quick;
static const char *gpu_exclude = "";   /* comma list of variants to leave out */

/* Is v left out by --exclude: by its name, or as one that launches from
 * conditional graph nodes ("graph-loops"), which compute-sanitizer's
 * racecheck and synccheck cannot follow (run_gpu_tests.sh)? */
static int gpu_excluded(const sb_variant *v)
{
    return sb_in_list(gpu_exclude, v->name) || ((v->flags & SB_GRAPH_LOOP) && sb_in_list(gpu_exclude, "graph-loops"));
}
static const char *gpu_only;           /* run the tests whose names hold one of these ("a|b") */

static const int gpu_sizes[][2] = { { 1, 1 },     { 1, 200 },   { 200, 1 },   { 33, 17 },   { 127, 131 },
                                    { 128, 32 },  { 129, 33 },  { 300, 97 },  { 517, 259 }, { 1920, 1080 },
                                    { 4001, 63 } };
enum { GPU_SIZES = sizeof gpu_sizes / sizeof gpu_sizes[0], QUICK_SIZES = 7 };

/* An SB_NARROW variant may refuse a case (SB_ERR_LIMIT) only where its
 * narrow type cannot hold the reference's values: SLIC's 16-bit labels,
 * more than 65,536 centres or superpixels. */
static int narrow_refusals;
static int narrow_cannot_hold(const sb_algo *algo, const void *reference)
{
    const sb_slic_out *o = reference;
    return !strcmp(algo->name, "slic") && (o->centre_count > 65536 || o->superpixels > 65536);
}

/* Every CUDA variant of `algo_name` through the harness's own session:
 * poisoned outputs, three runs (repeated runs must not drift), fetch, and
 * the algorithm's check against the serial reference.  `params` NULL:
 * every stage with its defaults; otherwise those parameters, once. */
static void check_variants(const char *algo_name, const sb_image *img, const void *params, const char *what)
{
    const sb_algo *algo = sb_algo_find(algo_name);
    void *stream = NULL;
    sb_error err = { SB_OK, "" };
    CHECK(sb_device_stream_create(&stream, &err) == SB_OK);
    for (int stage = 0; stage < (params ? 1 : algo->stage_count); stage++) {
        sb_case_data cd;
        if (sb_case_open(&cd, NULL, algo, stage, params, img, &err) != SB_OK) {
            CHECKF(0, "%s %s: %s", algo_name, what, err.msg);
            continue;
        }
        for (int i = 0; i < sb_variant_count(); i++) {
            const sb_variant *v = sb_variant_at(i);
            if (strcmp(v->algo, algo_name) || !(v->flags & SB_DEVICE) || !v->ops || gpu_excluded(v))
                continue;
            sb_session s;
            sb_agreement ag = { 0, "FAIL", "did not run" };
            double ms;
            sb_status st = sb_session_open(&s, &cd.c, v, 1, stream, 1, &err);
            if (!st) {
                for (int rep = 0; rep < 3 && !st; rep++)
                    st = sb_session_sample(&s, 0, &ms, &err);
                if (!st)
                    st = sb_session_check(&s, &ag, &err);
                sb_session_close(&s);
            }
            if (st == SB_ERR_LIMIT && (v->flags & SB_NARROW)) {
                CHECKF(narrow_cannot_hold(algo, cd.reference), "%s/%s %s refused a case whose values fit: %s",
                       algo_name, v->name, what, err.msg);
                narrow_refusals++;
                continue;
            }
            CHECKF(st == SB_OK, "%s/%s %s failed to run: %s", algo_name, v->name, what, err.msg);
            int int32_expected = (v->flags & SB_INT32) && !ag.ok && strstr(ag.metric, "INT32_MAX");
            CHECKF(ag.ok || int32_expected, "%s/%s %s %s: %s", algo_name, v->name,
                   params ? "" : algo->stages[stage], what, ag.metric);
        }
        sb_case_close(&cd);
    }
    sb_device_stream_destroy(stream);
}

static void check_all_variants(const sb_image *img, const char *what)
{
    check_variants("integral", img, NULL, what);
}

/* Random colour: random bytes, 3 a pixel (the integral image's colour
 * frames: its grey is their luma, and a colour-taking rung makes it). */
static void random_colour(sb_image *img, int width, int height, unsigned long long seed)
{
    test_random_grey(img, 3 * width, height, seed);
    img->width = width;
    img->channels = 3;
}

static void test_gpu_awkward_sizes(void)
{
    int count = gpu_quick ? QUICK_SIZES : GPU_SIZES;
    for (int k = 0; k < count; k++) {
        sb_image img;
        char what[64];
        test_random_grey(&img, gpu_sizes[k][0], gpu_sizes[k][1], 500 + k);
        snprintf(what, sizeof what, "%dx%d random", img.width, img.height);
        check_all_variants(&img, what);
        sb_image_free(&img);
        random_colour(&img, gpu_sizes[k][0], gpu_sizes[k][1], 900 + k);
        snprintf(what, sizeof what, "%dx%d random colour", img.width, img.height);
        check_all_variants(&img, what);
        sb_image_free(&img);
    }
}

static void test_gpu_extremes(void)
{
    sb_image img;
    int w = gpu_quick ? 150 : 1000, h = gpu_quick ? 40 : 999;
    test_fill(&img, w, h, 1, 255);
    check_all_variants(&img, "all 255");
    sb_image_free(&img);
    test_fill(&img, w, h, 1, 0);
    check_all_variants(&img, "all 0");
    sb_image_free(&img);
}

/* 4200 x 4100 white: the u32 sums wrap; every device variant must wrap the
 * same way (NPP, whose sums are int32, must be reported as overflowing). */
static void test_gpu_wraparound(void)
{
    if (gpu_quick)
        return;
    sb_image img;
    test_fill(&img, 4200, 4100, 1, 255);
    check_all_variants(&img, "4200x4100 white (u32 wrap)");
    sb_image_free(&img);
}

/* k-means: random colours (the worst case for warp aggregation: most
 * warps hold many labels) and colour patches, every k of the CPU tests,
 * both initialisations, converge and fixed modes, awkward sizes (the
 * padding of the last quad of 4 pixels). */
static void test_gpu_kmeans_ks(int first, int last)
{
    static const int ks[] = { 1, 2, 7, 16, 64, 256 };
    int count = gpu_quick ? QUICK_SIZES : GPU_SIZES;
    for (int s = 0; s < count; s++) {
        sb_image img;
        char what[96];
        int w = gpu_sizes[s][0], h = gpu_sizes[s][1];
        if (s % 2)
            test_random_rgb(&img, w, h, 700 + s);
        else
            test_patchy_rgb(&img, w, h, 700 + s);
        snprintf(what, sizeof what, "%dx%d %s", w, h, s % 2 ? "noise" : "patches");
        if (first == 0)
            check_variants("kmeans", &img, NULL, what);
        for (int i = first; i <= last; i++) {
            if (gpu_quick && i % 2)
                continue;
            sb_kmeans_params p = { ks[i], (s + i) % 2, 5, 40, (s + i) % 3 == 0 };
            snprintf(what, sizeof what, "%dx%d %s k=%d %s %s", w, h, s % 2 ? "noise" : "patches", p.k,
                     p.init ? "kmeans++" : "spread", p.fixed ? "fixed 40" : "converge");
            check_variants("kmeans", &img, &p, what);
        }
        sb_image_free(&img);
    }
}

/* k = 1, 2, 7; uniform; and k = 16 on two colours (14 clusters stay
 * empty).  Apart from the many-centre half so that each half's racecheck
 * stays under 5 minutes (racecheck-4 and racecheck-1). */
static void test_gpu_kmeans_few(void)
{
    test_gpu_kmeans_ks(0, 2);
    sb_image img;
    test_fill(&img, 131, 7, 3, 201);
    check_variants("kmeans", &img, NULL, "uniform 131x7");
    for (size_t i = 0; i < img.stride * 7; i += 6)
        img.data[i] = 3;
    check_variants("kmeans", &img, NULL, "two colours 131x7");
    sb_image_free(&img);
}

/* k = 16, 64, 256. */
static void test_gpu_kmeans_many(void) { test_gpu_kmeans_ks(3, 5); }

/* SLIC: every stage on every awkward size (smaller than a superpixel,
 * 1xN, S not dividing the sides), then S = 7 (3S not a multiple of 16),
 * 5, 3 and 1, segment counts, the three colour spaces and the three
 * connectivity modes. */
static void test_gpu_slic(void)
{
    /* under compute-sanitizer (--quick): two small sizes, two parameter sets */
    int count = gpu_quick ? 5 : GPU_SIZES;
    for (int s = gpu_quick ? 3 : 0; s < count; s++) {
        sb_image img;
        char what[128];
        int w = gpu_sizes[s][0], h = gpu_sizes[s][1];
        if (s % 2)
            test_random_rgb(&img, w, h, 800 + s);
        else
            test_patchy_rgb(&img, w, h, 800 + s);
        snprintf(what, sizeof what, "%dx%d %s", w, h, s % 2 ? "noise" : "patches");
        if ((long)w * h >= 1000)
            check_variants("slic", &img, NULL, what);      /* every stage (n1000 needs 1000 pixels) */
        static const int sizes[] = { 7, 5, 3, 1 };
        for (int k = 0; k < 4; k++) {
            if (gpu_quick && k % 2)
                continue;
            if (sizes[k] == 1 && (long)w * h > 70000)
                continue;                 /* one centre a pixel: slow on the CPU reference */
            sb_slic_params p = { 0, sizes[k], 1 + k % 3 * 4, 0.6f, k % 3, (s + k) % 3 };
            if (k == 0 && (long)w * h < 1000)
                p.size = 16;              /* the s16 stage's S, on an image smaller than a superpixel */
            if (k == 2 && (long)w * h >= 50)
                p.segments = 50;
            snprintf(what, sizeof what, "%dx%d %s S=%d segments=%d space %d connectivity %d, %d iterations", w, h,
                     s % 2 ? "noise" : "patches", p.size, p.segments, p.space, p.connectivity, p.iterations);
            check_variants("slic", &img, &p, what);
        }
        sb_image_free(&img);
    }
    sb_image img;
    test_fill(&img, 131, 70, 3, 201);
    check_variants("slic", &img, NULL, "uniform 131x70");
    sb_image_free(&img);
    /* 1920x1080 at S = 5 and 3 has more centres than 16 bits number */
    CHECKF(gpu_quick || narrow_refusals > 0 || sb_in_list(gpu_exclude, "cuda-labels16"),
           "no case refused by cuda-labels16 (%d)", narrow_refusals);
}

/* Every CUDA variant of every mean-shift stage, each stage fed the
 * reference of the steps before: awkward sizes; the defaults (the
 * filter's four radii); radius 64 (shared memory above 48 KiB, windows
 * beyond small images); radius 1 with range 0 and no pruning; a
 * uniform image and a checkerboard. */
static void check_meanshift(const sb_image *img, const sb_ms_params *p, const char *what)
{
    static const char *const algos[] = { "meanshift-filter", "meanshift-flood", "meanshift-merge", "meanshift" };
    for (int a = 0; a < 4; a++)
        check_variants(algos[a], img, p, what);
}

static void test_gpu_meanshift(void)
{
    static const int quick[] = { 3, 6 };
    int count = gpu_quick ? 2 : GPU_SIZES - 2;        /* 1920x1080 and 4001x63 below, at radius 4 */
    for (int k = 0; k < count; k++) {
        int s = gpu_quick ? quick[k] : k, w = gpu_sizes[s][0], h = gpu_sizes[s][1];
        sb_image img;
        char what[128];
        test_patchy_rgb(&img, w, h, 900 + s);
        snprintf(what, sizeof what, "%dx%d patches, defaults", w, h);
        check_meanshift(&img, NULL, what);
        sb_ms_params wide = { 64, 20, 3, 50, NULL }, tight = { 1, 0, 5, 0, NULL };
        if (!gpu_quick) {
            snprintf(what, sizeof what, "%dx%d patches, radius 64 range 20", w, h);
            check_meanshift(&img, &wide, what);
        }
        snprintf(what, sizeof what, "%dx%d patches, radius 1 range 0 no pruning", w, h);
        check_meanshift(&img, &tight, what);
        sb_image_free(&img);
    }
    if (!gpu_quick)
        for (int s = GPU_SIZES - 2; s < GPU_SIZES; s++) {
            sb_image img;
            char what[128];
            sb_ms_params r4 = { 4, 10, 5, 20, NULL };
            test_patchy_rgb(&img, gpu_sizes[s][0], gpu_sizes[s][1], 900 + s);
            snprintf(what, sizeof what, "%dx%d patches, radius 4", gpu_sizes[s][0], gpu_sizes[s][1]);
            check_meanshift(&img, &r4, what);
            sb_image_free(&img);
        }
    sb_image img;
    test_fill(&img, 131, 70, 3, 201);
    check_meanshift(&img, NULL, "uniform 131x70");
    sb_image_free(&img);
    test_fill(&img, 70, 45, 3, 0);
    for (int i = 0; i < 70 * 45; i++)
        if ((i % 70 + i / 70) % 2)
            memset(img.data + 3 * i, 230, 3);
    sb_ms_params board = { 2, 10, 5, 6, NULL };
    check_meanshift(&img, &board, "checkerboard 70x45");
    sb_image_free(&img);
}

/* The source's reduction (its last warp adds shared memory without
 * volatile or __syncwarp) must be caught by the harness's agreement
 * check: a regression test that the check can fail for this bug. */
static void test_gpu_slic_source_race_caught(void)
{
    if (sb_in_list(gpu_exclude, "cuda-seed-race"))
        return;
    extern const sb_variant_ops sb_slic_cuda_seed_race_ops;
    const sb_variant race = { "slic", "cuda-seed-race", "cuda-global", "CUDA", SB_DEVICE, 1u,
                              &sb_slic_cuda_seed_race_ops, "the source's racy reduction",
                              "slic/cuda-seed-race", __FILE__, NULL, "", NULL };
    const sb_algo *algo = sb_algo_find("slic");
    sb_image img;
    test_patchy_rgb(&img, 517, 259, 4242);
    sb_case_data cd;
    sb_error err = { SB_OK, "" };
    void *stream = NULL;
    CHECK(sb_device_stream_create(&stream, &err) == SB_OK);
    if (sb_case_open(&cd, NULL, algo, SB_SLIC_STAGE_S16, NULL, &img, &err) == SB_OK) {
        sb_agreement ag = { 1, "exact", "" };
        sb_status st = sb_check_only(&cd.c, &race, 1, stream, &ag, &err);
        CHECKF(st == SB_OK, "the racy seed failed to run: %s", err.msg);
        CHECKF(!ag.ok, "the source's racy reduction passed the agreement check: %s", ag.metric);
        if (!ag.ok)
            printf("     caught as it should be: %s\n", ag.metric);
        sb_case_close(&cd);
    } else {
        CHECKF(0, "%s", err.msg);
    }
    sb_device_stream_destroy(stream);
    sb_image_free(&img);
}

/* The kernel census (bench's <algo>.kernels.csv): integral/cuda-pdl's
 * kernels seen with their block size, registers and an occupancy the
 * occupancy API vouches for.  Not under compute-sanitizer (--quick): the
 * sanitizer holds CUPTI. */
static void test_gpu_kernel_census(void)
{
    if (gpu_quick)
        return;
    const sb_algo *algo = sb_algo_find("integral");
    const sb_variant *v = sb_variant_find("integral", "cuda-pdl");
    sb_image img;
    test_random_grey(&img, 1920, 1080, 9);
    sb_case_data cd;
    sb_error err = { SB_OK, "" };
    void *stream = NULL;
    CHECK(sb_device_stream_create(&stream, &err) == SB_OK);
    if (sb_case_open(&cd, NULL, algo, 0, NULL, &img, &err) != SB_OK) {
        CHECKF(0, "%s", err.msg);
    } else {
        CHECKF(sb_census_begin(&err) == SB_OK, "census: %s", err.msg);
        sb_agreement ag;
        CHECKF(sb_check_only(&cd.c, v, 1, stream, &ag, &err) == SB_OK && ag.ok, "%s", err.msg);
        sb_kernel_info k[16];
        int n = sb_census_end(k, 16);
        CHECKF(n >= 1, "no kernel seen");
        for (int i = 0; i < n; i++) {
            printf("     %s: block %d, %d registers, smem %d + %d B, %d blocks/SM, occupancy %.0f%%\n", k[i].name,
                   k[i].block, k[i].regs, k[i].static_smem, k[i].dynamic_smem, k[i].blocks_per_sm,
                   100.0 * k[i].occupancy);
            CHECKF(k[i].name[0] && k[i].block > 0 && k[i].regs > 0 && k[i].blocks_per_sm > 0 &&
                       k[i].occupancy > 0 && k[i].occupancy <= 1.0,
                   "kernel %d (%s) described wrongly", i, k[i].name);
        }
        CHECKF(sb_census_end(k, 16) == 0, "a second end reports launches again");
        sb_case_close(&cd);
    }
    sb_device_stream_destroy(stream);
    sb_image_free(&img);
}

/* A device row's kernel time in rounds (measure.c): three rounds, each
 * after the first on a fresh session, each with its median kept (the
 * evidence compare and ab judge by); the row stays exact. */
static void test_gpu_device_rounds(void)
{
    const sb_algo *algo = sb_algo_find("kmeans");
    const sb_variant *v = sb_variant_find("kmeans", "cuda-lastblock");
    sb_image img;
    random_colour(&img, 640, 480, 21);
    sb_case_data cd;
    sb_error err = { SB_OK, "" };
    void *stream = NULL;
    CHECK(sb_device_stream_create(&stream, &err) == SB_OK);
    if (!v || sb_case_open(&cd, NULL, algo, 1, NULL, &img, &err) != SB_OK) {
        CHECKF(0, "%s", v ? err.msg : "no kmeans/cuda-lastblock");
    } else {
        sb_timing_opts o;
        sb_timing_defaults(&o);
        o.budget_ms = 30;
        o.rounds = 3;
        sb_measurement m;
        CHECKF(sb_measure(&cd.c, v, 1, stream, &o, &m, &err) == SB_OK, "%s", err.msg);
        CHECKF(m.agreement.ok && m.rounds == 3 && m.round_ms[0] > 0 && m.round_ms[1] > 0 && m.round_ms[2] > 0 &&
                   m.kernel.n >= 12,
               "%s: %d rounds (%g %g %g ms), %d samples", m.agreement.metric, m.rounds, m.round_ms[0], m.round_ms[1],
               m.round_ms[2], m.kernel.n);
        /* each round's work read after it: the reference's pass count every time (issue 76, item 6) */
        int passes = ((const sb_kmeans_out *)cd.c.reference)->iterations;
        CHECKF(m.works == 3 && m.work_lo.n == 1 && m.work_lo.value[0] == passes && m.work_hi.value[0] == passes &&
                   m.round_work[2] == passes,
               "%d work reads, passes %lld..%lld, the reference's %d", m.works, m.work_lo.value[0],
               m.work_hi.value[0], passes);
        sb_measurement_free(&m);
        sb_case_close(&cd);
    }
    sb_device_stream_destroy(stream);
    sb_image_free(&img);
}

/* GrabCut: every stage and the pipeline through the harness, on patches
 * of colour at awkward sizes and on degenerate rectangles. */
static void check_grabcut(const sb_image *img, const int rect[4], int iterations, const char *what)
{
    static const char *const algos[] = { "grabcut-kmeans", "grabcut-gmm", "grabcut-graph", "grabcut-maxflow",
                                         "grabcut" };
    for (int a = 0; a < 5; a++) {
        sb_grabcut_params p;
        sb_algo_find(algos[a])->params_default(&p, 0);
        memcpy(p.rect, rect, sizeof p.rect);
        p.iterations = iterations;
        check_variants(algos[a], img, &p, what);
    }
}

static void test_gpu_grabcut(void)
{
    static const int quick[] = { 3, 4 };
    int count = gpu_quick ? 2 : GPU_SIZES - 1;
    for (int k = 0; k < count; k++) {
        int s = gpu_quick ? quick[k] : k + 1, w = gpu_sizes[s][0], h = gpu_sizes[s][1];
        sb_image img;
        char what[128];
        test_patchy_rgb(&img, w, h, 1300 + s);
        int rect[4] = { w / 5, h / 6, w / 2 + 1, h / 2 + 1 };
        snprintf(what, sizeof what, "%dx%d patches", w, h);
        check_grabcut(&img, rect, gpu_quick ? 2 : 5, what);
        sb_image_free(&img);
    }
    sb_image img;
    test_patchy_rgb(&img, 70, 45, 17);
    int whole[4] = { 0, 0, 70, 45 }, one[4] = { 35, 20, 1, 1 }, over[4] = { 50, -9, 90, 30 };
    check_grabcut(&img, whole, 2, "rectangle = whole image");
    check_grabcut(&img, one, 2, "rectangle of 1 pixel");
    check_grabcut(&img, over, 2, "rectangle over the border");
    sb_image_free(&img);
    test_fill(&img, 61, 37, 3, 128);
    int mid[4] = { 10, 5, 30, 20 };
    check_grabcut(&img, mid, 2, "uniform image");
    sb_image_free(&img);
}

/* Streaming: a session prepared for frame A (buffers allocated, A
 * uploaded and run), then the host input refilled with frame B and one
 * sb_session_frame (upload + run + fetch): the output must be B's
 * reference, so upload() really moves each frame and run() keeps nothing
 * of the one before.  The stages whose upstream reaches them through the
 * parameters (meanshift-merge's flood labels, grabcut-gmm/graph/maxflow)
 * are left out here: their upload() is the only path those inputs take to
 * the device, so every agreement test above (and initcheck) covers it. */
static void check_streaming(const char *algo_name, const sb_image *a, const sb_image *b, const void *params)
{
    const sb_algo *algo = sb_algo_find(algo_name);
    void *stream = NULL;
    sb_error err = { SB_OK, "" };
    sb_case_data ca, cb;
    CHECK(sb_device_stream_create(&stream, &err) == SB_OK);
    if (sb_case_open(&ca, NULL, algo, 0, params, a, &err) != SB_OK) {
        CHECKF(0, "%s: %s", algo_name, err.msg);
        return;
    }
    if (sb_case_open(&cb, NULL, algo, 0, params, b, &err) != SB_OK) {
        CHECKF(0, "%s: %s", algo_name, err.msg);
        sb_case_close(&ca);
        return;
    }
    /* the frame a variant reads: the colour image where the case keeps one
     * (algo->luma_input), so an SB_COLOUR_IN variant's is refilled too */
    sb_image *in_a = &ca.input, *in_b = &cb.input, *colour_a = ca.c.colour ? &ca.colour : NULL;
    size_t bytes = in_a->stride * (size_t)in_a->height;
    size_t colour_bytes = colour_a ? colour_a->stride * (size_t)colour_a->height : 0;
    unsigned char *saved = malloc(bytes + colour_bytes);
    CHECK(saved && bytes == in_b->stride * (size_t)in_b->height);
    if (saved) {
        memcpy(saved, in_a->data, bytes);
        if (colour_a)
            memcpy(saved + bytes, colour_a->data, colour_bytes);
    }
    for (int i = 0; saved && i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, algo_name) || !(v->flags & SB_DEVICE) || !v->ops || gpu_excluded(v))
            continue;
        sb_session s;
        sb_agreement ag_a = { 0, "FAIL", "did not run" }, ag_b = ag_a;
        double ms;
        sb_status st = sb_session_open(&s, &ca.c, v, 1, stream, 1, &err);
        if (!st) {
            st = sb_session_sample(&s, 0, &ms, &err);
            if (!st)
                st = sb_session_check(&s, &ag_a, &err);
            memcpy(in_a->data, in_b->data, bytes);     /* the next frame, in the same host buffer */
            if (colour_a)
                memcpy(colour_a->data, cb.colour.data, colour_bytes);
            if (!st)
                st = sb_session_frame(&s, &ms, &err);
            if (!st)
                sb_output_check(algo, &cb.input, cb.params, cb.reference, s.out, v->flags, &ag_b);
            sb_session_close(&s);
            memcpy(in_a->data, saved, bytes);
            if (colour_a)
                memcpy(colour_a->data, saved + bytes, colour_bytes);
        }
        CHECKF(st == SB_OK, "%s/%s streaming failed to run: %s", algo_name, v->name, err.msg);
        CHECKF(ag_a.ok && ag_b.ok, "%s/%s: frame A %s, then frame B %s", algo_name, v->name, ag_a.metric,
               ag_b.metric);
    }
    free(saved);
    sb_case_close(&cb);
    sb_case_close(&ca);
    sb_device_stream_destroy(stream);
}

static void test_gpu_streaming(void)
{
    sb_image a, b;
    random_colour(&a, 129, 33, 71);
    random_colour(&b, 129, 33, 72);
    check_streaming("integral", &a, &b, NULL);
    sb_image_free(&a);
    sb_image_free(&b);
    test_patchy_rgb(&a, 127, 131, 73);
    test_patchy_rgb(&b, 127, 131, 74);
    static const char *const image_only[] = { "kmeans", "slic", "meanshift-filter", "meanshift-flood", "meanshift",
                                              "grabcut-kmeans", "grabcut" };
    for (size_t k = 0; k < sizeof image_only / sizeof image_only[0]; k++) {
        const sb_algo *algo = sb_algo_find(image_only[k]);
        if (strncmp(image_only[k], "grabcut", 7) == 0) {
            sb_grabcut_params p;
            algo->params_default(&p, 0);
            int rect[4] = { 20, 25, 70, 60 };
            memcpy(p.rect, rect, sizeof p.rect);
            p.iterations = 2;
            check_streaming(image_only[k], &a, &b, &p);
        } else {
            check_streaming(image_only[k], &a, &b, NULL);
        }
    }
    sb_image_free(&a);
    sb_image_free(&b);
}

/* Frames in flight (measure/stream.h): three different frames through
 * every CUDA variant of each algorithm run whole, 1 and 3 instances at once
 * on their own streams, and 2 with runs in turn (an event between the
 * streams); every frame of the check pass and each instance's last one
 * agree with that frame's own reference. */
static void test_gpu_stream_in_flight(void)
{
    static const char *const algos[] = { "integral", "kmeans", "slic", "meanshift", "grabcut" };
    for (size_t k = 0; k < sizeof algos / sizeof algos[0]; k++) {
        const sb_algo *algo = sb_algo_find(algos[k]);
        int noise = strcmp(algos[k], "integral") == 0;
        sb_case_data cd[3];
        const sb_case *frames[3];
        int opened = 0;
        sb_error err = { SB_OK, "" };
        for (int f = 0; f < 3; f++) {
            sb_image img;
            if (noise)
                random_colour(&img, 129, 67, 80 + f);   /* the integral image's grey is their luma */
            else
                test_patchy_rgb(&img, 127, 71, 80 + f);
            void *params = NULL;
            sb_grabcut_params gp;
            if (strcmp(algos[k], "grabcut") == 0) {
                algo->params_default(&gp, 0);
                int rect[4] = { 20, 15, 70, 45 };
                memcpy(gp.rect, rect, sizeof gp.rect);
                gp.iterations = 2;
                params = &gp;
            }
            sb_status st = sb_case_open(&cd[f], NULL, algo, algo->stream_stage, params, &img, &err);
            sb_image_free(&img);
            CHECKF(st == SB_OK, "%s: %s", algos[k], err.msg);
            if (st)
                break;
            frames[f] = &cd[f].c;
            opened++;
        }
        for (int i = 0; opened == 3 && i < sb_variant_count(); i++) {
            const sb_variant *v = sb_variant_at(i);
            if (strcmp(v->algo, algos[k]) || !(v->flags & SB_DEVICE) || !v->ops ||
                !(v->stages & (1u << algo->stream_stage)) || gpu_excluded(v))
                continue;
            /* the last way: colour frames, the host making a grey rung's grey
             * (only where the algorithm takes luma: the integral image) */
            static const struct {
                int k, in_turn, colour;
            } ways[] = { { 1, 0, 0 }, { 3, 0, 0 }, { 2, 1, 0 }, { 2, 0, 1 } };
            for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
                int in_flight = ways[w].k;
                if (in_flight > 1 && (v->flags & SB_ONE_AT_A_TIME))
                    continue;       /* refused (tests/measure/stream.c); two at once share its state */
                if (ways[w].colour && !algo->luma_input)
                    continue;
                sb_stream_opts o;
                sb_stream_defaults(&o);
                o.in_flight = in_flight;
                o.runs_in_turn = ways[w].in_turn;
                o.colour_frames = ways[w].colour;
                o.frames = 12;
                o.warmup_ms = 1;
                sb_stream_result r;
                const char *how = ways[w].in_turn ? ", runs in turn" : ways[w].colour ? ", from colour" : "";
                sb_status st = sb_stream_measure(frames, 3, v, &o, &r, &err);
                CHECKF(st == SB_OK, "%s, %d in flight%s: %s", v->who, in_flight, how, err.msg);
                CHECKF(st || r.agreement.ok, "%s, %d in flight%s: %s", v->who, in_flight, how, r.agreement.metric);
                CHECKF(st || (r.frames == 12 && r.checked >= 3 + in_flight && r.fps > 0 && r.bound_fps > 0 &&
                              r.runs_in_turn == ways[w].in_turn && r.copies_fps > 0 && r.kernels_fps > 0 &&
                              r.bound_fps <= fmin(r.copies_fps, r.kernels_fps) &&
                              (!strcmp(r.bound_by, "copies") || !strcmp(r.bound_by, "kernels") ||
                               !strcmp(r.bound_by, "host"))),
                       "%s, %d in flight%s: %d frames timed, %d checked, %.1f frames/s, bound %.1f (%s: copies "
                       "%.1f, kernels %.1f alone)", v->who, in_flight, how, r.frames, r.checked, r.fps, r.bound_fps,
                       r.bound_by, r.copies_fps, r.kernels_fps);
            }
        }
        for (int f = 0; f < opened; f++)
            sb_case_close(&cd[f]);
    }
}

/* Stale t-links for g's n-links: flipped, halved or fresh, node by node,
 * so a flow found for them is far from g's. */
static int32_t *stale_terms(const sb_gc_graph *g, unsigned long long seed)
{
    size_t n = (size_t)g->width * g->height;
    int32_t *term = malloc(sizeof(int32_t) * n);
    sb_rng rng;
    sb_rng_seed(&rng, seed);
    for (size_t p = 0; p < n; p++) {
        uint64_t r = sb_rng_next(&rng);
        int32_t t = g->term[p];
        term[p] = r % 3 == 0 ? -t : r % 3 == 1 ? t / 2 : (int32_t)((r >> 8) % 200001) - 100000;
    }
    return term;
}

/* One warm row of frames through v, k in flight: each frame from its
 * start record, or, given `chain`, chained in turn (warm_chain.h). */
static sb_status warm_row(const sb_frames *fr, const sb_variant *v, int k, sb_warm_chain chain, sb_stream_result *r,
                          sb_error *err)
{
    sb_stream_opts o;
    sb_stream_defaults(&o);
    o.in_flight = k;
    o.frames = 12;
    o.warmup_ms = 1;
    o.warm = 1;
    o.runs_in_turn = chain != NULL;
    o.chain = chain;
    return sb_stream_measure(fr->c, fr->count, v, &o, r, err);
}

/* Warm frames (frames.h): every CUDA variant of an algorithm with warm
 * starts (k-means, SLIC, GrabCut) streams a panning clip warm, each frame
 * from the result of the frame K before it, exact on every frame (the
 * pass or iteration count too), with 1 and 3 in flight. */
static void test_gpu_stream_warm(void)
{
    const char *algos[] = { "kmeans", "slic", "grabcut" };
    for (int a = 0; a < 3; a++) {
        sb_sequence seq;
        void *params;
        if (!test_warm_clip(algos[a], 6, &seq, &params))
            return;
        const sb_algo *algo = sb_algo_find(algos[a]);
        for (int k = 1; k <= 3; k += 2) {
            sb_frames fr;
            sb_error err = { SB_OK, "" };
            if (sb_frames_open_warm(&fr, algo, algo->warm_stage, params, &seq, k, NULL, &err) != SB_OK) {
                CHECKF(0, "%s warm frames, %d in flight: %s", algos[a], k, err.msg);
                break;
            }
            for (int i = 0; i < sb_variant_count(); i++) {
                const sb_variant *v = sb_variant_at(i);
                if (strcmp(v->algo, algos[a]) || !(v->flags & SB_DEVICE) || !v->ops || gpu_excluded(v) ||
                    !(v->stages & (1u << algo->warm_stage)) || (k > 1 && (v->flags & SB_ONE_AT_A_TIME)))
                    continue;
                sb_stream_result r;
                sb_status rs = warm_row(&fr, v, k, NULL, &r, &err);
                CHECKF(rs == SB_OK && r.agreement.ok && r.warm && r.checked >= 6, "%s warm, %d in flight: %s %s",
                       v->who, k, rs ? err.msg : "", r.agreement.metric);
            }
            sb_frames_close(&fr);
        }
        free(params);
        sb_sequence_free(&seq);
    }
}

/* Chained warm frames (segbench/warm_chain.h): every CUDA variant with a
 * chain op streams the panning clip in turn, each frame from the run of
 * the one just before it, taken on the device, exact on every frame (its
 * upload given a cold record), with 1 and 3 in flight. */
static void test_gpu_stream_chained(void)
{
    const char *algos[] = { "kmeans", "slic" };
    for (int a = 0; a < 2; a++) {
        sb_sequence seq;
        void *params;
        if (!test_warm_clip(algos[a], 6, &seq, &params))
            return;
        const sb_algo *algo = sb_algo_find(algos[a]);
        sb_frames fr;
        sb_error err = { SB_OK, "" };
        int chained = 0;
        if (sb_frames_open_warm(&fr, algo, algo->warm_stage, params, &seq, 1, NULL, &err) != SB_OK)
            CHECKF(0, "%s warm frames: %s", algos[a], err.msg);
        else {
            for (int i = 0; i < sb_variant_count(); i++) {
                const sb_variant *v = sb_variant_at(i);
                if (strcmp(v->algo, algos[a]) || !v->ops || gpu_excluded(v) || !sb_variant_warm_chain(v))
                    continue;
                chained++;
                for (int k = 1; k <= 3; k += 2) {
                    sb_stream_result r;
                    sb_status rs = warm_row(&fr, v, k, sb_variant_warm_chain(v), &r, &err);
                    CHECKF(rs == SB_OK && r.agreement.ok && r.chained && r.checked >= 6,
                           "%s chained, %d in flight: %s %s", v->who, k, rs ? err.msg : "", r.agreement.metric);
                }
            }
            sb_frames_close(&fr);
        }
        CHECKF(chained > 0, "no %s variant takes its start on the device", algos[a]);
        free(params);
        sb_sequence_free(&seq);
    }
}

/* Max-flow on random grid graphs (test_grabcut.c's), every device solver
 * against Boykov-Kolmogorov, from zero flow and (the warm solvers) from a
 * stale flow: the cut of other t-links first.  From zero flow, cuda-global
 * and cuda-launches must take exactly the host rounds' round and relabel
 * counts (the same synchronous algorithm), cuda-graph cuda-tiles' sweeps and
 * relabels (the same loop, driven from the device), and cuda-keep and
 * cuda-bfs32 cuda-warpsums' (a cold cut keeps nothing; the relabel's exact
 * distances do not depend on its tiles). */
static void test_gpu_maxflow_graphs(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 17, 13 }, { 33, 7 }, { 1, 45 }, { 100, 37 }, { 129, 65 },
                                    { 640, 480 } };
    int count = gpu_quick ? 4 : 7;
    const sb_algo *algo = sb_algo_find("grabcut-maxflow");
    void *stream = NULL;
    sb_error err = { SB_OK, "" };
    CHECK(sb_device_stream_create(&stream, &err) == SB_OK);
    for (int s = 0; s < count; s++)
        for (int kind = 0; kind < 3; kind++) {
            int w = sizes[s][0], h = sizes[s][1];
            sb_gc_graph g;
            test_random_graph(&g, w, h, 4000 + (unsigned long long)(s * 3 + kind), kind);
            int32_t *stale = stale_terms(&g, 77 + (unsigned long long)(s * 3 + kind));
            sb_image img;
            test_fill(&img, w, h, 3, 0);
            sb_grabcut_params p;
            algo->params_default(&p, 0);
            p.rect[2] = w;
            p.rect[3] = h;
            p.upstream = &g;
            sb_gc_cut_out ref = { w, h, malloc((size_t)w * h), 0, 0, 0 }, rounds = ref;
            rounds.fg = malloc((size_t)w * h);
            CHECK(sb_mf_bk(&g, &ref, &err) == SB_OK);
            sb_mf_rounds *mr = NULL;
            sb_band_runner serial = sb_band_serial();
            CHECK(sb_mf_rounds_open(&mr, w, h, &err) == SB_OK && sb_mf_rounds_solve(mr, &g, &serial, &rounds, &err) == SB_OK);
            sb_mf_rounds_close(mr);
            sb_case c = { .algo = algo, .params = &p, .input = &img, .reference = &ref };
            for (int from_stale = 0; from_stale < 2; from_stale++) {
                p.stale_term = from_stale ? stale : NULL;
                int tiles_sweeps = -1, tiles_relabels = -1;      /* cuda-tiles', for cuda-graph */
                static const char *const same_as_warpsums[] = { "cuda-warpsums", "cuda-keep", "cuda-bfs32" };
                int counts[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };     /* their sweeps and relabels */
                for (int i = 0; i < sb_variant_count(); i++) {
                    const sb_variant *v = sb_variant_at(i);
                    if (strcmp(v->algo, "grabcut-maxflow") || !(v->flags & SB_DEVICE) || !v->ops ||
                        gpu_excluded(v))
                        continue;
                    sb_session ss;
                    sb_agreement ag = { 0, "FAIL", "did not run" };
                    double ms;
                    const char *how = from_stale ? ", from a stale flow" : "";
                    sb_status st = sb_session_open(&ss, &c, v, 1, stream, 1, &err);
                    if (!st) {
                        for (int rep = 0; rep < 2 && !st; rep++)
                            st = sb_session_sample(&ss, 0, &ms, &err);
                        if (!st)
                            st = sb_session_check(&ss, &ag, &err);
                        const sb_gc_cut_out *got = ss.out;
                        if (!st && !from_stale && (!strcmp(v->name, "cuda-global") || !strcmp(v->name, "cuda-launches")))
                            CHECKF(got->rounds == rounds.rounds && got->relabels == rounds.relabels,
                                   "%dx%d kind %d: %s %d rounds %d relabels, host rounds %d and %d", w, h, kind,
                                   v->name, got->rounds, got->relabels, rounds.rounds, rounds.relabels);
                        if (!st && !from_stale && !strcmp(v->name, "cuda-tiles")) {
                            tiles_sweeps = got->rounds;
                            tiles_relabels = got->relabels;
                        }
                        for (int j = 0; j < 3; j++)
                            if (!st && !from_stale && !strcmp(v->name, same_as_warpsums[j])) {
                                counts[j][0] = got->rounds;
                                counts[j][1] = got->relabels;
                            }
                        if (!st && !from_stale && !strcmp(v->name, "cuda-graph") &&
                            !sb_in_list(gpu_exclude, "cuda-tiles"))       /* --exclude cuda-tiles: nothing to match */
                            CHECKF(got->rounds == tiles_sweeps && got->relabels == tiles_relabels,
                                   "%dx%d kind %d: cuda-graph %d sweeps %d relabels, cuda-tiles %d and %d", w, h,
                                   kind, got->rounds, got->relabels, tiles_sweeps, tiles_relabels);
                        sb_session_close(&ss);
                    }
                    CHECKF(st == SB_OK, "maxflow/%s %dx%d kind %d%s: %s", v->name, w, h, kind, how, err.msg);
                    CHECKF(ag.ok, "maxflow/%s %dx%d kind %d%s: %s", v->name, w, h, kind, how, ag.metric);
                }
                for (int j = 1; j < 3 && !from_stale; j++) {
                    if (*gpu_exclude && (counts[j][0] < 0 || counts[0][0] < 0))
                        continue;                                  /* left out by --exclude */
                    CHECKF(counts[j][0] == counts[0][0] && counts[j][1] == counts[0][1] && counts[0][0] >= 0,
                           "%dx%d kind %d: %s %d sweeps %d relabels, cuda-warpsums %d and %d", w, h, kind,
                           same_as_warpsums[j], counts[j][0], counts[j][1], counts[0][0], counts[0][1]);
                }
            }
            free(stale);
            free(ref.fg);
            free(rounds.fg);
            sb_image_free(&img);
            test_graph_free(&g);
        }
    sb_device_stream_destroy(stream);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            gpu_quick = 1;
        else if (strcmp(argv[i], "--exclude") == 0 && i + 1 < argc)
            gpu_exclude = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            gpu_only = argv[++i];
        else {
            fprintf(stderr, "usage: test_gpu [--quick] [--exclude variant,...] [--only name-part|name-part...]\n");
            return 2;
        }
    }
    sb_device_info info;
    sb_device_query(&info);
    if (!info.present || !info.has_image) {
        printf("no CUDA device this build can run on: %s\n0 passed, 1 failed\n",
               info.present ? "no kernel image for its architecture (rebuild with its CUDA_ARCH)" : info.reason);
        return 1;
    }
    printf("device: %s (sm_%d%d, %d SMs)%s%s%s\n", info.name, info.cc_major, info.cc_minor, info.sm_count,
           gpu_quick ? ", quick" : "", *gpu_exclude ? ", excluding " : "", gpu_exclude);
    static const sb_test gpu_tests[] = {
        { "gpu: every CUDA integral variant bit-exact on awkward sizes, both stages", test_gpu_awkward_sizes },
        { "gpu: all-0 and all-255 images", test_gpu_extremes },
        { "gpu: u32 wrap-around agrees with the reference", test_gpu_wraparound },
        { "gpu: every CUDA k-means variant bit-exact, few centres (k 1..7, both inits, both modes; uniform)",
          test_gpu_kmeans_few },
        { "gpu: every CUDA k-means variant bit-exact, many centres (k 16..256, both inits, both modes)",
          test_gpu_kmeans_many },
        { "gpu: every CUDA SLIC variant bit-exact (sizes, S, spaces, connectivity modes)", test_gpu_slic },
        { "gpu: the source's racy SLIC reduction fails the agreement check", test_gpu_slic_source_race_caught },
        { "gpu: every CUDA mean-shift variant exact, every stage (sizes, radii 1..64, uniform, checkerboard)",
          test_gpu_meanshift },
        { "gpu: every CUDA GrabCut variant exact, every stage (sizes, degenerate rectangles, uniform)",
          test_gpu_grabcut },
        { "gpu: every CUDA max-flow exact on random grid graphs, warm ones from a stale flow too; round counts",
          test_gpu_maxflow_graphs },
        { "gpu: the kernel census names each kernel with its block, registers and occupancy",
          test_gpu_kernel_census },
        { "gpu: a device row's kernel time in three rounds, each after the first on a fresh session, exact",
          test_gpu_device_rounds },
        { "gpu: streaming: a second frame uploaded into the same buffers gives its own reference",
          test_gpu_streaming },
        { "gpu: stream: every CUDA variant, 1 and 3 frames in flight and 2 in turn, each frame agrees with its own "
          "reference",
          test_gpu_stream_in_flight },
        { "gpu: stream: every CUDA k-means, SLIC and GrabCut variant exact on warm frames, 1 and 3 in flight",
          test_gpu_stream_warm },
        { "gpu: stream: every CUDA k-means and SLIC variant with a chain op exact on chained warm frames, each from "
          "the run before it on the device, 1 and 3 in flight",
          test_gpu_stream_chained },
        { "gpu: bench makes a scene's frames' references beside the GPU rows where its CPU stream row is left out",
          test_gpu_bench_frames_ahead },
    };
    const sb_test *groups[] = { gpu_tests };
    const int counts[] = { sizeof gpu_tests / sizeof gpu_tests[0] };
    int failed = sb_test_run(groups, counts, 1, gpu_only, NULL);
    sb_device_release_scratch();
    return failed ? 1 : 0;
}
