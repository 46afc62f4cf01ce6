/* test_integral.c - the integral image on the CPU: the reference against a
 * brute-force sum, every CPU variant against the reference, wrap-around,
 * and the agreement check itself. */
#include "cli_util.h"
#include "test_groups.h"

#include "variants/agreement.h"
#include "measure/measure.h"
#include "variants/registry.h"

#include "segbench/device.h"
#include "segbench/image_io.h"
#include "segbench/integral.h"

#include <stdlib.h>
#include <string.h>

static const int awkward[][2] = { { 1, 1 },   { 1, 57 },  { 57, 1 },  { 2, 3 },    { 33, 17 },
                                  { 127, 131 }, { 129, 33 }, { 257, 263 }, { 4, 4 }, { 300, 7 } };
enum { AWKWARD = sizeof awkward / sizeof awkward[0] };

/* Run a variant once through its ops, as the harness does, into a
 * poisoned output. */
static sb_status run_variant(const sb_variant *v, const sb_image *in, int squares, int threads, sb_integral_out *out)
{
    sb_integral_params p = { squares };
    sb_case c = { .algo = sb_algo_find("integral"), .stage = squares, .params = &p, .input = in };
    sb_error err;
    size_t n = (size_t)in->width * in->height;
    memset(out->sum, 0xA5, n * sizeof *out->sum);
    if (out->sqsum)
        memset(out->sqsum, 0xA5, n * sizeof *out->sqsum);
    sb_status st = sb_run_once(&c, v, threads, NULL, out, 1, NULL, &err);
    if (st)
        printf("    %s: %s\n", v->name, err.msg);
    return st;
}

static void out_alloc(sb_integral_out *o, int w, int h, int squares)
{
    o->width = w;
    o->height = h;
    o->sum = malloc((size_t)w * h * sizeof *o->sum);
    o->sqsum = squares ? malloc((size_t)w * h * sizeof *o->sqsum) : NULL;
}

static void out_free(sb_integral_out *o)
{
    free(o->sum);
    free(o->sqsum);
}

static void test_serial_matches_brute_force(void)
{
    for (int k = 0; k < AWKWARD; k++) {
        int w = awkward[k][0], h = awkward[k][1];
        sb_image img;
        test_random_grey(&img, w, h, 100 + k);
        sb_integral_out o;
        out_alloc(&o, w, h, 1);
        sb_integral_serial(img.data, img.stride, w, h, o.sum, o.sqsum);
        int bad = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint32_t s = 0;
                uint64_t q = 0;
                for (int j = 0; j <= y; j++)
                    for (int i = 0; i <= x; i++) {
                        uint32_t v = img.data[j * w + i];
                        s += v;
                        q += v * v;
                    }
                bad += o.sum[y * w + x] != s || o.sqsum[y * w + x] != q;
            }
        CHECKF(bad == 0, "%dx%d: %d entries differ from the brute-force sum", w, h, bad);
        out_free(&o);
        sb_image_free(&img);
    }
}

/* Every available CPU variant of the integral, at 1..8 threads where it
 * takes threads, equals the reference bit for bit on every awkward size. */
static void test_cpu_variants_agree(void)
{
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, "integral") != 0 || !v->ops || (v->flags & SB_DEVICE))
            continue;
        for (int k = 0; k < AWKWARD; k++) {
            int w = awkward[k][0], h = awkward[k][1];
            sb_image img;
            test_random_grey(&img, w, h, 200 + k);
            sb_integral_out ref, got;
            out_alloc(&ref, w, h, 1);
            out_alloc(&got, w, h, 1);
            sb_integral_serial(img.data, img.stride, w, h, ref.sum, ref.sqsum);
            int max_threads = (v->flags & SB_THREADED) ? 8 : 1;
            for (int t = 1; t <= max_threads; t++)
                for (int squares = 0; squares <= 1; squares++) {
                    sb_integral_out view = got;          /* stage sum: no squares table */
                    if (!squares)
                        view.sqsum = NULL;
                    CHECK(run_variant(v, &img, squares, t, &view) == SB_OK);
                    CHECKF(memcmp(got.sum, ref.sum, (size_t)w * h * sizeof *ref.sum) == 0,
                           "%s %dx%d threads %d: sums differ", v->name, w, h, t);
                    if (squares)
                        CHECKF(memcmp(got.sqsum, ref.sqsum, (size_t)w * h * sizeof *ref.sqsum) == 0,
                               "%s %dx%d threads %d: squared sums differ", v->name, w, h, t);
                }
            out_free(&ref);
            out_free(&got);
            sb_image_free(&img);
        }
    }
}

