/* test_meanshift.c - mean-shift: the partition comparison, the filter
 * against a brute-force one, flood and merge against breadth-first flood
 * fills with the same thresholds, awkward sizes, uniform and checkerboard
 * images, bad parameters, and every CPU variant against the reference. */
#include "test_groups.h"

#include "cases/cases.h"
#include "variants/partition.h"
#include "variants/registry.h"

#include "segbench/meanshift.h"
#include "segbench/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static sb_ms_params defaults(int radius)
{
    sb_ms_params p = { radius, 10, 5, 20, NULL };
    return p;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "test: out of memory\n");
        exit(2);
    }
    return p;
}

/* A packed-LUV image (4 channels) from an array of colours. */
static sb_image luv_image(const uint32_t *colour, int w, int h)
{
    sb_image img;
    if (sb_image_alloc(&img, w, h, 4, NULL)) {
        fprintf(stderr, "test: out of memory\n");
        exit(2);
    }
    memcpy(img.data, colour, (size_t)w * h * 4);
    return img;
}

/* Colours from a small palette in blobs, so regions are neither all one
 * nor all single pixels. */
static uint32_t *random_palette(int w, int h, unsigned long long seed)
{
    static const uint32_t palette[] = { 0x886050, 0x886052, 0x8a6250, 0x506070, 0x506974, 0x304040, 0x7080a0 };
    sb_rng r;
    sb_rng_seed(&r, seed);
    uint32_t *c = xmalloc((size_t)w * h * sizeof *c);
    for (int i = 0; i < w * h; i++) {
        int x = i % w;
        uint64_t v = sb_rng_next(&r);
        c[i] = (v % 4 == 0 || i < w || x == 0) ? palette[(v >> 8) % 7] : v % 4 == 1 ? c[i - 1] : c[i - w];
    }
    return c;
}

/* ---- the partition comparison ------------------------------------------------------- */

static void test_partition_diff(void)
{
    const int32_t a[] = { 0, 0, 1, 1, 2, 2 };
    const int32_t renamed[] = { 7, 7, 3, 3, 9, 9 };
    const int32_t split[] = { 0, 0, 1, 5, 2, 2 };
    const int32_t joined[] = { 0, 0, 0, 0, 2, 2 };
    long first;
    sb_error err;
    CHECK(sb_partition_diff(a, a, 6, &first, &err) == 0);
    CHECK(sb_partition_diff(a, renamed, 6, &first, &err) == 0);
    CHECK(sb_partition_diff(a, split, 6, &first, &err) == 1 && first == 3);
    CHECK(sb_partition_diff(a, joined, 6, &first, &err) == 2 && first == 2);
    CHECK(sb_partition_diff(joined, a, 6, &first, &err) == 2 && first == 2);
}

/* ---- the filter against brute force ------------------------------------------------------ */

/* The rules of meanshift.h written as plainly as possible: every pixel of
 * the image, tested for being inside the window. */
static uint32_t brute_pixel(const uint32_t *luv, int w, int h, int x, int y, const sb_ms_params *p)
{
    int cx = x, cy = y;
    uint32_t m = luv[y * w + x];
    for (int it = 0; it < p->max_iter; it++) {
        sb_ms_sums s = { 0, 0, 0, 0, 0, 0 };
        for (int qy = 0; qy < h; qy++)
            for (int qx = 0; qx < w; qx++) {
                uint32_t c = luv[qy * w + qx];
                if (abs(qx - cx) > p->radius || abs(qy - cy) > p->radius || sb_ms_d2(c, m) > p->range * p->range)
                    continue;
                s.n++;
                s.dx += qx - cx;
                s.dy += qy - cy;
                s.L += (int)(c & 255);
                s.u += (int)(c >> 8 & 255);
                s.v += (int)(c >> 16 & 255);
            }
        if (!sb_ms_step(&s, &cx, &cy, &m))
            break;
    }
    return m;
}

