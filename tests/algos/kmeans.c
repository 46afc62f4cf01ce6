/* test_kmeans.c - k-means: the float score is exact (against a plain
 * integer brute force), every CPU variant is bit-exact with the reference
 * for k in {1, 2, 7, 16, 64, 256}, and the edge cases of the rules. */
#include "test.h"
#include "test_groups.h"

#include "cases/cases.h"
#include "measure/measure.h"
#include "measure/protocol.h"
#include "variants/registry.h"

#include "segbench/kmeans.h"
#include "segbench/rng.h"

#include "kmeans_host.h"

#include <stdlib.h>
#include <string.h>

/* Patches of random colour with a little noise: like a photo, clusters
 * with many pixels each, and some pixels halfway between. */
void test_patchy_rgb(sb_image *img, int width, int height, unsigned long long seed)
{
    if (sb_image_alloc(img, width, height, 3, NULL) != SB_OK)
        exit(2);
    sb_rng r;
    sb_rng_seed(&r, seed);
    uint8_t palette[16][3];
    for (int i = 0; i < 16; i++)
        for (int ch = 0; ch < 3; ch++)
            palette[i][ch] = (uint8_t)sb_rng_next(&r);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            const uint8_t *c = palette[sb_hash64(seed ^ ((uint64_t)(y / 7) << 20) ^ (uint64_t)(x / 9)) % 16];
            for (int ch = 0; ch < 3; ch++) {
                int v = c[ch] + (int)(sb_rng_next(&r) % 21) - 10;
                sb_image_row(img, y)[3 * x + ch] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
}

void test_random_rgb(sb_image *img, int width, int height, unsigned long long seed)
{
    if (sb_image_alloc(img, width, height, 3, NULL) != SB_OK)
        exit(2);
    sb_rng r;
    sb_rng_seed(&r, seed);
    for (size_t i = 0; i < img->stride * (size_t)height; i++)
        img->data[i] = (uint8_t)sb_rng_next(&r);
}

static sb_kmeans_params params(int k, int init, int max_iter, int fixed)
{
    sb_kmeans_params p = { k, init, 42, max_iter, fixed };
    return p;
}

static void out_alloc(sb_kmeans_out *o, const sb_image *img, int k)
{
    memset(o, 0, sizeof *o);
    o->width = img->width;
    o->height = img->height;
    o->k = k;
    o->labels = malloc((size_t)img->width * (size_t)img->height);
    if (!o->labels)
        exit(2);
}

/* The loop of kmeans.h written as plainly as possible: pixel by pixel,
 * distances as 64-bit integers |4p - C|^2, nothing shared with the
 * library but the initial centres. */
static void brute_force(const sb_image *img, const sb_kmeans_params *p, sb_kmeans_out *o)
{
    int32_t c[SB_KMEANS_MAX_K][3];
    sb_error err;
    if (sb_kmeans_initial(img, p, c, &err) != SB_OK)
        exit(2);
    size_t n = (size_t)img->width * (size_t)img->height;
    int pass;
    for (pass = 1; pass <= p->max_iter; pass++) {
        uint64_t sums[SB_KMEANS_MAX_K][4] = { { 0 } };
        long changed = 0;
        for (size_t i = 0; i < n; i++) {
            const uint8_t *px = sb_image_row(img, (int)(i / img->width)) + 3 * (i % img->width);
            int best = 0;
            int64_t best_d = INT64_MAX;
            for (int j = 0; j < p->k; j++) {
                int64_t d = 0;
                for (int ch = 0; ch < 3; ch++)
                    d += (int64_t)(4 * px[ch] - c[j][ch]) * (4 * px[ch] - c[j][ch]);
                if (d < best_d) {
                    best_d = d;
                    best = j;
                }
            }
            changed += pass == 1 || o->labels[i] != best;
            o->labels[i] = (uint8_t)best;
            for (int ch = 0; ch < 3; ch++)
                sums[best][ch] += px[ch];
            sums[best][3]++;
        }
        for (int j = 0; j < p->k; j++)
            for (int ch = 0; ch < 3 && sums[j][3]; ch++)
                c[j][ch] = (int32_t)((4 * sums[j][ch] + sums[j][3] / 2) / sums[j][3]);
        if (!p->fixed && changed == 0)
            break;
    }
    o->iterations = pass > p->max_iter ? p->max_iter : pass;
    memcpy(o->centres, c, sizeof c);
}

static int same_result(const sb_kmeans_out *a, const sb_kmeans_out *b, size_t n, int k)
{
    return a->iterations == b->iterations && memcmp(a->labels, b->labels, n) == 0 &&
           memcmp(a->centres, b->centres, (size_t)k * sizeof a->centres[0]) == 0;
}

static const int test_ks[] = { 1, 2, 7, 16, 64, 256 };

static void test_reference_matches_brute_force(void)
{
    for (int noisy = 0; noisy < 2; noisy++)
        for (size_t t = 0; t < sizeof test_ks / sizeof test_ks[0]; t++)
            for (int init = 0; init < 2; init++) {
                sb_image img;
                if (noisy)
                    test_random_rgb(&img, 23, 19, 900 + t);
                else
                    test_patchy_rgb(&img, 61, 37, 900 + t);
                sb_kmeans_params p = params(test_ks[t], init, 40, 0);
                sb_kmeans_out want, got;
                out_alloc(&want, &img, p.k);
                out_alloc(&got, &img, p.k);
                brute_force(&img, &p, &want);
                sb_error err;
                CHECKF(sb_kmeans_serial(&img, &p, &got, &err) == SB_OK, "%s", err.msg);
                CHECKF(same_result(&got, &want, (size_t)img.width * img.height, p.k),
                       "k=%d init=%d %s: serial (%d passes) differs from brute force (%d passes)", p.k, init,
                       noisy ? "noise" : "patches", got.iterations, want.iterations);
                free(want.labels);
                free(got.labels);
                sb_image_free(&img);
            }
}

/* Every CPU variant through the harness's own check, several thread counts. */
static void check_cpu_variants(const sb_image *img, const sb_kmeans_params *p, const char *what)
{
    sb_case_data cd;
    sb_error err = { SB_OK, "" };
    if (sb_case_open(&cd, NULL, sb_algo_find("kmeans"), 0, p, img, &err) != SB_OK) {
        CHECKF(0, "%s: %s", what, err.msg);
        return;
    }
    char label[160];
    snprintf(label, sizeof label, "%s k=%d", what, p->k);
    test_check_cpu_variants(&cd.c, label);
    sb_case_close(&cd);
}

static void test_cpu_variants_exact(void)
{
    for (size_t t = 0; t < sizeof test_ks / sizeof test_ks[0]; t++) {
        sb_image img;
        char what[64];
        test_patchy_rgb(&img, 157, 91, 300 + t);
        sb_kmeans_params p = params(test_ks[t], t % 2 ? SB_KMEANS_INIT_PLUSPLUS : SB_KMEANS_INIT_SPREAD, 60, 0);
        snprintf(what, sizeof what, "157x91 patches, converge");
        check_cpu_variants(&img, &p, what);
        p.fixed = 1;
        p.max_iter = 3;
        snprintf(what, sizeof what, "157x91 patches, 3 fixed passes");
        check_cpu_variants(&img, &p, what);
        sb_image_free(&img);
        test_random_rgb(&img, 40, 33, 400 + t);
        p = params(test_ks[t], SB_KMEANS_INIT_PLUSPLUS, 30, 0);
        check_cpu_variants(&img, &p, "40x33 noise");
        sb_image_free(&img);
    }
}

/* Equidistant centres: the lower index wins, whichever order they are in. */
static void test_ties_go_to_lowest_index(void)
{
    sb_image img;
    test_fill(&img, 3, 2, 3, 50);                   /* P = 200 quarter levels */
    int32_t a[2][3] = { { 100, 100, 100 }, { 300, 300, 300 } }, b[2][3] = { { 300, 300, 300 }, { 100, 100, 100 } };
    int32_t(*orders[2])[3] = { a, b };
    for (int o = 0; o < 2; o++) {
        sb_kmeans_prepped prepped[2] = { sb_kmeans_prep(orders[o][0]), sb_kmeans_prep(orders[o][1]) };
        sb_kmeans_sums sums[2] = { { 0 } };
        uint8_t labels[6];
        long changed = sb_kmeans_assign_rows(&img, 0, 2, prepped, 2, 1, labels, sums);
        CHECK(changed == 6);
        for (int i = 0; i < 6; i++)
            CHECKF(labels[i] == 0, "order %d: pixel %d took centre %d", o, i, labels[i]);
        CHECK(sums[0][3] == 6 && sums[0][0] == 300 && sums[1][3] == 0);
    }
    sb_image_free(&img);
}

static void test_uniform_and_few_colours(void)
{
    /* uniform: one cluster takes everything, the rest stay where they
     * started; pass 2 changes nothing */
    sb_image img;
    test_fill(&img, 20, 10, 3, 77);
    sb_kmeans_params p = params(16, SB_KMEANS_INIT_SPREAD, 100, 0);
    sb_kmeans_out o;
    out_alloc(&o, &img, 16);
    sb_error err;
    CHECKF(sb_kmeans_serial(&img, &p, &o, &err) == SB_OK, "%s", err.msg);
    int32_t initial[SB_KMEANS_MAX_K][3];
    sb_kmeans_initial(&img, &p, initial, &err);
    CHECKF(o.iterations == 2, "uniform image took %d passes", o.iterations);
    int owner = o.labels[0], empty_kept = 1;
    for (int i = 0; i < 200; i++)
        CHECK(o.labels[i] == owner);
    CHECK(o.centres[owner][0] == 4 * 77 && o.centres[owner][1] == 4 * 77 && o.centres[owner][2] == 4 * 77);
    for (int c = 0; c < 16; c++)
        if (c != owner)
            empty_kept &= memcmp(o.centres[c], initial[c], sizeof initial[c]) == 0;
    CHECKF(empty_kept, "an empty cluster moved");
    check_cpu_variants(&img, &p, "uniform");
    free(o.labels);
    sb_image_free(&img);

    /* k = 16 on 3 distinct colours: at most 3 clusters are used, each
     * centred exactly on its colour; both inits */
    test_fill(&img, 30, 12, 3, 0);
    for (int i = 0; i < 360; i++)
        for (int ch = 0; ch < 3; ch++)
            img.data[3 * i + ch] = (uint8_t)(i % 3 == 0 ? 10 : i % 3 == 1 ? 128 + 40 * ch : 250);
    for (int init = 0; init < 2; init++) {
        p = params(16, init, 100, 0);
        out_alloc(&o, &img, 16);
        CHECKF(sb_kmeans_serial(&img, &p, &o, &err) == SB_OK, "%s", err.msg);
        int used[SB_KMEANS_MAX_K] = { 0 }, nused = 0;
        for (int i = 0; i < 360; i++) {
            nused += !used[o.labels[i]];
            used[o.labels[i]] = 1;
            for (int ch = 0; ch < 3; ch++)
                CHECKF(o.centres[o.labels[i]][ch] == 4 * img.data[3 * i + ch], "init %d: pixel %d not on its centre",
                       init, i);
        }
        CHECKF(nused == 3, "init %d: %d clusters used for 3 colours", init, nused);
        check_cpu_variants(&img, &p, "3 colours, k=16");
        free(o.labels);
    }
    sb_image_free(&img);

    /* 1x1 */
    test_fill(&img, 1, 1, 3, 200);
    for (size_t t = 0; t < sizeof test_ks / sizeof test_ks[0]; t++) {
        p = params(test_ks[t], (int)t % 2, 100, 0);
        check_cpu_variants(&img, &p, "1x1");
    }
    sb_image_free(&img);
}

/* A converged result is a fixed point: more passes change nothing. */
static void test_converged_is_fixed_point(void)
{
    sb_image img;
    test_patchy_rgb(&img, 80, 60, 5);
    sb_kmeans_params p = params(7, SB_KMEANS_INIT_PLUSPLUS, 100, 0);
    sb_kmeans_out a, b;
    out_alloc(&a, &img, 7);
    out_alloc(&b, &img, 7);
    sb_error err;
    CHECK(sb_kmeans_serial(&img, &p, &a, &err) == SB_OK);
    CHECKF(a.iterations < 100, "did not converge in 100 passes");
    p.fixed = 1;
    p.max_iter = a.iterations + 5;
    CHECK(sb_kmeans_serial(&img, &p, &b, &err) == SB_OK);
    CHECK(b.iterations == a.iterations + 5);
    b.iterations = a.iterations;
    CHECK(same_result(&a, &b, 80 * 60, 7));
    /* and a cap below convergence stops there */
    p.fixed = 0;
    p.max_iter = 2;
    CHECK(sb_kmeans_serial(&img, &p, &b, &err) == SB_OK && b.iterations == 2);
    /* a warm start from it replaces the init rule, and converge stops after
     * its second pass (every pixel counts as changed on the first) */
    sb_kmeans_start start;
    memset(&start, 0, sizeof start);
    start.given = 1;
    memcpy(start.centres, a.centres, 7 * sizeof a.centres[0]);
    p.max_iter = 100;
    p.start = &start;
    int32_t c[SB_KMEANS_MAX_K][3], rule[SB_KMEANS_MAX_K][3];
    CHECK(sb_kmeans_initial(&img, &p, c, &err) == SB_OK && !memcmp(c, start.centres, 7 * sizeof c[0]));
    CHECK(sb_kmeans_serial(&img, &p, &b, &err) == SB_OK);
    CHECKF(b.iterations == 2, "warm from its own result: %d passes (cold %d)", b.iterations, a.iterations);
    b.iterations = a.iterations;
    CHECK(same_result(&a, &b, 80 * 60, 7));
    start.given = 0;                         /* a start not given: the init rule */
    CHECK(sb_kmeans_initial(&img, &p, c, &err) == SB_OK);
    p.start = NULL;
    CHECK(sb_kmeans_initial(&img, &p, rule, &err) == SB_OK && !memcmp(c, rule, 7 * sizeof c[0]));
    free(a.labels);
    free(b.labels);
    sb_image_free(&img);
}

static void test_plusplus_is_seeded(void)
{
    sb_image img;
    test_patchy_rgb(&img, 64, 48, 11);
    sb_kmeans_params p = params(16, SB_KMEANS_INIT_PLUSPLUS, 10, 0);
    int32_t a[SB_KMEANS_MAX_K][3], b[SB_KMEANS_MAX_K][3];
    sb_error err;
    CHECK(sb_kmeans_initial(&img, &p, a, &err) == SB_OK);
    CHECK(sb_kmeans_initial(&img, &p, b, &err) == SB_OK);
    CHECK(memcmp(a, b, 16 * sizeof a[0]) == 0);
    p.seed = 43;
    CHECK(sb_kmeans_initial(&img, &p, b, &err) == SB_OK);
    CHECK(memcmp(a, b, 16 * sizeof a[0]) != 0);
    /* every kmeans++ centre is a pixel's colour, and they are distinct */
    for (int c = 0; c < 16; c++)
        for (int d = 0; d < c; d++)
            CHECKF(memcmp(a[c], a[d], sizeof a[c]) != 0, "centres %d and %d repeat", d, c);
    sb_image_free(&img);
}

static void test_bad_params(void)
{
    sb_image img;
    test_fill(&img, 4, 4, 3, 1);
    int32_t c[SB_KMEANS_MAX_K][3];
    sb_error err;
    struct {
        sb_kmeans_params p;
        const char *needle;
    } bad[] = {
        { { 0, 0, 1, 10, 0 }, "k must be 1..256, not 0" },
        { { 257, 0, 1, 10, 0 }, "not 257" },
        { { 4, 0, 1, -1, 0 }, "iterations must be" },
        { { 4, 0, 1, 0, 1 }, "iterations must be" },
        { { 4, 7, 1, 10, 0 }, "unknown initialisation" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        CHECK(sb_kmeans_initial(&img, &bad[i].p, c, &err) == SB_ERR_USAGE);
        CHECKF(strstr(err.msg, bad[i].needle) != NULL, "message '%s' lacks '%s'", err.msg, bad[i].needle);
    }
    sb_image_free(&img);
    test_fill(&img, 4, 4, 1, 1);
    sb_kmeans_params p = params(4, 0, 10, 0);
    CHECK(sb_kmeans_initial(&img, &p, c, &err) == SB_ERR_USAGE && strstr(err.msg, "RGB"));
    sb_image_free(&img);
}

/* A stream points a prepared variant's input at each frame in turn (and a
 * warm start changes from frame to frame), so every host variant takes
 * its initial centres at each run: prepared on one image with kmeans++,
 * run on another, it gives the other's result.  (The host variants took
 * them in prepare once, so a kmeans++ stream seeded every frame from its
 * first.) */
static void test_host_variants_seed_each_frame(void)
{
    sb_image a, b;
    test_patchy_rgb(&a, 61, 37, 11);
    test_patchy_rgb(&b, 61, 37, 12);
    sb_kmeans_params p = params(5, SB_KMEANS_INIT_PLUSPLUS, 100, 0);
    sb_kmeans_out want;
    out_alloc(&want, &b, 5);
    sb_error err = { SB_OK, "" };
    CHECK(sb_kmeans_serial(&b, &p, &want, &err) == SB_OK);
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, "kmeans") || sb_is_device(v))
            continue;
        sb_image in = a;                        /* its input: the first frame, then the second */
        sb_kmeans_out got;
        out_alloc(&got, &b, 5);
        sb_exec exec = { 2, NULL, 0, v->who };
        void *state = NULL;
        sb_status st = v->ops->prepare(&state, &in, &p, &got, &exec, &err);
        in.data = b.data;
        if (!st)
            st = v->ops->run(state, &err);
        if (!st)
            st = v->ops->fetch(state, &err);
        CHECKF(!st && got.iterations == want.iterations && !memcmp(got.centres, want.centres, 5 * sizeof got.centres[0]) &&
                   !memcmp(got.labels, want.labels, (size_t)b.width * b.height),
               "%s prepared on one image, run on another: %d passes against %d (%s)", v->who, got.iterations,
               want.iterations, st ? err.msg : "ran");
        if (state)
            v->ops->release(state);
        free(got.labels);
    }
    free(want.labels);
    sb_image_free(&a);
    sb_image_free(&b);
}

const sb_test tests_kmeans[] = {
    { "kmeans: every host variant seeds each frame it runs, not the one it was prepared with",
      test_host_variants_seed_each_frame },
    { "kmeans: float score equals an integer brute force (k 1..256, noise and patches, both inits)",
      test_reference_matches_brute_force },
    { "kmeans: every CPU variant bit-exact, k in {1,2,7,16,64,256}, thread counts 1,2,3,7",
      test_cpu_variants_exact },
    { "kmeans: ties go to the lowest centre index", test_ties_go_to_lowest_index },
    { "kmeans: uniform image, k above the colour count, 1x1, empty clusters keep their centre",
      test_uniform_and_few_colours },
    { "kmeans: a converged result is a fixed point; --max-iter caps; warm from it, two passes",
      test_converged_is_fixed_point },
    { "kmeans: kmeans++ is deterministic per seed", test_plusplus_is_seeded },
    { "kmeans: bad parameters are refused with a clear message", test_bad_params },
};
const int tests_kmeans_count = sizeof tests_kmeans / sizeof tests_kmeans[0];
