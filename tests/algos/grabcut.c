/* test_grabcut.c - GrabCut: max-flow exactness against brute force and
 * Edmonds-Karp, every max-flow solver on awkward grids, exp and log, every
 * CPU variant of every stage, degenerate rectangles and bad parameters. */
#include "test.h"
#include "test_groups.h"

#include "cases/cases.h"
#include "variants/registry.h"
#include "grabcut_host.h"

#include "segbench/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- random grid graphs ---- */

void test_graph_free(sb_gc_graph *g)
{
    free(g->term);
    for (int d = 0; d < SB_GC_NLINKS; d++)
        free(g->nlink[d]);
    memset(g, 0, sizeof *g);
}

/* kind 0: small capacities with many zeros (ties, disconnected parts);
 * 1: GrabCut-like (strong n-links, t-links of both signs, a few huge);
 * 2: one source corner, one sink corner (long augmenting paths). */
void test_random_graph(sb_gc_graph *g, int w, int h, unsigned long long seed, int kind)
{
    size_t n = (size_t)w * h;
    g->width = w;
    g->height = h;
    g->beta = 0.0;
    g->term = calloc(n, sizeof(int32_t));
    for (int d = 0; d < SB_GC_NLINKS; d++)
        g->nlink[d] = calloc(n, sizeof(int32_t));
    sb_rng rng;
    sb_rng_seed(&rng, seed);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t p = (size_t)y * w + x;
            for (int d = 0; d < SB_GC_NLINKS; d++) {
                int qx = x + sb_mf_dx(d), qy = y + sb_mf_dy(d);
                if (qx < 0 || qy < 0 || qx >= w || qy >= h)
                    continue;
                uint64_t r = sb_rng_next(&rng);
                g->nlink[d][p] = kind == 0 ? (int32_t)(r % 4) * (int32_t)(r % 3) : (int32_t)(r % 50000);
            }
            uint64_t r = sb_rng_next(&rng);
            if (kind == 0)
                g->term[p] = (int32_t)(r % 11) - 5;
            else if (kind == 1)
                g->term[p] = (int32_t)(r % 200001) - 100000 + (r % 97 == 0 ? 4000000 : 0);
            else
                g->term[p] = p == 0 ? 1000000 : p == n - 1 ? -1000000 : 0;
        }
}

/* The capacity of the cut whose source side is `fg` (1 = source side). */
static int64_t cut_capacity(const sb_gc_graph *g, const uint8_t *fg)
{
    int64_t c = 0;
    for (int y = 0; y < g->height; y++)
        for (int x = 0; x < g->width; x++) {
            size_t p = (size_t)y * g->width + x;
            if (g->term[p] > 0 && !fg[p])
                c += g->term[p];
            if (g->term[p] < 0 && fg[p])
                c -= g->term[p];
            for (int d = 0; d < SB_GC_NLINKS; d++) {
                int qx = x + sb_mf_dx(d), qy = y + sb_mf_dy(d);
                if (qx >= 0 && qy >= 0 && qx < g->width && qy < g->height &&
                    fg[p] != fg[(size_t)qy * g->width + qx])
                    c += g->nlink[d][p];
            }
        }
    return c;
}

/* Brute force over all 2^n cuts: the minimum, and the canonical cut (the
 * sink side is the intersection of every minimum cut's sink side). */
static void brute_force(const sb_gc_graph *g, int64_t *min_cut, uint8_t *canonical_fg)
{
    int n = g->width * g->height;
    uint8_t fg[16], in_every_sink[16];
    *min_cut = INT64_MAX;
    for (unsigned m = 0; m < 1u << n; m++) {
        for (int i = 0; i < n; i++)
            fg[i] = m >> i & 1;
        int64_t c = cut_capacity(g, fg);
        if (c < *min_cut)
            *min_cut = c;
    }
    memset(in_every_sink, 1, sizeof in_every_sink);
    for (unsigned m = 0; m < 1u << n; m++) {
        for (int i = 0; i < n; i++)
            fg[i] = m >> i & 1;
        if (cut_capacity(g, fg) == *min_cut)
            for (int i = 0; i < n; i++)
                if (fg[i])
                    in_every_sink[i] = 0;
    }
    for (int i = 0; i < n; i++)
        canonical_fg[i] = !in_every_sink[i];
}

