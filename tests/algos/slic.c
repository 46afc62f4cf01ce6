/* test_slic.c - SLIC: the exact colour conversion, the geometry, the
 * update rule, the host algorithm against a plain re-implementation,
 * every CPU variant bit-exact on awkward sizes, connectivity enforcement
 * against a breadth-first reference, and the quality metrics on hand-made
 * label maps with known answers. */
#include "test.h"
#include "test_groups.h"

#include "cases/cases.h"
#include "measure/measure.h"
#include "variants/outputs.h"
#include "variants/registry.h"
#include "algos/segmetrics.h"

#include "segbench/regions.h"
#include "segbench/rng.h"
#include "segbench/slic.h"

#include "slic_host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static sb_slic_params slic_params(int segments, int size, int connectivity)
{
    sb_slic_params p = { segments, size, 10, 0.6f, SB_SLIC_LAB, connectivity };
    return p;
}

/* A runner that runs `bands` bands one after another: the parallel code
 * paths (seams, per-band sums, atomics) on one thread. */
static void bands_in_turn(void *self, sb_band_fn fn, void *ctx, int bands)
{
    (void)self;
    for (int i = bands - 1; i >= 0; i--)      /* backwards, to shake out order assumptions */
        fn(ctx, i, bands);
}

/* ---- colour ------------------------------------------------------------------ */

static void test_cbrt_accuracy(void)
{
    double worst = 0.0;
    for (int i = 0; i <= 20000; i++) {
        float t = 0.0088f + (1.1f - 0.0088f) * (float)i / 20000.0f;
        double want = cbrt((double)t), got = sb_fcbrt(t);
        double rel = fabs(got - want) / want;
        worst = rel > worst ? rel : worst;
    }
    CHECKF(worst < 5e-7, "cube root off by %.3g (relative)", worst);
}

static void test_colour_conversion(void)
{
    const float *lin = sb_slic_linear_table();
    CHECK(lin[0] == 0.0f && fabsf(lin[255] - 1.0f) < 1e-7f && fabs(lin[128] - 0.21586) < 1e-5);
    uint16_t c[3];
    sb_slic_convert(lin, SB_SLIC_LAB, 0, 0, 0, c);
    CHECKF(c[0] == 0 && c[1] == 8192 && c[2] == 8192, "black: %u %u %u", c[0], c[1], c[2]);
    sb_slic_convert(lin, SB_SLIC_LAB, 255, 255, 255, c);
    CHECKF(abs(c[0] - 6400) <= 1 && abs(c[1] - 8192) <= 2 && abs(c[2] - 8192) <= 2, "white: %u %u %u", c[0], c[1],
           c[2]);
    /* sRGB red is Lab (53.24, 80.09, 67.20) */
    sb_slic_convert(lin, SB_SLIC_LAB, 255, 0, 0, c);
    CHECKF(fabs(c[0] / 64.0 - 53.24) < 0.1 && fabs(c[1] / 64.0 - 128 - 80.09) < 0.2 &&
               fabs(c[2] / 64.0 - 128 - 67.20) < 0.2,
           "red: %.2f %.2f %.2f", c[0] / 64.0, c[1] / 64.0 - 128, c[2] / 64.0 - 128);
    /* channel order: blue is not red */
    uint16_t b[3];
    sb_slic_convert(lin, SB_SLIC_LAB, 0, 0, 255, b);
    CHECKF(b[2] < 8192 && c[2] > 8192, "blue's b* must be negative, red's positive");
    sb_slic_convert(lin, SB_SLIC_RGB, 1, 2, 255, c);
    CHECK(c[0] == 64 && c[1] == 128 && c[2] == 255 * 64);
    sb_slic_convert(lin, SB_SLIC_XYZ, 255, 255, 255, c);
    CHECKF(abs(c[0] - 15572) <= 2 && abs(c[1] - 16384) <= 2 && abs(c[2] - 17838) <= 2, "white XYZ %u %u %u", c[0],
           c[1], c[2]);
}

/* ---- geometry and rules ----------------------------------------------------------- */

