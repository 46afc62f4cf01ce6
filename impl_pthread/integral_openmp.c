/* integral_openmp.c - integral image with OpenMP (variant "openmp").
 *
 * Horizontal strips, one per thread, in one parallel region with two
 * loops over the strips (the end of the first is the barrier):
 *   1. each strip's column totals (1 byte read per pixel, nothing written
 *      but one row);
 *   2. each strip adds the totals of the strips above it (the column sums
 *      of everything above it), turns them into the integral row just
 *      above it with one running sum, and then runs the serial scan over
 *      the strip starting from that row.
 * Both loops are scheduled statically over the same count, which OpenMP
 * promises gives strip t to the same thread twice: its second pass finds
 * the strip in that core's cache.  Without the pragmas the two loops run
 * one after the other and are the serial algorithm, exactly.
 * The image is read twice (the second time mostly from the core's own
 * cache) and the output written once: 2 + 4 bytes a pixel for the sums,
 * against 13 for the two-phase pthread variant.
 */
#include "segbench/integral.h"
#include "segbench/variant.h"

#include "integral_host.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef struct openmp_state {
    const sb_image *in;
    sb_integral_out *out;
    int squares;
    int threads;
    uint32_t *totals;      /* threads x width: each strip's column totals */
    uint64_t *totals_sq;
    uint32_t *above;       /* threads x width: the integral row above each strip */
    uint64_t *above_sq;
} openmp_state;

static void strip_rows(const openmp_state *s, int strip, int *y0, int *y1)
{
    long h = s->in->height;
    *y0 = (int)(h * strip / s->threads);
    *y1 = (int)(h * (strip + 1) / s->threads);
}

/* 1. the column totals of strip t */
static void strip_totals(openmp_state *s, int t)
{
    const sb_image *in = s->in;
    size_t w = (size_t)in->width;
    int y0, y1;
    strip_rows(s, t, &y0, &y1);
    uint32_t *tot = s->totals + (size_t)t * w;
    uint64_t *tot_sq = s->squares ? s->totals_sq + (size_t)t * w : NULL;
    memset(tot, 0, w * sizeof *tot);
    if (tot_sq)
        memset(tot_sq, 0, w * sizeof *tot_sq);
    for (int y = y0; y < y1; y++) {
        const uint8_t *src = sb_image_row(in, y);
        for (size_t x = 0; x < w; x++)
            tot[x] += src[x];
        if (tot_sq)
            for (size_t x = 0; x < w; x++)
                tot_sq[x] += (uint32_t)src[x] * src[x];
    }
}

/* 2. the integral row above strip t, then the serial scan of the strip */
static void strip_scan(openmp_state *s, int t)
{
    const sb_image *in = s->in;
    size_t w = (size_t)in->width;
    int y0, y1;
    strip_rows(s, t, &y0, &y1);
    uint64_t *tot_sq = s->squares ? s->totals_sq + (size_t)t * w : NULL;
    uint32_t *above = s->above + (size_t)t * w;
    uint64_t *above_sq = tot_sq ? s->above_sq + (size_t)t * w : NULL;
    memset(above, 0, w * sizeof *above);
    for (int u = 0; u < t; u++)
        for (size_t x = 0; x < w; x++)
            above[x] += s->totals[(size_t)u * w + x];
    uint32_t run = 0;
    for (size_t x = 0; x < w; x++)
        above[x] = run += above[x];
    if (above_sq) {
        memset(above_sq, 0, w * sizeof *above_sq);
        for (int u = 0; u < t; u++)
            for (size_t x = 0; x < w; x++)
                above_sq[x] += s->totals_sq[(size_t)u * w + x];
        uint64_t run_sq = 0;
        for (size_t x = 0; x < w; x++)
            above_sq[x] = run_sq += above_sq[x];
    }
    sb_integral_serial_rows(in->data, in->stride, in->width, y0, y1, t ? above : NULL,
                            t ? above_sq : NULL, s->out->sum, tot_sq ? s->out->sqsum : NULL);
}

static void openmp_release(void *state)
{
    openmp_state *s = state;
    if (s) {
        free(s->totals);
        free(s->totals_sq);
        free(s->above);
        free(s->above_sq);
    }
    free(s);
}

static sb_status openmp_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    openmp_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "integral/openmp: out of memory");
    s->in = in;
    s->out = output;
    s->squares = ((const sb_integral_params *)params)->squares;
    s->threads = exec->threads;
    size_t n = (size_t)s->threads * (size_t)in->width;
    s->totals = malloc(n * sizeof *s->totals);
    s->above = malloc(n * sizeof *s->above);
    if (s->squares) {
        s->totals_sq = malloc(n * sizeof *s->totals_sq);
        s->above_sq = malloc(n * sizeof *s->above_sq);
    }
    if (!s->totals || !s->above || (s->squares && (!s->totals_sq || !s->above_sq))) {
        openmp_release(s);
        return sb_fail(err, SB_ERR_NOMEM, "integral/openmp: out of memory for column totals");
    }
    *state = s;
    return SB_OK;
}

static sb_status openmp_run(void *state, sb_error *err)
{
    (void)err;
    openmp_state *s = state;
    int strips = s->threads;
    omp_set_dynamic(0);
#pragma omp parallel num_threads(strips)
    {
#pragma omp for schedule(static)
        for (int t = 0; t < strips; t++)
            strip_totals(s, t);
#pragma omp for schedule(static)
        for (int t = 0; t < strips; t++)
            strip_scan(s, t);
    }
    return SB_OK;
}

static sb_status openmp_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

SB_VARIANT("integral", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "strips: column totals, then one serial pass per strip from its carry row",
           openmp_prepare, NULL, openmp_run, openmp_fetch, openmp_release)