/* Edmonds-Karp on the grid (BFS augmenting paths from a super source to a
 * super sink), then the canonical cut by the same rule. */
static int64_t edmonds_karp(const sb_gc_graph *g, uint8_t *fg)
{
    long n = (long)g->width * g->height;
    int32_t *r = calloc((size_t)n * 8, sizeof(int32_t)), *src = calloc((size_t)n, sizeof(int32_t)),
            *snk = calloc((size_t)n, sizeof(int32_t)), *queue = calloc((size_t)n, sizeof(int32_t));
    int32_t *from = calloc((size_t)n, sizeof(int32_t));   /* direction to the predecessor, or -1: source */
    uint8_t *seen = calloc((size_t)n, 1);
    for (long p = 0; p < n; p++) {
        int x = (int)(p % g->width), y = (int)(p / g->width);
        for (int k = 0; k < 8; k++) {
            int qx = x + sb_mf_dx(k), qy = y + sb_mf_dy(k);
            if (qx >= 0 && qy >= 0 && qx < g->width && qy < g->height)
                r[p * 8 + k] = k < 4 ? g->nlink[k][p] : g->nlink[k - 4][(long)qy * g->width + qx];
        }
        src[p] = g->term[p] > 0 ? g->term[p] : 0;
        snk[p] = g->term[p] < 0 ? -g->term[p] : 0;
    }
    int64_t flow = 0;
    for (;;) {
        long head = 0, tail = 0, end = -1;
        memset(seen, 0, (size_t)n);
        for (long p = 0; p < n; p++)
            if (src[p] > 0) {
                seen[p] = 1;
                from[p] = -1;
                queue[tail++] = (int32_t)p;
            }
        while (head < tail && end < 0) {
            long u = queue[head++];
            if (snk[u] > 0) {
                end = u;
                break;
            }
            int x = (int)(u % g->width), y = (int)(u / g->width);
            for (int k = 0; k < 8; k++) {
                int qx = x + sb_mf_dx(k), qy = y + sb_mf_dy(k);
                long v = (long)qy * g->width + qx;
                if (qx < 0 || qy < 0 || qx >= g->width || qy >= g->height || seen[v] || r[u * 8 + k] <= 0)
                    continue;
                seen[v] = 1;
                from[v] = k ^ 4;
                queue[tail++] = (int32_t)v;
            }
        }
        if (end < 0)
            break;
        int32_t b = snk[end];
        long v = end;
        for (; from[v] >= 0; v = v + sb_mf_dx(from[v]) + (long)sb_mf_dy(from[v]) * g->width) {
            long u = v + sb_mf_dx(from[v]) + (long)sb_mf_dy(from[v]) * g->width;
            if (r[u * 8 + (from[v] ^ 4)] < b)
                b = r[u * 8 + (from[v] ^ 4)];
        }
        if (src[v] < b)
            b = src[v];
        snk[end] -= b;
        for (v = end; from[v] >= 0;) {
            long u = v + sb_mf_dx(from[v]) + (long)sb_mf_dy(from[v]) * g->width;
            r[u * 8 + (from[v] ^ 4)] -= b;
            r[v * 8 + from[v]] += b;
            v = u;
        }
        src[v] -= b;
        flow += b;
    }
    sb_mf_canonical_cut(g->width, g->height, r, 8, 1, snk, 0, fg, queue);
    free(r);
    free(src);
    free(snk);
    free(queue);
    free(from);
    free(seen);
    return flow;
}

/* Every registered CPU variant of the cut (the lesson files cpu-rounds
 * and pthread among them: they solve with code of their own, not the
 * shared rounds) on g, at 1, 2 and 5 threads: flow and canonical cut, and
 * for a rounds variant the very rounds of the shared solver, whatever the
 * bands.  The graph goes in as the graph step's output would. */