static void test_geometry(void)
{
    sb_slic_geometry g;
    sb_error err;
    sb_slic_params p = slic_params(0, 16, SB_SLIC_CONNECT_FULL);
    CHECK(sb_slic_geometry_init(&g, 1920, 1080, &p, &err) == SB_OK && g.S == 16 && g.grid_w == 120 &&
          g.grid_h == 68 && g.min_piece == 64);
    p = slic_params(100, 0, SB_SLIC_CONNECT_FULL);
    CHECK(sb_slic_geometry_init(&g, 100, 100, &p, &err) == SB_OK && g.S == 10 && g.centres == 100);
    p.segments = 3;                      /* 35 / 3 = 11.7 pixels: S = 4 */
    CHECK(sb_slic_geometry_init(&g, 7, 5, &p, &err) == SB_OK && g.S == 4 && g.grid_w == 2 && g.grid_h == 2);
    p.segments = 35;
    CHECK(sb_slic_geometry_init(&g, 7, 5, &p, &err) == SB_OK && g.S == 1 && g.centres == 35);
    p.segments = 36;
    CHECK(sb_slic_geometry_init(&g, 7, 5, &p, &err) == SB_ERR_USAGE);
    CHECKF(strstr(err.msg, "36 superpixels asked of a 7x5 image"), "%s", err.msg);
    p.segments = -4;
    CHECK(sb_slic_geometry_init(&g, 7, 5, &p, &err) == SB_ERR_USAGE && strstr(err.msg, "at least 1"));
    p = slic_params(0, 0, SB_SLIC_CONNECT_FULL);
    CHECK(sb_slic_geometry_init(&g, 7, 5, &p, &err) == SB_ERR_USAGE);
    p = slic_params(0, 16, SB_SLIC_CONNECT_FULL);
    p.iterations = 0;
    CHECK(sb_slic_geometry_init(&g, 7, 5, &p, &err) == SB_ERR_USAGE && strstr(err.msg, "iterations"));
    p.iterations = 10;
    p.weight = NAN;
    CHECK(sb_slic_geometry_init(&g, 7, 5, &p, &err) == SB_ERR_USAGE && strstr(err.msg, "weight"));
}

static void test_update_rule(void)
{
    sb_slic_centre c = { 80, 96, { 1, 2, 3 }, 0 };
    uint64_t none[6] = { 0 };
    sb_slic_update_centre(&c, none);         /* empty: kept where it was (the source reset it to 0,0) */
    CHECK(c.x == 80 && c.y == 96 && c.colour[0] == 1 && c.colour[2] == 3);
    uint64_t two[6] = { 3, 4, 10, 11, 0, 2 };  /* x mean 1.5 px = 24/16; 5.5 rounds up to 6 */
    sb_slic_update_centre(&c, two);
    CHECK(c.x == 24 && c.y == 32 && c.colour[0] == 5 && c.colour[1] == 6 && c.colour[2] == 0);
}

/* ---- the host algorithm against a plain re-implementation --------------------------- */

static void naive_slic(const sb_image *img, const sb_slic_params *p, int32_t *labels, sb_slic_centre *centres)
{
    sb_slic_geometry g;
    sb_error err;
    CHECK(sb_slic_geometry_init(&g, img->width, img->height, p, &err) == SB_OK);
    int w = img->width, h = img->height;
    uint16_t(*colour)[3] = malloc((size_t)w * h * sizeof *colour);
    uint64_t(*sums)[6] = malloc((size_t)g.centres * sizeof *sums);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *px = sb_image_row(img, y) + 3 * x;
            sb_slic_convert(sb_slic_linear_table(), p->space, px[0], px[1], px[2], colour[y * w + x]);
        }
    for (int c = 0; c < g.centres; c++) {
        int x = (c % g.grid_w) * g.S + g.S / 2, y = (c / g.grid_w) * g.S + g.S / 2;
        x = x > w - 1 ? w - 1 : x;
        y = y > h - 1 ? h - 1 : y;
        sb_slic_centre k = { 16 * x, 16 * y, { colour[y * w + x][0], colour[y * w + x][1], colour[y * w + x][2] }, 0 };
        centres[c] = k;
    }
    for (int it = 0; it < p->iterations; it++) {
        memset(sums, 0, (size_t)g.centres * sizeof *sums);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                float best = INFINITY;
                int best_c = -1;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int cx = x / g.S + dx, cy = y / g.S + dy;
                        if (cx < 0 || cy < 0 || cx >= g.grid_w || cy >= g.grid_h)
                            continue;
                        const sb_slic_centre *k = &centres[cy * g.grid_w + cx];
                        const uint16_t *pcol = colour[y * w + x];
                        float pc[3] = { pcol[0], pcol[1], pcol[2] }, cc[3] = { k->colour[0], k->colour[1], k->colour[2] };
                        float d = sb_slic_distance(g.cn, g.wxy, 16.0f * x, 16.0f * y, pc, (float)k->x, (float)k->y, cc);
                        if (d < best) {
                            best = d;
                            best_c = cy * g.grid_w + cx;
                        }
                    }
                labels[y * w + x] = best_c;
                uint64_t add[6] = { (uint64_t)x, (uint64_t)y, colour[y * w + x][0], colour[y * w + x][1],
                                    colour[y * w + x][2], 1 };
                for (int j = 0; j < 6; j++)
                    sums[best_c][j] += add[j];
            }
        for (int c = 0; c < g.centres; c++)
            sb_slic_update_centre(&centres[c], sums[c]);
    }
    free(colour);
    free(sums);
}