static void check_filter(const sb_image *rgb, const sb_ms_params *p, const char *what)
{
    int w = rgb->width, h = rgb->height;
    sb_ms_luv out = { w, h, xmalloc((size_t)w * h * 4) };
    uint32_t *luv = xmalloc((size_t)w * h * 4);
    sb_error err;
    CHECKF(sb_ms_serial(SB_MS_FILTER, rgb, p, &out, &err) == SB_OK, "%s: %s", what, err.msg);
    for (int i = 0; i < w * h; i++)
        luv[i] = sb_ms_luv_of(sb_slic_linear_table(), rgb->data[3 * i], rgb->data[3 * i + 1], rgb->data[3 * i + 2]);
    int bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            bad += out.luv[y * w + x] != brute_pixel(luv, w, h, x, y, p);
    CHECKF(bad == 0, "%s: %d of %d filtered pixels differ from brute force", what, bad, w * h);
    free(out.luv);
    free(luv);
}

static void test_filter_brute_force(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 1, 9 }, { 13, 1 }, { 17, 11 }, { 40, 23 } };
    for (int s = 0; s < 5; s++) {
        sb_image img;
        test_patchy_rgb(&img, sizes[s][0], sizes[s][1], 11 + s);
        for (int r = 1; r <= 64; r *= 4) {        /* 1, 4, 16, 64: larger than every image */
            sb_ms_params p = defaults(r);
            p.range = 6 + 4 * s;
            char what[64];
            snprintf(what, sizeof what, "%dx%d r%d", sizes[s][0], sizes[s][1], r);
            check_filter(&img, &p, what);
        }
        sb_image_free(&img);
    }
}

/* CIELUV in double precision, as meanshift.h defines the bytes. */
static void luv_double(int r8, int g8, int b8, double out[3])
{
    double rgb[3] = { r8 / 255.0, g8 / 255.0, b8 / 255.0 }, lin[3];
    for (int c = 0; c < 3; c++)
        lin[c] = rgb[c] <= 0.04045 ? rgb[c] / 12.92 : pow((rgb[c] + 0.055) / 1.055, 2.4);
    double X = 0.412453 * lin[0] + 0.357580 * lin[1] + 0.180423 * lin[2];
    double Y = 0.212671 * lin[0] + 0.715160 * lin[1] + 0.072169 * lin[2];
    double Z = 0.019334 * lin[0] + 0.119193 * lin[1] + 0.950227 * lin[2];
    double L = Y > 0.008856 ? 116.0 * cbrt(Y) - 16.0 : 903.3 * Y, d = X + 15 * Y + 3 * Z, u = 0, v = 0;
    if (d > 0) {
        u = 13 * L * (4 * X / d - 0.19793943);
        v = 13 * L * (9 * Y / d - 0.46831096);
    }
    out[0] = L;
    out[1] = (u + 134) * 255 / 354;
    out[2] = (v + 140) * 255 / 262;
}

/* The exact conversion is within a rounding of double precision's. */
static void test_luv_conversion(void)
{
    const float *lin = sb_slic_linear_table();
    CHECK(sb_ms_luv_of(lin, 0, 0, 0) == sb_ms_pack(0, 97, 136));   /* u* = v* = 0 by definition */
    CHECK((sb_ms_luv_of(lin, 255, 255, 255) & 255) == 100);
    sb_rng r;
    sb_rng_seed(&r, 7);
    int worst = 0;
    for (int k = 0; k < 20000; k++) {
        uint64_t v = sb_rng_next(&r);
        int c[3] = { (int)(v & 255), (int)(v >> 8 & 255), (int)(v >> 16 & 255) };
        double want[3];
        luv_double(c[0], c[1], c[2], want);
        uint32_t got = sb_ms_luv_of(lin, (unsigned)c[0], (unsigned)c[1], (unsigned)c[2]);
        for (int ch = 0; ch < 3; ch++) {
            double d = fabs((double)(got >> (8 * ch) & 255) - want[ch]);
            if (d > 0.5 + 1e-3)
                worst++;
        }
    }
    CHECKF(worst == 0, "%d channels more than a rounding from double precision", worst);
}

