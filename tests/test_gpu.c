/* test_gpu.c - `make test-gpu`: every CUDA integral variant, bit-exact
 * against the serial reference on awkward sizes, both stages, repeated
 * runs.  --quick runs the small sizes only (for compute-sanitizer);
 * --exclude leaves variants out (racecheck skips NPP's own kernels). */
#include "test.h"
#include "test_groups.h"

#include "../bench/args.h"
#include "../bench/registry.h"

#include "segbench/device.h"
#include "segbench/integral.h"

#include <stdlib.h>
#include <string.h>

static int gpu_quick;
static const char *gpu_exclude = "";   /* comma list of variants to leave out */

static const int gpu_sizes[][2] = { { 1, 1 },     { 1, 200 },   { 200, 1 },   { 33, 17 },   { 127, 131 },
                                    { 128, 32 },  { 129, 33 },  { 300, 97 },  { 517, 259 }, { 1920, 1080 },
                                    { 4001, 63 } };
enum { GPU_SIZES = sizeof gpu_sizes / sizeof gpu_sizes[0], QUICK_SIZES = 7 };

static int gpu_run(const sb_variant *v, const sb_image *in, int squares, void *stream, sb_integral_out *out)
{
    sb_integral_params p = { squares };
    sb_exec exec = { 1, stream, 1 };
    sb_error err = { SB_OK, "" };
    void *state = NULL;
    size_t n = (size_t)in->width * in->height;
    memset(out->sum, 0x5A, n * sizeof *out->sum);
    if (squares)
        memset(out->sqsum, 0x5A, n * sizeof *out->sqsum);
    sb_status st = v->ops->prepare(&state, in, &p, out, &exec, &err);
    for (int rep = 0; rep < 3 && !st; rep++)   /* repeated runs must not drift */
        st = v->ops->run(state, &err);
    if (!st)
        st = v->ops->fetch(state, &err);
    if (state)
        v->ops->release(state);
    if (st)
        printf("    %s: %s\n", v->name, err.msg);
    return st;
}

static void check_all_variants(const sb_image *img, const char *what)
{
    const sb_algo *algo = sb_algo_find("integral");
    int w = img->width, h = img->height;
    size_t n = (size_t)w * h;
    sb_integral_out ref = { w, h, malloc(n * 4), malloc(n * 8) }, got = { w, h, sb_host_alloc(n * 4), sb_host_alloc(n * 8) };
    sb_integral_serial(img->data, img->stride, w, h, ref.sum, ref.sqsum);
    void *stream = NULL;
    sb_error err;
    CHECK(sb_device_stream_create(&stream, &err) == SB_OK);
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, "integral") || !(v->flags & SB_DEVICE) || !v->ops || sb_in_list(gpu_exclude, v->name))
            continue;
        for (int squares = 0; squares <= 1; squares++) {
            sb_integral_params p = { squares };
            sb_integral_out view = got;
            if (!squares)
                view.sqsum = NULL;
            CHECKF(gpu_run(v, img, squares, stream, &view) == SB_OK, "%s %s failed to run", v->name, what);
            sb_agreement ag;
            algo->check(img, &p, &ref, &view, v->flags, &ag);
            int int32_expected = (v->flags & SB_INT32) && !ag.ok && strstr(ag.metric, "INT32_MAX");
            CHECKF(ag.ok || int32_expected, "%s %s %s: %s", v->name, squares ? "sqsum" : "sum", what, ag.metric);
        }
    }
    sb_device_stream_destroy(stream);
    free(ref.sum);
    free(ref.sqsum);
    sb_host_free(got.sum);
    sb_host_free(got.sqsum);
}

static void test_gpu_awkward_sizes(void)
{
    int count = gpu_quick ? QUICK_SIZES : GPU_SIZES;
    for (int k = 0; k < count; k++) {
        sb_image img;
        test_random_grey(&img, gpu_sizes[k][0], gpu_sizes[k][1], 500 + k);
        char what[64];
        snprintf(what, sizeof what, "%dx%d random", img.width, img.height);
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

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            gpu_quick = 1;
        else if (strcmp(argv[i], "--exclude") == 0 && i + 1 < argc)
            gpu_exclude = argv[++i];
        else {
            fprintf(stderr, "usage: test_gpu [--quick] [--exclude variant,...]\n");
            return 2;
        }
    }
    sb_device_info info;
    sb_device_query(&info);
    if (!info.present) {
        printf("no CUDA device: %s\n0 passed, 1 failed\n", info.reason);
        return 1;
    }
    printf("device: %s (sm_%d%d, %d SMs)%s%s%s\n", info.name, info.cc_major, info.cc_minor, info.sm_count,
           gpu_quick ? ", quick" : "", *gpu_exclude ? ", excluding " : "", gpu_exclude);
    static const sb_test gpu_tests[] = {
        { "gpu: every CUDA variant bit-exact on awkward sizes, both stages", test_gpu_awkward_sizes },
        { "gpu: all-0 and all-255 images", test_gpu_extremes },
        { "gpu: u32 wrap-around agrees with the reference", test_gpu_wraparound },
    };
    const sb_test *groups[] = { gpu_tests };
    const int counts[] = { sizeof gpu_tests / sizeof gpu_tests[0] };
    int failed = sb_test_run(groups, counts, 1, NULL);
    sb_device_release_scratch();
    return failed ? 1 : 0;
}
