/* grabcut_steps.c - GrabCut's per-pixel steps on the host, as band phases:
 * two-sided k-means, GMM learning and assignment, n-links and t-links
 * (the rules are grabcut.h's).  Per-band integer sums are merged in band
 * order; integer addition makes any order give the same result anyway. */
#include "grabcut_host.h"

#include <string.h>

/* ---- parameters and the initial mask ---- */

void sb_gc_rect_clip(const sb_grabcut_params *p, int width, int height, int r[4])
{
    long x0 = p->rect[0], y0 = p->rect[1];
    long x1 = x0 + p->rect[2], y1 = y0 + p->rect[3];
    r[0] = (int)(x0 < 0 ? 0 : x0 > width ? width : x0);
    r[1] = (int)(y0 < 0 ? 0 : y0 > height ? height : y0);
    r[2] = (int)(x1 < 0 ? 0 : x1 > width ? width : x1);
    r[3] = (int)(y1 < 0 ? 0 : y1 > height ? height : y1);
}

sb_status sb_gc_check_params(const sb_grabcut_params *p, int width, int height, sb_error *err)
{
    if (p->iterations < 1 || p->iterations > SB_GC_MAX_ITER)
        return sb_fail(err, SB_ERR_USAGE, "grabcut: --iterations %d is outside 1..%d", p->iterations,
                       SB_GC_MAX_ITER);
    if (!(p->gamma > 0.0 && p->gamma <= 1e6))
        return sb_fail(err, SB_ERR_USAGE, "grabcut: --gamma %g is outside (0, 1e6]", p->gamma);
    if (!(p->lambda >= 0.0 && p->lambda <= SB_GC_ENERGY_MAX))
        return sb_fail(err, SB_ERR_USAGE, "grabcut: --lambda %g is outside [0, %g]", p->lambda, SB_GC_ENERGY_MAX);
    if (p->rect[2] <= 0 || p->rect[3] <= 0)
        return sb_fail(err, SB_ERR_USAGE, "grabcut: the rectangle %dx%d is empty (give --rect X,Y,W,H)", p->rect[2],
                       p->rect[3]);
    if (p->converge != 0 && p->converge != 1)
        return sb_fail(err, SB_ERR_USAGE, "grabcut: converge is %d (0 or 1)", p->converge);
    if (p->start && p->start->given && !p->start->mask)
        return sb_fail(err, SB_ERR_USAGE, "grabcut: a warm start without its mask");
    if (p->start && p->start->given && (p->start->width != width || p->start->height != height))
        return sb_fail(err, SB_ERR_USAGE, "grabcut: a warm start of a %dx%d frame for a %dx%d one",
                       p->start->width, p->start->height, width, height);
    int r[4];
    sb_gc_rect_clip(p, width, height, r);
    if (r[2] <= r[0] || r[3] <= r[1])
        return sb_fail(err, SB_ERR_USAGE, "grabcut: the rectangle %d,%d,%d,%d lies outside the %dx%d image", p->rect[0],
                       p->rect[1], p->rect[2], p->rect[3], width, height);
    return SB_OK;
}

void sb_gc_mask_init(const sb_grabcut_params *p, int width, int height, uint8_t *mask)
{
    int r[4];
    sb_gc_rect_clip(p, width, height, r);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            mask[(size_t)y * width + x] = x >= r[0] && x < r[2] && y >= r[1] && y < r[3] ? SB_GC_PR_FGD : SB_GC_BGD;
}

void sb_gc_mask_first(const sb_grabcut_params *p, int width, int height, uint8_t *mask)
{
    const sb_gc_start *start = p->start;
    if (!start || !start->given) {
        sb_gc_mask_init(p, width, height, mask);
        return;
    }
    int r[4];
    sb_gc_rect_clip(p, width, height, r);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            size_t i = (size_t)y * width + x;
            mask[i] = sb_gc_warm_mask(x >= r[0] && x < r[2] && y >= r[1] && y < r[3], start->mask[i]);
        }
}

long long sb_gc_rect_pixels(const sb_grabcut_params *p, int width, int height)
{
    int r[4];
    sb_gc_rect_clip(p, width, height, r);
    return (long long)(r[2] - r[0]) * (r[3] - r[1]);
}

void sb_gc_kmeans_initial(int32_t centres[2][SB_GC_K][3])
{
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < SB_GC_K; k++)
            for (int ch = 0; ch < 3; ch++)
                centres[s][k][ch] = sb_gc_kmeans_start(k);
}

/* ---- two-sided k-means ---- */

typedef struct kmeans_pass_ctx {
    sb_gc_host *h;
    sb_kmeans_prepped prepped[2][SB_GC_K];
    int first;
} kmeans_pass_ctx;