/* 4200 x 4100 white: 17.2 Mpx x 255 passes 2^32, so the u32 table wraps.
 * All CPU variants must wrap identically, and box sums stay exact. */
static void test_wraparound(void)
{
    int w = 4200, h = 4100;
    sb_image img;
    test_fill(&img, w, h, 1, 255);
    sb_integral_out ref, got;
    out_alloc(&ref, w, h, 1);
    out_alloc(&got, w, h, 1);
    sb_integral_serial(img.data, img.stride, w, h, ref.sum, ref.sqsum);
    size_t last = (size_t)w * h - 1;
    CHECK(ref.sum[last] == (uint32_t)(255ull * w * h));
    CHECK(ref.sqsum[last] == 65025ull * w * h);
    /* a 100x100 box in the bottom-right corner: four lookups, exact mod 2^32 */
    uint32_t box = ref.sum[last] - ref.sum[last - 100] - ref.sum[last - 100 * (size_t)w] +
                   ref.sum[last - 100 * (size_t)w - 100];
    CHECK(box == 255u * 100 * 100);
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, "integral") || !v->ops || (v->flags & SB_DEVICE) || !strcmp(v->backend, "cpu"))
            continue;
        CHECK(run_variant(v, &img, 1, 3, &got) == SB_OK);
        CHECKF(memcmp(got.sum, ref.sum, (size_t)w * h * 4) == 0, "%s: sums differ after wrap-around", v->name);
        CHECKF(memcmp(got.sqsum, ref.sqsum, (size_t)w * h * 8) == 0, "%s: squared sums differ", v->name);
    }
    out_free(&ref);
    out_free(&got);
    sb_image_free(&img);
}

/* The agreement check must be able to fail: one changed entry, int32
 * overflow, the floor's own rule. */
static void test_check_can_fail(void)
{
    const sb_algo *algo = sb_algo_find("integral");
    sb_image img;
    test_random_grey(&img, 19, 7, 9);
    sb_integral_params p = { 1 };
    sb_integral_out ref, got;
    out_alloc(&ref, 19, 7, 1);
    out_alloc(&got, 19, 7, 1);
    sb_integral_serial(img.data, img.stride, 19, 7, ref.sum, ref.sqsum);
    memcpy(got.sum, ref.sum, 19 * 7 * 4);
    memcpy(got.sqsum, ref.sqsum, 19 * 7 * 8);
    sb_agreement ag;
    sb_output_check(algo, &img, &p, &ref, &got, 0, &ag);
    CHECK(ag.ok && strcmp(ag.verdict, "exact") == 0);

    got.sum[5 * 19 + 11]++;
    sb_output_check(algo, &img, &p, &ref, &got, 0, &ag);
    CHECKF(!ag.ok && strstr(ag.metric, "(11,5)"), "%s", ag.metric);
    got.sum[5 * 19 + 11]--;
    got.sqsum[0] ^= 1u << 20;
    sb_output_check(algo, &img, &p, &ref, &got, 0, &ag);
    CHECKF(!ag.ok && strcmp(ag.verdict, "FAIL") == 0, "%s", ag.metric);
    got.sqsum[0] ^= 1u << 20;

    /* equal bits, but a sum an int32 cannot hold */
    ref.sum[3] = got.sum[3] = 3000000000u;
    sb_output_check(algo, &img, &p, &ref, &got, SB_INT32, &ag);
    CHECKF(!ag.ok && strstr(ag.metric, "INT32_MAX"), "%s", ag.metric);
    sb_output_check(algo, &img, &p, &ref, &got, 0, &ag);
    CHECK(ag.ok);

    /* the floor (a widening copy) is checked against the pixels */
    for (int i = 0; i < 19 * 7; i++) {
        got.sum[i] = img.data[i];
        got.sqsum[i] = (uint64_t)img.data[i] * img.data[i];
    }
    sb_output_check(algo, &img, &p, &ref, &got, SB_FLOOR, &ag);
    CHECKF(ag.ok, "%s", ag.metric);
    got.sum[100]++;
    sb_output_check(algo, &img, &p, &ref, &got, SB_FLOOR, &ag);
    CHECK(!ag.ok);
    out_free(&ref);
    out_free(&got);
    sb_image_free(&img);
}