static void check_cut_variants(const sb_gc_graph *g, int64_t flow, const uint8_t *fg, int rounds, const char *what)
{
    size_t n = (size_t)g->width * g->height;
    sb_image img;
    test_fill(&img, g->width, g->height, 3, 0);
    sb_grabcut_params p;
    sb_algo_find("grabcut-maxflow")->params_default(&p, 0);
    int rect[4] = { 0, 0, g->width, g->height };
    memcpy(p.rect, rect, sizeof rect);
    p.upstream = g;
    sb_gc_cut_out out = { g->width, g->height, malloc(n), 0, 0, 0 };
    static const int threads[] = { 1, 2, 5 };
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, "grabcut-maxflow") != 0 || !v->ops || (v->flags & SB_DEVICE))
            continue;
        for (int t = 0; t < 3 && (t == 0 || (v->flags & SB_THREADED)); t++) {
            sb_exec exec = { threads[t], NULL, 0, v->who };
            sb_error err = { SB_OK, "" };
            void *state = NULL;
            memset(out.fg, 0xA5, n);
            out.flow = -1;
            out.rounds = -1;
            sb_status st = v->ops->prepare(&state, &img, &p, &out, &exec, &err);
            if (!st)
                st = v->ops->run(state, &err);
            if (!st)
                st = v->ops->fetch(state, &err);
            v->ops->release(state);
            CHECKF(st == SB_OK, "%s@%d %s: %s", v->who, threads[t], what, err.msg);
            if (st)
                continue;
            CHECKF(out.flow == flow && memcmp(out.fg, fg, n) == 0, "%s@%d %s: flow %lld (expected %lld)%s", v->who,
                   threads[t], what, (long long)out.flow, (long long)flow,
                   memcmp(out.fg, fg, n) ? ", the cut differs from the canonical one" : "");
            int is_rounds = !strcmp(v->name, "cpu-rounds") || !strcmp(v->name, "pthread") || !strcmp(v->name, "openmp");
            CHECKF(!is_rounds || out.rounds == rounds, "%s@%d %s: %d rounds, the shared solver %d", v->who,
                   threads[t], what, out.rounds, rounds);
        }
    }
    free(out.fg);
    sb_image_free(&img);
}

/* Every host solver on g: flow and canonical cut against the expected. */
/* Warm start from a deliberately stale flow: the rounds solve graphs of
 * g's n-links with other t-links first -- `stale` of them, each from the
 * flow the one before left -- then g itself from the last one's flow. */
static sb_status warm_rounds(const sb_gc_graph *g, int stale, sb_gc_cut_out *out, sb_error *err)
{
    size_t n = (size_t)g->width * g->height;
    sb_gc_graph other = *g;
    int32_t *terms = malloc(sizeof(int32_t) * n * (size_t)(stale + 1));
    sb_mf_rounds *mr = NULL;
    sb_band_runner runner = sb_band_serial();
    runner.bands = 2;
    sb_status st = sb_mf_rounds_open(&mr, g->width, g->height, err);
    sb_rng rng;
    sb_rng_seed(&rng, n * 131 + (size_t)stale);
    for (int s = 0; s <= stale && !st; s++) {
        int32_t *term = terms + (size_t)s * n;
        for (size_t p = 0; p < n; p++) {
            /* flipped, scaled or fresh: excess that must go back, sink
             * residual on a node that now comes from the source */
            uint64_t r = sb_rng_next(&rng);
            int32_t t = g->term[p];
            term[p] = s == stale ? t : r % 3 == 0 ? -t : r % 3 == 1 ? t / 2 + (int32_t)(r % 7) - 3
                                                                    : (int32_t)((r >> 8) % 200001) - 100000;
        }
        other.term = term;
        st = s == 0 ? sb_mf_rounds_solve(mr, &other, &runner, out, err)
                    : sb_mf_rounds_solve_warm(mr, terms + (size_t)(s - 1) * n, &other, &runner, out, err);
    }
    sb_mf_rounds_close(mr);
    free(terms);
    return st;
}