/* The host algorithm with `bands` bands; free the result with sb_output_free. */
static sb_slic_out *run_host(const sb_image *img, const sb_slic_params *p, int bands)
{
    void *out = NULL;
    sb_error err;
    CHECKF(sb_output_alloc(sb_algo_find("slic"), &out, img, p, &err) == SB_OK, "%s", err.msg);
    sb_slic_host h;
    memset(&h, 0, sizeof h);
    sb_band_runner runner = { bands_in_turn, NULL, bands };
    CHECKF(sb_slic_host_open(&h, "test", img, p, out, runner, &err) == SB_OK, "%s", err.msg);
    CHECKF(sb_slic_host_run(&h, &err) == SB_OK, "%s", err.msg);
    sb_slic_host_close(&h);
    return out;
}

static void test_host_matches_naive(void)
{
    static const int sizes[][3] = { { 61, 37, 8 }, { 97, 61, 7 }, { 40, 33, 16 }, { 1, 50, 3 }, { 50, 1, 3 } };
    for (int s = 0; s < 5; s++)
        for (int space = 0; space < 3; space++) {
            sb_image img;
            test_patchy_rgb(&img, sizes[s][0], sizes[s][1], 40 + s);
            sb_slic_params p = slic_params(0, sizes[s][2], SB_SLIC_CONNECT_NONE);
            p.space = space;
            p.iterations = 4;
            size_t n = (size_t)img.width * img.height;
            int32_t *labels = malloc(n * sizeof *labels);
            sb_slic_centre *centres = malloc(n * sizeof *centres);
            naive_slic(&img, &p, labels, centres);
            for (int bands = 1; bands <= 5; bands += 2) {
                sb_slic_out *o = run_host(&img, &p, bands);
                CHECKF(memcmp(o->labels, labels, n * sizeof *labels) == 0 &&
                           memcmp(o->centres, centres, (size_t)o->centre_count * sizeof *centres) == 0,
                       "%dx%d S=%d space %d, %d bands: differs from the plain re-implementation", img.width,
                       img.height, p.size, space, bands);
                sb_output_free(o);
            }
            free(labels);
            free(centres);
            sb_image_free(&img);
        }
}

/* Every CPU variant through the harness's check, several thread counts;
 * with full connectivity, the reference's labels are each one piece. */
static void check_cpu_variants(const sb_image *img, const sb_slic_params *p, const char *what)
{
    sb_case_data cd;
    sb_error err = { SB_OK, "" };
    if (sb_case_open(&cd, NULL, sb_algo_find("slic"), 0, p, img, &err) != SB_OK) {
        CHECKF(0, "%s: %s", what, err.msg);
        return;
    }
    test_check_cpu_variants(&cd.c, what);
    /* full connectivity: every label one piece, labels 0..count-1 */
    const sb_slic_out *ref = cd.reference;
    if (p->connectivity == SB_SLIC_CONNECT_FULL) {
        double pieces = 0;
        CHECK(sb_pieces_per_label(ref->labels, img->width, img->height, &pieces, &err) == SB_OK);
        CHECKF(pieces == 1.0, "%s: %.3f pieces per label with full connectivity", what, pieces);
        int top = -1;
        for (size_t i = 0; i < (size_t)img->width * img->height; i++)
            top = ref->labels[i] > top ? ref->labels[i] : top;
        CHECKF(top == ref->superpixels - 1, "%s: labels up to %d for %d superpixels", what, top, ref->superpixels);
    }
    sb_case_close(&cd);
}