static void test_registry(void)
{
    const char *names[] = { "cpu", "pthread", "openmp", "cuda-naive", "cuda-blocked6", "cuda-smemscan", "cuda-tilescan", "cuda-transposed", "cuda-inflight",
                            "cuda-pdl", "cuda-texture", "cuda-lookback", "cuda-strips", "cuda-wide", "cuda-staged", "cuda-fused", "cuda-resident", "cuda-ticket", "npp", "cuda-copy", "pthread-strips" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECKF(sb_variant_find("integral", names[i]) != NULL, "integral/%s is not registered", names[i]);
    CHECK(strcmp(sb_reference_variant(sb_algo_find("integral"))->name, "cpu") == 0);
    char why[300];
    const sb_variant *gpu = sb_variant_find("integral", "cuda-pdl");
    sb_availability av = sb_variant_availability(gpu, why, sizeof why);
    CHECKF(av != SB_AVAILABLE || sb_device_built(), "%s", why);
    if (!sb_device_built())
        CHECKF(av == SB_NOT_BUILT && strstr(why, "not built"), "%s", why);
    CHECK(sb_variant_availability(sb_variant_find("integral", "cpu"), why, sizeof why) == SB_AVAILABLE);
}

/* The picture of the table (run's output, the gallery's -sat.png) on an
 * all-white image: 255 (x+1)(y+1) / (w h), rounded.  Its sums pass 2^24
 * (a u32 times 255 overflowed there) and, for the larger one, 2^32 (the
 * u32 table itself wraps). */
static void check_sat_picture(int w, int h)
{
    const char *in = test_path("white.png"), *out = test_path("white-sat.png");
    sb_image img;
    test_fill(&img, w, h, 1, 255);
    sb_error err;
    CHECKF(sb_image_save(in, &img, &err) == SB_OK, "%s", err.msg);
    sb_image_free(&img);
    cli_result *r = cli("run integral %s %s", in, out);
    CHECKF(r->code == 0, "%dx%d: exit %d: %s", w, h, r->code, r->err);
    if (sb_image_load(out, SB_LOAD_NATIVE, &img, &err) != SB_OK) {
        CHECKF(0, "%s", err.msg);
        return;
    }
    int bad = 0;
    for (int y = 0; y < h && bad < 5; y += h / 7 + 1)
        for (int x = 0; x < w && bad < 5; x += w / 9 + 1) {
            double exact = 255.0 * (x + 1) * (y + 1) / ((double)w * h);
            int got = img.data[(size_t)y * w + x];
            if (got < (int)exact - 1 || got > (int)exact + 1) {
                CHECKF(0, "%dx%d at (%d,%d): %d, not %.1f", w, h, x, y, got, exact);
                bad++;
            }
        }
    CHECKF(img.data[(size_t)w * h - 1] == 255, "%dx%d: bottom right %d, not 255", w, h, img.data[(size_t)w * h - 1]);
    sb_image_free(&img);
}

static void test_sat_picture_scaling(void)
{
    check_sat_picture(300, 300);          /* sums up to 22.9 M: past 2^24 */
    check_sat_picture(4200, 4100);        /* up to 4.39 G: past 2^32 */
}

const sb_test tests_integral[] = {
    { "integral: serial reference equals brute force on awkward sizes", test_serial_matches_brute_force },
    { "integral: every CPU variant, 1..8 threads, bit-exact", test_cpu_variants_agree },
    { "integral: u32 wrap-around above 16.8 Mpx agrees and box sums stay exact", test_wraparound },
    { "integral: the agreement check catches differences and int32 overflow", test_check_can_fail },
    { "integral: registry lists every variant with its availability", test_registry },
    { "integral: the table's picture is right past 2^24 and 2^32 (gallery scaling)", test_sat_picture_scaling },
};
const int tests_integral_count = sizeof tests_integral / sizeof tests_integral[0];