static void check_solvers(const sb_gc_graph *g, int64_t flow, const uint8_t *fg, const char *what)
{
    size_t n = (size_t)g->width * g->height;
    sb_gc_cut_out out = { g->width, g->height, malloc(n), 0, 0, 0 };
    sb_error err;
    int rounds = -1;           /* the shared rounds solver's (one band) */
    static const char *const names[] = { "bk",           "fifo push-relabel", "rounds (1 band)",
                                         "rounds (3 bands)", "bk (1 band)",     "bk (3 bands)",
                                         "bk (16 bands)", "rounds, warm from a stale flow",
                                         "rounds, warm from three stale flows" };
    static const int bk_bands[] = { 0, 0, 0, 0, 1, 3, 16, 0, 0 };
    for (int s = 0; s < 9; s++) {
        memset(out.fg, 0xA5, n);
        out.flow = -1;
        sb_status st;
        if (s == 0)
            st = sb_mf_bk(g, &out, &err);
        else if (s == 1)
            st = sb_mf_push_relabel(g, &out, &err);
        else if (s >= 7)
            st = warm_rounds(g, s == 7 ? 1 : 3, &out, &err);
        else if (bk_bands[s]) {
            sb_band_runner runner = sb_band_serial();
            runner.bands = bk_bands[s];         /* in order, on this thread; more bands than rows too */
            st = sb_mf_bk_bands(g, &runner, &out, &err);
        } else {
            sb_mf_rounds *mr = NULL;
            sb_band_runner runner = sb_band_serial();
            runner.bands = s == 2 ? 1 : 3;     /* the serial runner loops over the bands in order */
            st = sb_mf_rounds_open(&mr, g->width, g->height, &err);
            if (!st)
                st = sb_mf_rounds_solve(mr, g, &runner, &out, &err);
            sb_mf_rounds_close(mr);
        }
        CHECKF(st == SB_OK, "%s %s: %s", names[s], what, err.msg);
        CHECKF(out.flow == flow, "%s %s: flow %lld, expected %lld", names[s], what, (long long)out.flow,
               (long long)flow);
        CHECKF(memcmp(out.fg, fg, n) == 0, "%s %s: the cut differs from the canonical one", names[s], what);
        if (s == 2)
            rounds = out.rounds;
    }
    check_cut_variants(g, flow, fg, rounds, what);
    free(out.fg);
}

static void test_maxflow_brute_force(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 2, 1 }, { 1, 5 }, { 2, 3 }, { 3, 3 }, { 4, 3 }, { 3, 4 }, { 12, 1 } };
    for (int s = 0; s < 8; s++)
        for (int kind = 0; kind < 3; kind++)
            for (uint64_t seed = 1; seed <= 12; seed++) {
                sb_gc_graph g;
                test_random_graph(&g, sizes[s][0], sizes[s][1], seed * 31 + (uint64_t)kind, kind);
                int64_t min_cut;
                uint8_t fg[16];
                brute_force(&g, &min_cut, fg);
                char what[80];
                snprintf(what, sizeof what, "%dx%d kind %d seed %llu", g.width, g.height, kind,
                         (unsigned long long)seed);
                check_solvers(&g, min_cut, fg, what);
                test_graph_free(&g);
            }
}

static void test_maxflow_edmonds_karp(void)
{
    static const int sizes[][2] = { { 17, 13 }, { 33, 7 }, { 64, 1 }, { 1, 45 }, { 100, 37 }, { 31, 31 } };
    for (int s = 0; s < 6; s++)
        for (int kind = 0; kind < 3; kind++) {
            sb_gc_graph g;
            test_random_graph(&g, sizes[s][0], sizes[s][1], 77 + (uint64_t)s, kind);
            uint8_t *fg = malloc((size_t)g.width * g.height);
            int64_t flow = edmonds_karp(&g, fg);
            char what[80];
            snprintf(what, sizeof what, "%dx%d kind %d", g.width, g.height, kind);
            check_solvers(&g, flow, fg, what);
            free(fg);
            test_graph_free(&g);
        }
}

/* The cut must not depend on which maximum flow was found: a graph with
 * many minimum cuts (all capacities 1 on a path) still has one answer. */
static void test_maxflow_ties(void)
{
    sb_gc_graph g;
    test_random_graph(&g, 9, 1, 1, 0);
    for (int p = 0; p < 9; p++) {
        g.term[p] = p == 0 ? 1 : p == 8 ? -1 : 0;
        g.nlink[0][p] = p < 8 ? 1 : 0;
    }
    uint8_t fg[9];
    int64_t min_cut;
    brute_force(&g, &min_cut, fg);
    CHECK(min_cut == 1);
    /* every unit edge, and both t-links, is a minimum cut; the canonical
     * one is the last, the sink's own t-link: every pixel is foreground */
    for (int p = 0; p < 9; p++)
        CHECKF(fg[p] == 1, "pixel %d", p);
    check_solvers(&g, 1, fg, "9x1 path of unit edges");
    test_graph_free(&g);
}