static void kmeans_band(void *ctx, int band, int bands)
{
    kmeans_pass_ctx *c = ctx;
    sb_gc_host *h = c->h;
    sb_kmeans_sums *sums = h->ksums + (size_t)band * 2 * SB_GC_K;
    memset(sums, 0, sizeof(sb_kmeans_sums) * 2 * SB_GC_K);
    long changed = 0;
    int y0, y1;
    sb_band_rows(h->height, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = sb_image_row(h->in, y);
        for (int x = 0; x < h->width; x++) {
            size_t i = (size_t)y * h->width + x;
            int side = SB_GC_SIDE(h->mask[i]);
            const uint8_t *px = row + 3 * x;
            float mr = sb_kmeans_pixel_weight(px[0]), mg = sb_kmeans_pixel_weight(px[1]),
                  mb = sb_kmeans_pixel_weight(px[2]);
            int best = 0;
            float best_score = sb_kmeans_score(c->prepped[side][0], mr, mg, mb);
            for (int k = 1; k < SB_GC_K; k++) {
                float s = sb_kmeans_score(c->prepped[side][k], mr, mg, mb);
                if (s < best_score) {
                    best_score = s;
                    best = k;
                }
            }
            changed += c->first || h->comp[i] != best;
            h->comp[i] = (uint8_t)best;
            uint64_t *s = sums[side * SB_GC_K + best];
            s[0] += px[0];
            s[1] += px[1];
            s[2] += px[2];
            s[3] += 1;
        }
    }
    h->changed[band] = changed;
}

int sb_gc_host_kmeans(sb_gc_host *h)
{
    kmeans_pass_ctx c = { .h = h };
    sb_gc_kmeans_initial(h->centres);
    int pass = 0;
    while (pass < SB_GC_KMEANS_PASSES) {
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < SB_GC_K; k++)
                c.prepped[s][k] = sb_kmeans_prep(h->centres[s][k]);
        c.first = pass == 0;
        sb_band_run(&h->runner, kmeans_band, &c);
        pass++;
        long changed = 0;
        sb_kmeans_sums total[2 * SB_GC_K];
        memset(total, 0, sizeof total);
        for (int b = 0; b < h->runner.bands; b++) {
            changed += h->changed[b];
            for (int j = 0; j < 2 * SB_GC_K; j++)
                for (int ch = 0; ch < 4; ch++)
                    total[j][ch] += h->ksums[(size_t)b * 2 * SB_GC_K + j][ch];
        }
        for (int s = 0; s < 2; s++)
            sb_kmeans_update(SB_GC_K, total + s * SB_GC_K, h->centres[s]);
        if (changed == 0)
            break;
    }
    return pass;
}

/* ---- GMM learning and assignment ---- */

static void learn_band(void *ctx, int band, int bands)
{
    sb_gc_host *h = ctx;
    uint64_t(*sums)[10] = (uint64_t(*)[10])(h->gsums + (size_t)band * 2 * SB_GC_K * 10);
    memset(sums, 0, sizeof(uint64_t) * 2 * SB_GC_K * 10);
    int y0, y1;
    sb_band_rows(h->height, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = sb_image_row(h->in, y);
        for (int x = 0; x < h->width; x++) {
            size_t i = (size_t)y * h->width + x;
            sb_gc_sums_add(sums[SB_GC_SIDE(h->mask[i]) * SB_GC_K + h->comp[i]], row + 3 * x);
        }
    }
}

void sb_gc_host_learn(sb_gc_host *h)
{
    sb_band_run(&h->runner, learn_band, h);
    uint64_t total[2][SB_GC_K][10];
    memset(total, 0, sizeof total);
    for (int b = 0; b < h->runner.bands; b++) {
        const uint64_t *s = h->gsums + (size_t)b * 2 * SB_GC_K * 10;
        for (int j = 0; j < 2 * SB_GC_K * 10; j++)
            (&total[0][0][0])[j] += s[j];
    }
    for (int side = 0; side < 2; side++)
        sb_gc_gmm_finish((const uint64_t(*)[10])total[side], &h->gmm[side]);
}

static void assign_band(void *ctx, int band, int bands)
{
    sb_gc_host *h = ctx;
    int y0, y1;
    sb_band_rows(h->height, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = sb_image_row(h->in, y);
        for (int x = 0; x < h->width; x++) {
            size_t i = (size_t)y * h->width + x;
            double energy;
            int k = sb_gc_score(&h->gmm[SB_GC_SIDE(h->mask[i])], row + 3 * x, &energy);
            h->comp[i] = (uint8_t)(k < 0 ? 0 : k);   /* a side the last learn saw empty: component 0 */
        }
    }
}

void sb_gc_host_assign(sb_gc_host *h) { sb_band_run(&h->runner, assign_band, h); }

/* ---- the graph ---- */

typedef struct graph_ctx {
    sb_gc_host *h;
    sb_gc_graph *g;
} graph_ctx;

/* |c(p) - c(q)|^2 for two RGB pixels. */
static inline int colour_d2(const uint8_t *a, const uint8_t *b)
{
    int d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* Each pixel's pairs E, SE, S, SW (maxflow.h's directions 0..3). */
