/* slic.c - SLIC superpixels: the rules every variant shares (slic.h), the
 * host algorithm as band-parallel phases, and the serial reference.
 *
 * Phases (each over bands of rows, bands.h):
 *   convert  - RGB to fixed-point colour, one pixel at a time
 *   assign   - each pixel's nearest of 9 centres; the band adds its pixels
 *              into its own sums, for the cell rows it can reach only
 *   update   - bands split the centres; each centre adds the bands' sums
 *              that cover it and applies the update rule
 *   connectivity (regions.c), or the majority filter, twice
 * Integer sums make the result independent of the number of bands.
 */
#include "segbench/slic.h"

#include "segbench/variant.h"

#include "slic_host.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters and geometry -------------------------------------------- */

sb_status sb_slic_check_params(const sb_slic_params *p, sb_error *err)
{
    if (p->segments < 0 || (p->segments == 0 && p->size < 1))
        return sb_fail(err, SB_ERR_USAGE, "slic: the number of superpixels must be at least 1, not %d",
                       p->segments ? p->segments : p->size);
    if (p->segments == 0 && p->size > SB_MAX_SIDE)
        return sb_fail(err, SB_ERR_USAGE, "slic: superpixel size %d is above the largest image side %d", p->size,
                       SB_MAX_SIDE);
    if (p->iterations < 1 || p->iterations > SB_SLIC_MAX_ITER)
        return sb_fail(err, SB_ERR_USAGE, "slic: iterations must be 1..%d, not %d", SB_SLIC_MAX_ITER, p->iterations);
    if (!(p->weight >= 0.0f && p->weight <= 1000.0f))
        return sb_fail(err, SB_ERR_USAGE, "slic: weight must be in 0..1000, not %g", (double)p->weight);
    if (p->space != SB_SLIC_LAB && p->space != SB_SLIC_XYZ && p->space != SB_SLIC_RGB)
        return sb_fail(err, SB_ERR_USAGE, "slic: unknown colour space %d", p->space);
    if (p->connectivity != SB_SLIC_CONNECT_FULL && p->connectivity != SB_SLIC_CONNECT_MAJORITY &&
        p->connectivity != SB_SLIC_CONNECT_NONE)
        return sb_fail(err, SB_ERR_USAGE, "slic: unknown connectivity mode %d", p->connectivity);
    if (p->converge != 0 && p->converge != 1)
        return sb_fail(err, SB_ERR_USAGE, "slic: converge is 0 or 1, not %d", p->converge);
    return SB_OK;
}

sb_status sb_slic_geometry_init(sb_slic_geometry *g, int width, int height, const sb_slic_params *p, sb_error *err)
{
    sb_status st = sb_slic_check_params(p, err);
    if (st)
        return st;
    if (width < 1 || height < 1)
        return sb_fail(err, SB_ERR_USAGE, "slic: empty image (%dx%d)", width, height);
    memset(g, 0, sizeof *g);
    g->width = width;
    g->height = height;
    long long pixels = (long long)width * height;
    if (p->segments > 0) {
        if (p->segments > pixels)
            return sb_fail(err, SB_ERR_USAGE, "slic: %d superpixels asked of a %dx%d image (%lld pixels)",
                           p->segments, width, height, pixels);
        /* the least S with S^2 >= pixels / segments, in integers */
        long long s = (long long)sqrt((double)pixels / p->segments);
        while (s * s * p->segments < pixels)
            s++;
        while (s > 1 && (s - 1) * (s - 1) * p->segments >= pixels)
            s--;
        g->S = (int)(s < 1 ? 1 : s);
    } else {
        g->S = p->size;
    }
    g->grid_w = (width + g->S - 1) / g->S;
    g->grid_h = (height + g->S - 1) / g->S;
    g->centres = g->grid_w * g->grid_h;

    /* The source's normalisers, divided by the squares of the fixed-point
     * units; computed in double, rounded once to float. */
    double colour_norm, unit;
    switch (p->space) {
    case SB_SLIC_XYZ: colour_norm = (5.0 / 1.7321) * (5.0 / 1.7321); unit = 16384.0; break;
    case SB_SLIC_RGB: colour_norm = (5.0 / (1.7321 * 255.0)) * (5.0 / (1.7321 * 255.0)); unit = 64.0; break;
    default: colour_norm = (15.0 / (1.7321 * 128.0)) * (15.0 / (1.7321 * 128.0)); unit = 64.0; break;
    }
    double xy_norm = 1.0 / ((1.4242 * g->S) * (1.4242 * g->S));
    g->cn = (float)(colour_norm / (unit * unit));
    g->wxy = (float)((double)p->weight * xy_norm / (SB_SLIC_XY_UNIT * SB_SLIC_XY_UNIT));
    g->min_piece = g->S * g->S / SB_SLIC_MERGE_DIVISOR;
    return SB_OK;
}