static void test_cpu_variants_exact(void)
{
    /* smaller than a superpixel, 1xN, Nx1, S not dividing W or H, 3S not
     * a multiple of 16, S = 1 */
    static const int sizes[][2] = { { 1, 1 }, { 1, 57 }, { 57, 1 }, { 9, 7 }, { 33, 17 }, { 97, 61 }, { 160, 120 } };
    static const int S[] = { 16, 7, 5, 1 };
    for (int s = 0; s < 7; s++)
        for (int k = 0; k < 4; k++)
            for (int mode = 0; mode < 3; mode++) {
                sb_image img;
                if ((s + k) % 2)
                    test_random_rgb(&img, sizes[s][0], sizes[s][1], 60 + s);
                else
                    test_patchy_rgb(&img, sizes[s][0], sizes[s][1], 60 + s);
                sb_slic_params p = slic_params(0, S[k], mode);
                if (k == 3 && s >= 5)
                    p.size = 2;                /* S = 1 on large images takes long; S = 2 instead */
                char what[96];
                snprintf(what, sizeof what, "%dx%d S=%d %s", img.width, img.height, p.size,
                         mode == 0 ? "full" : mode == 1 ? "majority" : "none");
                check_cpu_variants(&img, &p, what);
                sb_image_free(&img);
            }
    sb_image img;
    test_patchy_rgb(&img, 200, 150, 77);
    sb_slic_params p = slic_params(300, 0, SB_SLIC_CONNECT_FULL);
    check_cpu_variants(&img, &p, "200x150 300 segments");
    p.space = SB_SLIC_XYZ;
    check_cpu_variants(&img, &p, "200x150 300 segments XYZ");
    p.space = SB_SLIC_RGB;
    p.weight = 5.0f;
    check_cpu_variants(&img, &p, "200x150 300 segments RGB weight 5");
    sb_image_free(&img);
}

/* ---- connectivity against a breadth-first reference ----------------------------- */

static int naive_enforce(int32_t *labels, int w, int h, int min_piece)
{
    int n = w * h;
    int32_t *comp = malloc((size_t)n * sizeof *comp), *queue = malloc((size_t)n * sizeof *queue);
    int32_t *size = calloc((size_t)n, sizeof *size), *next = malloc((size_t)n * sizeof *next);
    int32_t *number = malloc((size_t)n * sizeof *number);
    uint64_t *best = calloc((size_t)n, sizeof *best);
    for (int i = 0; i < n; i++)
        comp[i] = -1;
    for (int i = 0; i < n; i++) {            /* BFS from the first pixel of each component: its root */
        if (comp[i] >= 0)
            continue;
        int head = 0, tail = 0;
        queue[tail++] = i;
        comp[i] = i;
        while (head < tail) {
            int p = queue[head++], x = p % w, y = p / w;
            int nb[4] = { x > 0 ? p - 1 : -1, x + 1 < w ? p + 1 : -1, y > 0 ? p - w : -1, y + 1 < h ? p + w : -1 };
            for (int d = 0; d < 4; d++)
                if (nb[d] >= 0 && comp[nb[d]] < 0 && labels[nb[d]] == labels[p]) {
                    comp[nb[d]] = i;
                    queue[tail++] = nb[d];
                }
        }
        size[i] = tail;
    }
    for (int p = 0; p < n; p++) {
        int x = p % w, y = p / w;
        int nb[4] = { x > 0 ? p - 1 : -1, x + 1 < w ? p + 1 : -1, y > 0 ? p - w : -1, y + 1 < h ? p + w : -1 };
        for (int d = 0; d < 4; d++) {
            if (nb[d] < 0 || comp[nb[d]] == comp[p])
                continue;
            uint64_t key = sb_regions_key((uint32_t)size[comp[nb[d]]], (uint32_t)comp[nb[d]]);
            if (size[comp[p]] < min_piece && key > best[comp[p]])
                best[comp[p]] = key;
        }
    }
    int count = 0;
    for (int r = 0; r < n; r++)
        if (comp[r] == r)
            next[r] = size[r] < min_piece && best[r] > sb_regions_key((uint32_t)size[r], (uint32_t)r)
                          ? (int32_t)sb_regions_key_root(best[r])
                          : r;
    for (int r = 0; r < n; r++)
        if (comp[r] == r && next[r] == r)
            number[r] = count++;
    for (int p = 0; p < n; p++) {
        int f = comp[p];
        while (next[f] != f)
            f = next[f];
        labels[p] = number[f];
    }
    free(comp);
    free(queue);
    free(size);
    free(next);
    free(number);
    free(best);
    return count;
}