static void beta_band(void *ctx, int band, int bands)
{
    graph_ctx *c = ctx;
    sb_gc_host *h = c->h;
    int y0, y1;
    uint64_t sum = 0;
    sb_band_rows(h->height, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = sb_image_row(h->in, y);
        const uint8_t *below = y + 1 < h->height ? sb_image_row(h->in, y + 1) : NULL;
        for (int x = 0; x < h->width; x++) {
            const uint8_t *px = row + 3 * x;
            if (x + 1 < h->width)
                sum += (uint64_t)colour_d2(px, px + 3);
            if (below) {
                if (x + 1 < h->width)
                    sum += (uint64_t)colour_d2(px, below + 3 * (x + 1));
                sum += (uint64_t)colour_d2(px, below + 3 * x);
                if (x > 0)
                    sum += (uint64_t)colour_d2(px, below + 3 * (x - 1));
            }
        }
    }
    h->dsums[band] = sum;
}

static void nlink_band(void *ctx, int band, int bands)
{
    graph_ctx *c = ctx;
    sb_gc_host *h = c->h;
    sb_gc_graph *g = c->g;
    double straight = h->p.gamma, diagonal = sb_ddiv(h->p.gamma, sb_dsqrt(2.0));
    int y0, y1;
    sb_band_rows(h->height, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = sb_image_row(h->in, y);
        const uint8_t *below = y + 1 < h->height ? sb_image_row(h->in, y + 1) : NULL;
        for (int x = 0; x < h->width; x++) {
            size_t i = (size_t)y * h->width + x;
            const uint8_t *px = row + 3 * x;
            int right = x + 1 < h->width, left = x > 0;
            g->nlink[0][i] = right ? sb_gc_nlink(straight, g->beta, colour_d2(px, px + 3)) : 0;
            g->nlink[1][i] = below && right ? sb_gc_nlink(diagonal, g->beta, colour_d2(px, below + 3 * (x + 1))) : 0;
            g->nlink[2][i] = below ? sb_gc_nlink(straight, g->beta, colour_d2(px, below + 3 * x)) : 0;
            g->nlink[3][i] = below && left ? sb_gc_nlink(diagonal, g->beta, colour_d2(px, below + 3 * (x - 1))) : 0;
        }
    }
}

/* The number of 8-neighbour pairs of a width x height grid. */
static uint64_t pair_count(int w, int h)
{
    uint64_t W = (uint64_t)w, H = (uint64_t)h;
    return (W - 1) * H + W * (H - 1) + 2 * (W - 1) * (H - 1);
}

void sb_gc_host_nlinks(sb_gc_host *h, sb_gc_graph *g)
{
    graph_ctx c = { h, g };
    sb_band_run(&h->runner, beta_band, &c);
    uint64_t sum = 0;
    for (int b = 0; b < h->runner.bands; b++)
        sum += h->dsums[b];
    g->beta = sb_gc_beta(sum, pair_count(h->width, h->height));
    sb_band_run(&h->runner, nlink_band, &c);
}

static void tlink_band(void *ctx, int band, int bands)
{
    graph_ctx *c = ctx;
    sb_gc_host *h = c->h;
    int y0, y1;
    sb_band_rows(h->height, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = sb_image_row(h->in, y);
        for (int x = 0; x < h->width; x++) {
            size_t i = (size_t)y * h->width + x;
            double e_bg = 0.0, e_fg = 0.0;
            int m = h->mask[i];
            if (m == SB_GC_PR_BGD || m == SB_GC_PR_FGD) {
                sb_gc_score(&h->gmm[0], row + 3 * x, &e_bg);
                sb_gc_score(&h->gmm[1], row + 3 * x, &e_fg);
            }
            c->g->term[i] = sb_gc_term(m, e_bg, e_fg, h->p.lambda);
        }
    }
}

void sb_gc_host_tlinks(sb_gc_host *h, sb_gc_graph *g)
{
    graph_ctx c = { h, g };
    sb_band_run(&h->runner, tlink_band, &c);
}

typedef struct update_ctx {
    sb_gc_host *h;
    const uint8_t *fg;
} update_ctx;

static void update_band(void *ctx, int band, int bands)
{
    update_ctx *c = ctx;
    sb_gc_host *h = c->h;
    int y0, y1;
    sb_band_rows(h->height, band, bands, &y0, &y1);
    long moved = 0;
    for (size_t i = (size_t)y0 * h->width; i < (size_t)y1 * h->width; i++)
        if (h->mask[i] == SB_GC_PR_BGD || h->mask[i] == SB_GC_PR_FGD) {
            uint8_t m = c->fg[i] ? SB_GC_PR_FGD : SB_GC_PR_BGD;
            moved += m != h->mask[i];
            h->mask[i] = m;
        }
    h->changed[band] = moved;
}

long long sb_gc_host_update_mask(sb_gc_host *h, const uint8_t *fg)
{
    update_ctx c = { h, fg };
    sb_band_run(&h->runner, update_band, &c);
    long long moved = 0;
    for (int b = 0; b < h->runner.bands; b++)
        moved += h->changed[b];
    return moved;
}