/* ---- sRGB linearisation ------------------------------------------------- */

static float linear_table[256];
static pthread_once_t linear_once = PTHREAD_ONCE_INIT;

static void linear_init(void)
{
    for (int v = 0; v < 256; v++) {
        double c = v / 255.0;
        linear_table[v] = (float)(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
    }
}

const float *sb_slic_linear_table(void)
{
    pthread_once(&linear_once, linear_init);
    return linear_table;
}

/* ---- the phases ------------------------------------------------------------ */

static void phase_convert(void *ctx, int band, int bands)
{
    sb_slic_host *h = ctx;
    const float *linear = sb_slic_linear_table();
    int w = h->in->width, y0, y1;
    sb_band_rows(h->in->height, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        const uint8_t *px = sb_image_row(h->in, y);
        uint16_t *out = h->colour + 3 * (size_t)y * w;
        for (int x = 0; x < w; x++)
            sb_slic_convert(linear, h->params.space, px[3 * x], px[3 * x + 1], px[3 * x + 2], out + 3 * x);
    }
}

static void initial_centres(sb_slic_host *h)
{
    const sb_slic_geometry *g = &h->geo;
    const sb_slic_start *warm = h->params.start;
    if (warm && warm->given) {              /* sb_slic_host_open checked its count */
        memcpy(h->out->centres, warm->centres, (size_t)g->centres * sizeof *warm->centres);
        return;
    }
    for (int gy = 0; gy < g->grid_h; gy++)
        for (int gx = 0; gx < g->grid_w; gx++) {
            sb_slic_centre *c = &h->out->centres[gy * g->grid_w + gx];
            int x, y;
            sb_slic_initial_position(gx, gy, g->S, g->width, g->height, &x, &y);
            c->x = SB_SLIC_XY_UNIT * x;
            c->y = SB_SLIC_XY_UNIT * y;
            memcpy(c->colour, h->colour + 3 * ((size_t)y * g->width + x), sizeof c->colour);
            c->pad = 0;
        }
}

/* The nearest of the 9 centres around pixel (x, y) (slic.h's order). */
static int32_t nearest_centre(const sb_slic_geometry *g, const sb_slic_centre *centres, int x, int y,
                              const uint16_t colour[3])
{
    int gx = x / g->S, gy = y / g->S;
    float px = (float)(SB_SLIC_XY_UNIT * x), py = (float)(SB_SLIC_XY_UNIT * y);
    const float pc[3] = { colour[0], colour[1], colour[2] };
    int32_t best_c = -1;
    float best = INFINITY;
    for (int cy = gy - 1; cy <= gy + 1; cy++) {
        if (cy < 0 || cy >= g->grid_h)
            continue;
        for (int cx = gx - 1; cx <= gx + 1; cx++) {
            if (cx < 0 || cx >= g->grid_w)
                continue;
            int32_t id = cy * g->grid_w + cx;
            const sb_slic_centre *c = &centres[id];
            const float cc[3] = { c->colour[0], c->colour[1], c->colour[2] };
            float d = sb_slic_distance(g->cn, g->wxy, px, py, pc, (float)c->x, (float)c->y, cc);
            if (d < best) {
                best = d;
                best_c = id;
            }
        }
    }
    return best_c;
}

static void phase_assign(void *ctx, int band, int bands)
{
    sb_slic_host *h = ctx;
    const sb_slic_geometry *g = &h->geo;
    int w = g->width, y0, y1;
    sb_band_rows(g->height, band, bands, &y0, &y1);
    sb_slic_sums *sums = h->band_sums + (size_t)band * g->centres;
    int lo = y0 / g->S - 1, hi = y1 > y0 ? (y1 - 1) / g->S + 1 : -1;
    lo = lo < 0 ? 0 : lo;
    hi = hi >= g->grid_h ? g->grid_h - 1 : hi;
    h->band_lo[band] = lo;
    h->band_hi[band] = hi;
    if (hi >= lo)
        memset(sums + (size_t)lo * g->grid_w, 0, (size_t)(hi - lo + 1) * g->grid_w * sizeof *sums);
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            const uint16_t *colour = h->colour + 3 * i;
            int32_t c = nearest_centre(g, h->out->centres, x, y, colour);
            h->out->labels[i] = c;
            uint64_t *s = sums[c];
            s[0] += (uint64_t)x;
            s[1] += (uint64_t)y;
            s[2] += colour[0];
            s[3] += colour[1];
            s[4] += colour[2];
            s[5] += 1;
        }
}