/* ---- flood and merge against breadth-first fills -------------------------------------------- */

/* Label every pixel with the smallest index of its 4-connected set under `joined`. */
typedef int (*join_fn)(const void *ctx, int a, int b);

static void bfs_label(int w, int h, join_fn joined, const void *ctx, int32_t *label)
{
    int *queue = xmalloc((size_t)w * h * sizeof *queue);
    for (int i = 0; i < w * h; i++)
        label[i] = -1;
    for (int s = 0; s < w * h; s++) {
        if (label[s] >= 0)
            continue;
        int head = 0, tail = 0;
        queue[tail++] = s;
        label[s] = s;
        while (head < tail) {
            int i = queue[head++], x = i % w, y = i / w;
            int nb[4] = { x > 0 ? i - 1 : -1, x + 1 < w ? i + 1 : -1, y > 0 ? i - w : -1, y + 1 < h ? i + w : -1 };
            for (int k = 0; k < 4; k++)
                if (nb[k] >= 0 && label[nb[k]] < 0 && joined(ctx, i, nb[k])) {
                    label[nb[k]] = s;
                    queue[tail++] = nb[k];
                }
        }
    }
    free(queue);
}

typedef struct colour_ctx {
    const uint32_t *colour;
    int join2;
} colour_ctx;

static int colour_joined(const void *ctx, int a, int b)
{
    const colour_ctx *c = ctx;
    return sb_ms_d2(c->colour[a], c->colour[b]) <= c->join2;
}

typedef struct fusion_ctx {
    const int32_t *flood;
    const uint32_t *mean;
    int join2;
} fusion_ctx;

static int fusion_joined(const void *ctx, int a, int b)
{
    const fusion_ctx *c = ctx;
    return c->flood[a] == c->flood[b] || sb_ms_d2(c->mean[c->flood[a]], c->mean[c->flood[b]]) <= c->join2;
}

static void test_flood_and_fusion_bfs(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 1, 30 }, { 30, 1 }, { 37, 29 }, { 64, 64 }, { 101, 7 } };
    for (int s = 0; s < 6; s++)
        for (unsigned long long seed = 1; seed <= 3; seed++) {
            int w = sizes[s][0], h = sizes[s][1], n = w * h;
            uint32_t *colour = random_palette(w, h, seed);
            sb_image in = luv_image(colour, w, h);
            sb_ms_params p = defaults(16);
            p.range = (int)(seed * 3);
            int32_t *want = xmalloc((size_t)n * 4), *got = xmalloc((size_t)n * 4);
            sb_ms_regions flood = { w, h, got, 0 };
            sb_error err;
            CHECKF(sb_ms_serial(SB_MS_FLOOD, &in, &p, &flood, &err) == SB_OK, "%s", err.msg);
            colour_ctx cc = { colour, sb_ms_join2(p.range) };
            bfs_label(w, h, colour_joined, &cc, want);
            CHECKF(memcmp(want, got, (size_t)n * 4) == 0, "flood %dx%d seed %llu differs from BFS", w, h, seed);

            /* fusion alone (min_area 0): BFS over the fusion rule, numbered in order of the first pixel */
            uint32_t *mean = xmalloc((size_t)n * 4);
            for (int r = 0; r < n; r++) {
                long sum[3] = { 0, 0, 0 }, k = 0;
                for (int i = 0; i < n; i++)
                    if (got[i] == r) {
                        k++;
                        for (int c = 0; c < 3; c++)
                            sum[c] += colour[i] >> (8 * c) & 255;
                    }
                if (k)
                    mean[r] = sb_ms_pack((unsigned)((2 * sum[0] + k) / (2 * k)), (unsigned)((2 * sum[1] + k) / (2 * k)),
                                         (unsigned)((2 * sum[2] + k) / (2 * k)));
            }
            fusion_ctx fc = { got, mean, sb_ms_join2(p.range) };
            int32_t *fused = xmalloc((size_t)n * 4);
            bfs_label(w, h, fusion_joined, &fc, fused);
            int count = 0;
            for (int i = 0; i < n; i++)              /* roots to 0, 1, ... */
                if (fused[i] == i)
                    want[i] = count++;
            for (int i = 0; i < n; i++)
                fused[i] = want[fused[i]];
            int32_t *merged = xmalloc((size_t)n * 4);
            sb_ms_regions out = { w, h, merged, 0 };
            p.min_area = 0;
            p.flood = got;
            CHECKF(sb_ms_serial(SB_MS_MERGE, &in, &p, &out, &err) == SB_OK, "%s", err.msg);
            CHECKF(out.count == count && memcmp(fused, merged, (size_t)n * 4) == 0,
                   "fusion %dx%d seed %llu differs from BFS (%d regions, BFS %d)", w, h, seed, out.count, count);
            free(colour), free(want), free(got), free(mean), free(fused), free(merged);
            sb_image_free(&in);
        }
}