/* exp and log: the functions every backend shares, against libm. */
static void test_exp_log(void)
{
    double worst_exp = 0.0, worst_log = 0.0;
    for (int i = 0; i <= 200000; i++) {
        double x = -700.0 + 700.0 * i / 200000.0;
        double rel = fabs(sb_dexp(x) - exp(x)) / exp(x);
        worst_exp = fmax(worst_exp, rel);
        double y = exp(-300.0 + 600.0 * i / 200000.0);
        worst_log = fmax(worst_log, fabs(sb_dlog(y) - log(y)) / fmax(1.0, fabs(log(y))));
    }
    CHECKF(worst_exp < 4e-16 * 700, "exp: relative error %.3g", worst_exp);
    CHECKF(worst_log < 1e-15, "log: relative error %.3g", worst_log);
    CHECK(sb_dexp(-800.0) == 0.0);
    CHECK(sb_dexp(0.0) == 1.0);
    CHECK(sb_dlog(1.0) == 0.0);
    CHECK(sb_gc_quantize(0.0005) == 1 && sb_gc_quantize(0.0004) == 0 && sb_gc_quantize(-0.0005) == 0);
    CHECK(sb_gc_quantize(1e9) == sb_gc_quantize(SB_GC_ENERGY_MAX));
}

/* ---- the steps and the pipeline through the harness ---- */

static void check_grabcut_cpu(const sb_image *img, const int rect[4], const char *what)
{
    static const char *const algos[] = { "grabcut-kmeans", "grabcut-gmm", "grabcut-graph", "grabcut-maxflow",
                                         "grabcut" };
    for (int a = 0; a < 5; a++) {
        const sb_algo *algo = sb_algo_find(algos[a]);
        sb_grabcut_params p;
        algo->params_default(&p, 0);
        memcpy(p.rect, rect, sizeof p.rect);
        p.iterations = 3;
        sb_case_data cd;
        sb_error err;
        if (sb_case_open(&cd, NULL, algo, 0, &p, img, &err) != SB_OK) {
            CHECKF(0, "%s %s: %s", algos[a], what, err.msg);
            continue;
        }
        char w[160];
        snprintf(w, sizeof w, "%s %s", algos[a], what);
        test_check_cpu_variants(&cd.c, w);
        sb_case_close(&cd);
    }
}

static void test_grabcut_variants(void)
{
    static const int sizes[][2] = { { 33, 17 }, { 127, 131 }, { 300, 97 } };
    for (int s = 0; s < 3; s++) {
        sb_image img;
        int w = sizes[s][0], h = sizes[s][1];
        test_patchy_rgb(&img, w, h, 700 + (unsigned)s);
        int rect[4] = { w / 5, h / 6, w / 2, h / 2 };
        char what[80];
        snprintf(what, sizeof what, "%dx%d patches", w, h);
        check_grabcut_cpu(&img, rect, what);
        sb_image_free(&img);
    }
}

/* Degenerate inputs give a defined result: the whole image as the
 * rectangle (no background to learn from: everything foreground), a
 * rectangle of one pixel, a rectangle hanging over the border (clipped),
 * a uniform image (beta 0); every variant agrees on each. */
static void test_grabcut_degenerate(void)
{
    sb_image img;
    test_patchy_rgb(&img, 40, 30, 12);
    int whole[4] = { 0, 0, 40, 30 }, one[4] = { 20, 15, 1, 1 }, over[4] = { 30, -5, 100, 20 };
    check_grabcut_cpu(&img, whole, "rectangle = whole image");
    check_grabcut_cpu(&img, one, "rectangle of 1 pixel");
    check_grabcut_cpu(&img, over, "rectangle over the border");

    sb_grabcut_params p;
    sb_algo_find("grabcut")->params_default(&p, 0);
    memcpy(p.rect, whole, sizeof whole);
    sb_gc_out out = { .width = 40, .height = 30, .mask = malloc(1200) };
    sb_error err;
    CHECKF(sb_gc_serial(&img, &p, &out, &err) == SB_OK, "%s", err.msg);
    int fg = 0;
    for (int i = 0; i < 1200; i++)
        fg += SB_GC_SIDE(out.mask[i]);
    CHECKF(fg == 1200, "whole-image rectangle: %d of 1200 foreground", fg);
    free(out.mask);
    sb_image_free(&img);

    test_fill(&img, 50, 20, 3, 90);
    int mid[4] = { 10, 5, 20, 10 };
    check_grabcut_cpu(&img, mid, "uniform image");
    sb_image_free(&img);
}