static void phase_update(void *ctx, int band, int bands)
{
    sb_slic_host *h = ctx;
    const sb_slic_geometry *g = &h->geo;
    int c0 = (int)((long long)g->centres * band / bands), c1 = (int)((long long)g->centres * (band + 1) / bands);
    int unsettled = 0;
    for (int c = c0; c < c1; c++) {
        int row = c / g->grid_w;
        uint64_t total[6] = { 0 };
        for (int b = 0; b < bands; b++)
            if (row >= h->band_lo[b] && row <= h->band_hi[b])
                for (int k = 0; k < 6; k++)
                    total[k] += h->band_sums[(size_t)b * g->centres + c][k];
        sb_slic_centre was = h->out->centres[c];
        sb_slic_update_centre(&h->out->centres[c], total);
        unsettled += sb_slic_unsettled(&was, &h->out->centres[c]);
    }
    h->band_unsettled[band] = unsettled;
}

/* One majority filter pass, filter_from -> filter_to. */
static void phase_majority(void *ctx, int band, int bands)
{
    sb_slic_host *h = ctx;
    int w = h->geo.width, ht = h->geo.height, y0, y1;
    sb_band_rows(ht, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++)
            h->filter_to[(size_t)y * w + x] = sb_slic_majority(h->filter_from, w, ht, x, y);
}

static void phase_mark_used(void *ctx, int band, int bands)
{
    sb_slic_host *h = ctx;
    int y0, y1;
    sb_band_rows(h->geo.height, band, bands, &y0, &y1);
    for (size_t i = (size_t)y0 * h->geo.width; i < (size_t)y1 * h->geo.width; i++)
        if (!h->used[h->out->labels[i]])
            __atomic_store_n(&h->used[h->out->labels[i]], 1, __ATOMIC_RELAXED);
}

/* ---- the host algorithm ------------------------------------------------------ */