/* Pruning: every region reaches min_area (when the image has room), is
 * connected, and the labels are numbered in order of first pixels. */
static void test_pruning_properties(void)
{
    int w = 53, h = 41, n = w * h;
    for (unsigned long long seed = 1; seed <= 4; seed++) {
        uint32_t *colour = random_palette(w, h, seed);
        sb_image in = luv_image(colour, w, h);
        sb_ms_params p = defaults(16);
        p.range = 3;
        p.min_area = (int)(5 * seed);
        int32_t *flood = xmalloc((size_t)n * 4), *out = xmalloc((size_t)n * 4), *pieces = xmalloc((size_t)n * 4);
        sb_ms_regions f = { w, h, flood, 0 }, o = { w, h, out, 0 };
        sb_error err;
        CHECK(sb_ms_serial(SB_MS_FLOOD, &in, &p, &f, &err) == SB_OK);
        p.flood = flood;
        CHECK(sb_ms_serial(SB_MS_MERGE, &in, &p, &o, &err) == SB_OK);
        int *size = calloc((size_t)o.count, sizeof *size), next = 0, order_ok = 1;
        for (int i = 0; i < n; i++) {
            CHECK(out[i] >= 0 && out[i] < o.count);
            if (out[i] == next)
                next++;
            else if (out[i] > next)
                order_ok = 0;
            size[out[i]]++;
        }
        CHECK(order_ok && next == o.count);
        for (int r = 0; r < o.count; r++)
            CHECKF(size[r] >= p.min_area, "seed %llu: region %d has %d pixels, min area %d", seed, r, size[r],
                   p.min_area);
        colour_ctx same = { (const uint32_t *)out, 0 };       /* equal labels = distance 0 */
        bfs_label(w, h, colour_joined, &same, pieces);
        int count = 0;
        for (int i = 0; i < n; i++)
            count += pieces[i] == i;
        CHECKF(count == o.count, "seed %llu: %d connected pieces for %d labels", seed, count, o.count);
        free(size), free(colour), free(flood), free(out), free(pieces);
        sb_image_free(&in);
    }
}

/* ---- special images ---------------------------------------------------------------------- */

static void test_uniform_and_checkerboard(void)
{
    sb_error err;
    sb_image flat;
    test_fill(&flat, 23, 17, 3, 90);
    sb_ms_params p = defaults(4);
    sb_ms_regions r = { 23, 17, xmalloc(23 * 17 * 4), 0 };
    CHECK(sb_ms_serial(SB_MS_PIPELINE, &flat, &p, &r, &err) == SB_OK && r.count == 1);
    sb_image_free(&flat);

    /* 1-pixel checkerboard of two far colours: nothing joins in flood;
     * pruning then merges pieces up to the min area */
    int w = 16, h = 12, n = w * h;
    uint32_t *c = xmalloc((size_t)n * 4);
    for (int i = 0; i < n; i++)
        c[i] = (i % w + i / w) % 2 ? sb_ms_pack(90, 100, 100) : sb_ms_pack(20, 150, 60);
    sb_image in = luv_image(c, w, h);
    sb_ms_regions f = { w, h, xmalloc((size_t)n * 4), 0 };
    CHECK(sb_ms_serial(SB_MS_FLOOD, &in, &p, &f, &err) == SB_OK && f.count == n);
    p.flood = f.labels;
    p.min_area = 4;
    CHECK(sb_ms_serial(SB_MS_MERGE, &in, &p, &r, &err) == SB_OK && r.count >= 1 && r.count <= n / 4);
    free(r.labels), free(f.labels), free(c);
    sb_image_free(&in);
}