static void test_grabcut_bad_params(void)
{
    const sb_algo *algo = sb_algo_find("grabcut");
    sb_grabcut_params p;
    sb_error err;
    algo->params_default(&p, 0);
    CHECK(sb_gc_check_params(&p, 40, 30, &err) == SB_ERR_USAGE);          /* no rectangle */
    CHECK(strstr(err.msg, "rect") != NULL);
    int outside[4] = { 50, 0, 10, 10 };
    memcpy(p.rect, outside, sizeof outside);
    CHECK(sb_gc_check_params(&p, 40, 30, &err) == SB_ERR_USAGE);
    CHECKF(strstr(err.msg, "outside") != NULL, "%s", err.msg);
    int ok[4] = { 1, 1, 10, 10 };
    memcpy(p.rect, ok, sizeof ok);
    CHECK(sb_gc_check_params(&p, 40, 30, &err) == SB_OK);
    p.iterations = 0;
    CHECK(sb_gc_check_params(&p, 40, 30, &err) == SB_ERR_USAGE);
    p.iterations = 5;
    p.gamma = -1.0;
    CHECK(sb_gc_check_params(&p, 40, 30, &err) == SB_ERR_USAGE);
    p.gamma = 50.0;
    CHECK(algo->params_option(&p, "rect", "1,2,3", &err) == SB_ERR_USAGE);
    CHECK(algo->params_option(&p, "rect", "1,2,3,4x", &err) == SB_ERR_USAGE);
    CHECK(algo->params_option(&p, "rect", "1,2,0,4", &err) == SB_ERR_USAGE);
    CHECK(algo->params_option(&p, "rect", "1,2,3,4", &err) == SB_OK && p.rect[3] == 4);
    CHECK(algo->params_option(&p, "iterations", "0", &err) == SB_ERR_USAGE);
    CHECK(algo->params_option(&p, "lambda", "nan", &err) == SB_ERR_USAGE);
    CHECK(algo->params_option(&p, "beta", "1", &err) == SB_ERR_USAGE);
    /* a stage without its upstream is refused, not crashed */
    sb_image img;
    test_patchy_rgb(&img, 20, 10, 3);
    void *state = NULL;
    sb_gc_cut_out out = { 20, 10, malloc(200), 0, 0, 0 };
    CHECK(sb_gc_host_prepare(&state, SB_GC_STEP_MAXFLOW, SB_MF_BK, "t", &img, &p, &out, sb_band_serial(), &err) ==
          SB_ERR_USAGE);
    CHECK(state == NULL);
    free(out.fg);
    sb_image_free(&img);
}

/* The synthetic set's object: the reference finds most of it. */
static void test_grabcut_finds_object(void)
{
    sb_image img;
    test_fill(&img, 120, 90, 3, 40);
    for (int y = 30; y < 60; y++)
        for (int x = 40; x < 80; x++) {
            uint8_t *px = sb_image_row(&img, y) + 3 * x;
            px[0] = 230;
            px[1] = 120;
            px[2] = 20;
        }
    sb_grabcut_params p;
    sb_algo_find("grabcut")->params_default(&p, 0);
    int rect[4] = { 30, 20, 60, 50 };
    memcpy(p.rect, rect, sizeof rect);
    sb_gc_out out = { .width = 120, .height = 90, .mask = malloc(120 * 90) };
    sb_error err;
    CHECKF(sb_gc_serial(&img, &p, &out, &err) == SB_OK, "%s", err.msg);
    int wrong = 0;
    for (int y = 0; y < 90; y++)
        for (int x = 0; x < 120; x++)
            wrong += SB_GC_SIDE(out.mask[y * 120 + x]) != (y >= 30 && y < 60 && x >= 40 && x < 80);
    CHECKF(wrong == 0, "%d pixels on the wrong side", wrong);
    free(out.mask);
    sb_image_free(&img);
}

/* Converge mode (grabcut.h) stops once a cut moves at most 0.1 % of the
 * rectangle, and is exactly the fixed run of as many iterations (flows
 * past them 0); a warm start from its own result settles in one; a
 * start without its mask and a converge flag of 2 are refused. */