sb_status sb_slic_host_open(sb_slic_host *h, const char *who, const sb_image *in, const void *params,
                            void *output, sb_band_runner runner, sb_error *err)
{
    h->who = who;
    h->in = in;
    h->params = *(const sb_slic_params *)params;
    h->out = output;
    h->runner = runner;
    sb_status st = sb_slic_geometry_init(&h->geo, in->width, in->height, &h->params, err);
    if (st)
        return st;
    if (in->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs an RGB image, not %d channel(s)", who, in->channels);
    size_t n = (size_t)in->width * (size_t)in->height;
    int bands = runner.bands;
    h->colour = malloc(3 * n * sizeof *h->colour);
    h->band_sums = malloc((size_t)bands * h->geo.centres * sizeof *h->band_sums);
    h->band_lo = malloc((size_t)bands * sizeof *h->band_lo);
    h->band_hi = malloc((size_t)bands * sizeof *h->band_hi);
    h->used = malloc((size_t)h->geo.centres);
    h->band_unsettled = calloc((size_t)bands, sizeof *h->band_unsettled);
    if (h->params.connectivity == SB_SLIC_CONNECT_MAJORITY)
        h->spare = malloc(n * sizeof *h->spare);
    const sb_slic_start *warm = h->params.start;
    if (warm && warm->given && (warm->count != h->geo.centres || !warm->centres))
        return sb_fail(err, SB_ERR_USAGE, "%s: a warm start of %d centres for a grid of %d", who, warm->count,
                       h->geo.centres);
    if (!h->colour || !h->band_sums || !h->band_lo || !h->band_hi || !h->used || !h->band_unsettled ||
        (h->params.connectivity == SB_SLIC_CONNECT_MAJORITY && !h->spare))
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for a %dx%d image", who, in->width, in->height);
    if (h->params.connectivity == SB_SLIC_CONNECT_FULL)
        return sb_regions_alloc(&h->regions, in->width, in->height, bands, err);
    return SB_OK;
}

sb_status sb_slic_host_run(sb_slic_host *h, sb_error *err)
{
    (void)err;
    const sb_band_runner *run = &h->runner;
    sb_band_run(run, phase_convert, h);
    initial_centres(h);
    sb_slic_out *o = h->out;
    o->iterations = 0;
    for (int it = 0; it < h->params.iterations; it++) {
        sb_band_run(run, phase_assign, h);
        sb_band_run(run, phase_update, h);
        o->iterations++;
        long unsettled = 0;
        for (int b = 0; b < run->bands; b++)
            unsettled += h->band_unsettled[b];
        if (h->params.converge && sb_slic_settled(unsettled, h->geo.centres))
            break;
    }
    if (h->params.connectivity == SB_SLIC_CONNECT_FULL) {
        o->superpixels = sb_regions_enforce(&h->regions, run, o->labels, h->geo.min_piece);
        return SB_OK;
    }
    if (h->params.connectivity == SB_SLIC_CONNECT_MAJORITY) {   /* twice: labels -> spare -> labels */
        h->filter_from = o->labels;
        h->filter_to = h->spare;
        sb_band_run(run, phase_majority, h);
        h->filter_from = h->spare;
        h->filter_to = o->labels;
        sb_band_run(run, phase_majority, h);
    }
    memset(h->used, 0, (size_t)h->geo.centres);
    sb_band_run(run, phase_mark_used, h);
    o->superpixels = 0;
    for (int c = 0; c < h->geo.centres; c++)
        o->superpixels += h->used[c];
    return SB_OK;
}

void sb_slic_host_close(sb_slic_host *h)
{
    free(h->colour);
    free(h->band_sums);
    free(h->band_lo);
    free(h->band_hi);
    free(h->spare);
    free(h->used);
    free(h->band_unsettled);
    sb_regions_free(&h->regions);
}

/* ---- what the host variants share, and the serial variant ------------------ */

sb_status sb_slic_host_prepare(void **state, const char *who, const sb_image *in, const void *params,
                               void *output, sb_band_runner runner, sb_error *err)
{
    *state = NULL;
    sb_slic_host *h = calloc(1, sizeof *h);
    if (!h)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", who);
    sb_status st = sb_slic_host_open(h, who, in, params, output, runner, err);
    if (st) {
        sb_slic_host_release(h);
        return st;
    }
    *state = h;
    return SB_OK;
}

sb_status sb_slic_host_run_state(void *state, sb_error *err) { return sb_slic_host_run(state, err); }

sb_status sb_slic_host_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

void sb_slic_host_release(void *state)
{
    if (state)
        sb_slic_host_close(state);
    free(state);
}

sb_status sb_slic_serial(const sb_image *rgb, const sb_slic_params *p, sb_slic_out *out, sb_error *err)
{
    sb_slic_host h;
    memset(&h, 0, sizeof h);
    sb_status st = sb_slic_host_open(&h, "slic/cpu", rgb, p, out, sb_band_serial(), err);
    if (!st)
        st = sb_slic_host_run(&h, err);
    sb_slic_host_close(&h);
    return st;
}

static sb_status serial_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    return sb_slic_host_prepare(state, exec->who, in, params, output, sb_band_serial(), err);
}

SB_VARIANT("slic", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: 9-centre assignment, integer sums, union-find connectivity",
           serial_prepare, NULL, sb_slic_host_run_state, sb_slic_host_fetch, sb_slic_host_release)