static void test_regions_match_bfs(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 1, 40 }, { 40, 1 }, { 17, 13 }, { 64, 48 } };
    static const int mins[] = { 0, 1, 4, 20, 100000 };
    for (int s = 0; s < 5; s++)
        for (int kind = 0; kind < 3; kind++)
            for (int m = 0; m < 5; m++) {
                int w = sizes[s][0], h = sizes[s][1], n = w * h;
                int32_t *map = malloc((size_t)n * sizeof *map), *want = malloc((size_t)n * sizeof *map);
                int32_t *got = malloc((size_t)n * sizeof *map);
                sb_rng r;
                sb_rng_seed(&r, 1000 + 10 * s + kind);
                for (int i = 0; i < n; i++)     /* noise of 3 labels, patches, or one label */
                    map[i] = kind == 0 ? (int32_t)(sb_rng_next(&r) % 3)
                             : kind == 1 ? (int32_t)(sb_hash64((uint64_t)((i % w) / 5 + 100 * ((i / w) / 4))) % 4)
                                         : 7;
                memcpy(want, map, (size_t)n * sizeof *map);
                int want_count = naive_enforce(want, w, h, mins[m]);
                for (int bands = 1; bands <= 7; bands += 3) {
                    sb_regions reg;
                    sb_error err;
                    CHECK(sb_regions_alloc(&reg, w, h, bands, &err) == SB_OK);
                    memcpy(got, map, (size_t)n * sizeof *map);
                    sb_band_runner runner = { bands_in_turn, NULL, bands };
                    int count = sb_regions_enforce(&reg, &runner, got, mins[m]);
                    CHECKF(count == want_count && memcmp(got, want, (size_t)n * sizeof *map) == 0,
                           "%dx%d kind %d min %d, %d bands: %d labels, want %d", w, h, kind, mins[m], bands, count,
                           want_count);
                    sb_regions_free(&reg);
                }
                free(map);
                free(want);
                free(got);
            }
}

/* ---- metrics on hand-made maps ----------------------------------------------------- */

static void test_metrics_known_answers(void)
{
    enum { W = 8, H = 4 };
    int32_t truth[W * H], seg[W * H];
    sb_error err;
    double br, ue, asa, pieces;
    for (int i = 0; i < W * H; i++)
        truth[i] = i % W < 4 ? 0 : 1;      /* left and right halves */

    CHECK(sb_boundary_recall(truth, truth, W, H, 1, &br, &err) == SB_OK && br == 1.0);
    CHECK(sb_overlap_scores(truth, truth, W, H, &ue, &asa, &err) == SB_OK && ue == 0.0 && asa == 1.0);

    for (int i = 0; i < W * H; i++)
        seg[i] = 0;                        /* one segment over both */
    CHECK(sb_boundary_recall(seg, truth, W, H, 3, &br, &err) == SB_OK && br == 0.0);
    CHECK(sb_overlap_scores(seg, truth, W, H, &ue, &asa, &err) == SB_OK && ue == 1.0 && asa == 0.5);

    for (int i = 0; i < W * H; i++)
        seg[i] = i % W < 3 ? 0 : 1;        /* the border one pixel to the left */
    CHECK(sb_boundary_recall(seg, truth, W, H, 1, &br, &err) == SB_OK && br == 1.0);
    CHECK(sb_boundary_recall(seg, truth, W, H, 0, &br, &err) == SB_OK && br == 0.0);
    CHECK(sb_overlap_scores(seg, truth, W, H, &ue, &asa, &err) == SB_OK);
    CHECKF(ue == 0.25 && asa == 0.875, "ue %g asa %g", ue, asa);   /* 8/32 and 28/32 */

    for (int i = 0; i < W * H; i++)        /* label 0 in two corners, label 1 between */
        seg[i] = (i % W == 0 || i % W == W - 1) ? 0 : 1;
    CHECK(sb_pieces_per_label(seg, W, H, &pieces, &err) == SB_OK && pieces == 1.5);
    CHECK(sb_pieces_per_label(truth, W, H, &pieces, &err) == SB_OK && pieces == 1.0);
    seg[3] = 99;
    CHECK(sb_pieces_per_label(seg, W, H, &pieces, &err) == SB_ERR_USAGE && strstr(err.msg, "outside"));

    CHECK(sb_boundary_radius(640, 480) == 2 && sb_boundary_radius(1920, 1080) == 6 && sb_boundary_radius(10, 10) == 1);
}