static void test_bad_parameters(void)
{
    sb_error err;
    sb_ms_params p = defaults(0);
    CHECK(sb_ms_check_params(&p, SB_MS_FILTER, &err) == SB_ERR_USAGE && strstr(err.msg, "radius"));
    p = defaults(SB_MS_MAX_RADIUS + 1);
    CHECK(sb_ms_check_params(&p, SB_MS_FILTER, &err) == SB_ERR_USAGE);
    p = defaults(4);
    p.range = -1;
    CHECK(sb_ms_check_params(&p, SB_MS_FILTER, &err) == SB_ERR_USAGE && strstr(err.msg, "range"));
    p = defaults(4);
    p.max_iter = 0;
    CHECK(sb_ms_check_params(&p, SB_MS_FILTER, &err) == SB_ERR_USAGE && strstr(err.msg, "max-iter"));
    p = defaults(4);
    CHECK(sb_ms_check_params(&p, SB_MS_MERGE, &err) == SB_ERR_USAGE && strstr(err.msg, "flood"));
    sb_image grey;
    test_fill(&grey, 5, 5, 1, 0);
    sb_ms_luv out = { 5, 5, xmalloc(100) };
    CHECK(sb_ms_serial(SB_MS_FILTER, &grey, &p, &out, &err) == SB_ERR_USAGE && strstr(err.msg, "RGB"));
    free(out.luv);
    sb_image_free(&grey);
}

/* ---- every CPU variant against the reference, through the harness ------------------------- */

static void test_cpu_variants(void)
{
    static const char *const algos[] = { "meanshift-filter", "meanshift-flood", "meanshift-merge", "meanshift" };
    static const int sizes[][2] = { { 1, 1 }, { 3, 50 }, { 61, 47 } };
    for (int a = 0; a < 4; a++)
        for (int s = 0; s < 3; s++) {
            sb_image img;
            test_patchy_rgb(&img, sizes[s][0], sizes[s][1], 5 + s);
            const sb_algo *algo = sb_algo_find(algos[a]);
            sb_ms_params p = defaults(3);
            p.min_area = 6;
            sb_case_data cd;
            sb_error err;
            char what[64];
            snprintf(what, sizeof what, "%dx%d", sizes[s][0], sizes[s][1]);
            CHECKF(sb_case_open(&cd, NULL, algo, 0, &p, &img, &err) == SB_OK, "%s %s: %s", algos[a], what, err.msg);
            if (cd.reference)
                test_check_cpu_variants(&cd.c, what);
            sb_case_close(&cd);
            sb_image_free(&img);
        }
}

const sb_test tests_meanshift[] = {
    { "meanshift: partition comparison on hand-made label maps", test_partition_diff },
    { "meanshift: LUV bytes of white, black and red", test_luv_conversion },
    { "meanshift: filter equals brute force (1x1, 1xN, Nx1, radius beyond the image)", test_filter_brute_force },
    { "meanshift: flood and fusion equal breadth-first fills on random images", test_flood_and_fusion_bfs },
    { "meanshift: pruned regions reach the min area, are connected, numbered in order", test_pruning_properties },
    { "meanshift: uniform image is one region, checkerboard floods to single pixels", test_uniform_and_checkerboard },
    { "meanshift: bad parameters and inputs give clear errors", test_bad_parameters },
    { "meanshift: every CPU variant of every stage equals the reference", test_cpu_variants },
};
const int tests_meanshift_count = (int)(sizeof tests_meanshift / sizeof tests_meanshift[0]);