static void test_grabcut_converge_mode(void)
{
    sb_image img;
    test_patchy_rgb(&img, 127, 131, 701);
    sb_grabcut_params p;
    sb_algo_find("grabcut")->params_default(&p, 0);
    int rect[4] = { 25, 21, 63, 65 };
    memcpy(p.rect, rect, sizeof rect);
    p.iterations = 20;
    p.converge = 1;
    size_t n = (size_t)img.width * img.height;
    sb_gc_out conv = { .width = img.width, .height = img.height, .mask = malloc(n) };
    sb_gc_out fixed = conv, warm = conv;
    fixed.mask = malloc(n);
    warm.mask = malloc(n);
    sb_error err;
    CHECKF(sb_gc_serial(&img, &p, &conv, &err) == SB_OK, "%s", err.msg);
    CHECKF(conv.iterations >= 1 && conv.iterations < 20 && conv.flow[conv.iterations] == 0,
           "converge mode made %d iterations of 20", conv.iterations);
    char said[2048] = "";
    FILE *fp = fmemopen(said, sizeof said - 1, "w");
    if (fp) {
        sb_algo_find("grabcut")->describe(fp, &p, &conv);
        fclose(fp);
    }
    CHECKF(strstr(said, "iterations (converged: the last cut moved at most 0.1 % of the rectangle, at most 20)"),
           "segbench run's description: %s", said);
    sb_grabcut_params q = p;
    q.converge = 0;
    q.iterations = conv.iterations;
    CHECKF(sb_gc_serial(&img, &q, &fixed, &err) == SB_OK, "%s", err.msg);
    CHECKF(fixed.iterations == conv.iterations && !memcmp(fixed.mask, conv.mask, n) &&
               !memcmp(fixed.flow, conv.flow, sizeof conv.flow) && !memcmp(fixed.gmm, conv.gmm, sizeof conv.gmm),
           "converge mode's %d iterations differ from the fixed run of as many", conv.iterations);
    sb_gc_start start = { .given = 1, .width = img.width, .height = img.height, .mask = conv.mask };
    memcpy(start.gmm, conv.gmm, sizeof start.gmm);
    q = p;
    q.start = &start;
    CHECKF(sb_gc_serial(&img, &q, &warm, &err) == SB_OK && warm.iterations == 1,
           "from its own result: %d iterations, cold %d (%s)", warm.iterations, conv.iterations, err.msg);
    start.width--;                   /* another frame's size: refused before its mask is read */
    CHECKF(sb_gc_serial(&img, &q, &warm, &err) == SB_ERR_USAGE && strstr(err.msg, "a warm start of a 126x131"),
           "%s", err.msg);
    start.width++;
    start.mask = NULL;
    CHECKF(sb_gc_serial(&img, &q, &warm, &err) == SB_ERR_USAGE && strstr(err.msg, "without its mask"), "%s",
           err.msg);
    q.start = NULL;
    q.converge = 2;
    CHECK(sb_gc_check_params(&q, img.width, img.height, &err) == SB_ERR_USAGE);
    CHECK(sb_algo_find("grabcut")->params_option(&q, "converge", "maybe", &err) == SB_ERR_USAGE);
    CHECK(sb_algo_find("grabcut")->params_option(&q, "converge", "on", &err) == SB_OK && q.converge == 1);
    free(conv.mask);
    free(fixed.mask);
    free(warm.mask);
    sb_image_free(&img);
}

const sb_test tests_grabcut[] = {
    { "grabcut: converge mode stops once a cut moves at most 0.1 % of the rectangle, exactly the fixed run of as "
      "many iterations; a warm start from its own result settles in one; a start without its mask or of another "
      "size refused",
      test_grabcut_converge_mode },
    { "grabcut: every max-flow solver = brute force (flow and canonical cut), tiny random grids", test_maxflow_brute_force,
      SB_TEST_LONG },
    { "grabcut: every max-flow solver = Edmonds-Karp on awkward grids", test_maxflow_edmonds_karp },
    { "grabcut: many minimum cuts, one canonical cut", test_maxflow_ties },
    { "grabcut: the shared exp and log against libm; quantization", test_exp_log },
    { "grabcut: every CPU variant of every stage exact (sizes, threads)", test_grabcut_variants },
    { "grabcut: degenerate rectangles and a uniform image give defined, agreed results", test_grabcut_degenerate },
    { "grabcut: bad parameters and a missing upstream are refused", test_grabcut_bad_params },
    { "grabcut: a clean object inside its rectangle is found exactly", test_grabcut_finds_object },
};
const int tests_grabcut_count = sizeof tests_grabcut / sizeof tests_grabcut[0];