/* Converge mode: the run stops after the first update that left at most
 * 1 % of the centres unsettled (fewer passes than its cap), and is then
 * exactly the fixed run of that many passes; a warm start from its own
 * result settles sooner; a start of the wrong size is refused. */
static void test_converge_mode(void)
{
    sb_image rgb;
    test_patchy_rgb(&rgb, 160, 96, 5);
    sb_slic_params p = slic_params(0, 8, SB_SLIC_CONNECT_FULL);
    p.iterations = 40;
    p.converge = 1;
    sb_error err;
    const sb_algo *algo = sb_algo_find("slic");
    void *conv = NULL, *fixed = NULL, *warm = NULL;
    if (sb_output_alloc(algo, &conv, &rgb, &p, &err) || sb_output_alloc(algo, &fixed, &rgb, &p, &err) ||
        sb_output_alloc(algo, &warm, &rgb, &p, &err)) {
        CHECKF(0, "%s", err.msg);
        goto done;
    }
    CHECKF(sb_slic_serial(&rgb, &p, conv, &err) == SB_OK, "%s", err.msg);
    sb_slic_out *c = conv, *f = fixed, *w = warm;
    CHECKF(c->iterations >= 1 && c->iterations < 40, "converge mode made %d passes of 40", c->iterations);
    sb_slic_params q = p;
    q.converge = 0;
    q.iterations = c->iterations;
    CHECKF(sb_slic_serial(&rgb, &q, fixed, &err) == SB_OK, "%s", err.msg);
    size_t n = (size_t)rgb.width * rgb.height;
    CHECKF(f->iterations == c->iterations && !memcmp(f->labels, c->labels, n * sizeof *c->labels) &&
               !memcmp(f->centres, c->centres, (size_t)c->centre_count * sizeof *c->centres),
           "converge mode's %d passes differ from the fixed run of as many", c->iterations);
    sb_slic_start start = { 1, c->centre_count, c->centres };
    q = p;
    q.start = &start;
    CHECKF(sb_slic_serial(&rgb, &q, warm, &err) == SB_OK && w->iterations < c->iterations,
           "from its own result: %d passes, cold %d (%s)", w->iterations, c->iterations, err.msg);
    start.count--;
    CHECKF(sb_slic_serial(&rgb, &q, warm, &err) == SB_ERR_USAGE && strstr(err.msg, "a warm start of"), "%s",
           err.msg);
done:
    sb_output_free(conv);
    sb_output_free(fixed);
    sb_output_free(warm);
    sb_image_free(&rgb);
}


const sb_test tests_slic[] = {
    { "slic: the cube root from correctly rounded steps is accurate to float", test_cbrt_accuracy },
    { "slic: Lab / XYZ / RGB conversion (black, white, red, channel order)", test_colour_conversion },
    { "slic: S, grid and constants; too many or too few superpixels refused", test_geometry },
    { "slic: update rule (rounding, empty centre kept)", test_update_rule },
    { "slic: converge mode stops once 1 % or fewer of the centres are unsettled, exactly the fixed run of as many "
      "passes; a warm start settles sooner; one of the wrong size refused",
      test_converge_mode },
    { "slic: host algorithm = plain re-implementation, 1, 3 and 5 bands", test_host_matches_naive },
    { "slic: every CPU variant exact on awkward sizes, connected labels", test_cpu_variants_exact, SB_TEST_LONG },
    { "slic: connectivity enforcement = breadth-first reference, any bands", test_regions_match_bfs },
    { "slic: quality metrics on hand-made maps", test_metrics_known_answers },
};
const int tests_slic_count = sizeof tests_slic / sizeof tests_slic[0];
