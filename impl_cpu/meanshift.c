/* meanshift.c - mean-shift on the host: parameters, the partition
 * comparison, the host variants' plumbing and the serial reference.  The
 * steps themselves are in meanshift_filter.c and meanshift_regions.c. */
#include "meanshift_host.h"

#include "segbench/variant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const step_names[] = { "meanshift-filter", "meanshift-flood", "meanshift-merge", "meanshift" };

sb_status sb_ms_check_params(const sb_ms_params *p, int step, sb_error *err)
{
    const char *who = step >= 0 && step <= SB_MS_PIPELINE ? step_names[step] : "meanshift";
    if (p->radius < 1 || p->radius > SB_MS_MAX_RADIUS)
        return sb_fail(err, SB_ERR_USAGE, "%s: radius must be 1..%d, not %d", who, SB_MS_MAX_RADIUS, p->radius);
    if (p->range < 0 || p->range > SB_MS_MAX_RANGE)
        return sb_fail(err, SB_ERR_USAGE, "%s: colour range must be 0..%d, not %d", who, SB_MS_MAX_RANGE, p->range);
    if (p->max_iter < 1 || p->max_iter > SB_MS_MAX_ITER)
        return sb_fail(err, SB_ERR_USAGE, "%s: max-iter must be 1..%d, not %d", who, SB_MS_MAX_ITER, p->max_iter);
    if (p->min_area < 0 || (size_t)p->min_area > SB_MAX_PIXELS)
        return sb_fail(err, SB_ERR_USAGE, "%s: min-area must be 0..%zu, not %d", who, SB_MAX_PIXELS, p->min_area);
    if (step == SB_MS_MERGE && !p->flood)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs the flood step's labels", who);
    return SB_OK;
}

/* ---- pictures ----------------------------------------------------------------------- */

static double srgb_gamma(double c) { return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1.0 / 2.4) - 0.055; }

void sb_ms_luv_to_rgb(uint32_t luv, uint8_t rgb[3])
{
    double L = (double)(luv & 255u), u = (luv >> 8 & 255u) * 354.0 / 255.0 - 134.0,
           v = (luv >> 16 & 255u) * 262.0 / 255.0 - 140.0;
    double Y = L > 8.0 ? pow((L + 16.0) / 116.0, 3.0) : L / 903.3, X = 0.0, Z = 0.0;
    if (L > 0.0) {
        double up = u / (13.0 * L) + 0.19793943, vp = v / (13.0 * L) + 0.46831096;
        X = Y * 9.0 * up / (4.0 * vp);
        Z = Y * (12.0 - 3.0 * up - 20.0 * vp) / (4.0 * vp);
    }
    double lin[3] = { 3.240479 * X - 1.537150 * Y - 0.498535 * Z, -0.969256 * X + 1.875992 * Y + 0.041556 * Z,
                      0.055648 * X - 0.204043 * Y + 1.057311 * Z };
    for (int c = 0; c < 3; c++) {
        double s = srgb_gamma(lin[c] < 0.0 ? 0.0 : lin[c] > 1.0 ? 1.0 : lin[c]) * 255.0 + 0.5;
        rgb[c] = (uint8_t)(s > 255.0 ? 255.0 : s);
    }
}

/* ---- the host variants ---------------------------------------------------------------- */

typedef struct ms_host {
    const char *who;
    int step;
    const sb_image *in;
    sb_ms_params p;
    sb_band_runner runner;
    void *out;
    uint32_t *luv, *filtered;      /* filter and pipeline: converted input, modes */
    int32_t *flood;                /* pipeline: the flood labels */
    sb_ms_scratch scratch;
} ms_host;

void sb_ms_host_release(void *state)
{
    ms_host *h = state;
    if (!h)
        return;
    free(h->luv);
    if (h->step == SB_MS_PIPELINE)
        free(h->filtered);
    free(h->flood);
    sb_ms_scratch_free(&h->scratch);
    free(h);
}

sb_status sb_ms_host_prepare(void **state, int step, const char *who, const sb_image *in, const void *params,
                             void *output, sb_band_runner runner, sb_error *err)
{
    *state = NULL;
    const sb_ms_params *p = params;
    sb_status st = sb_ms_check_params(p, step, err);
    if (st)
        return st;
    int rgb = step == SB_MS_FILTER || step == SB_MS_PIPELINE;
    if (in->width < 1 || in->height < 1)
        return sb_fail(err, SB_ERR_USAGE, "%s: empty image (%dx%d)", who, in->width, in->height);
    if (in->channels != (rgb ? 3 : 4) || (!rgb && in->stride != 4 * (size_t)in->width))
        return sb_fail(err, SB_ERR_USAGE, "%s: needs %s input, got %d channels", who,
                       rgb ? "RGB" : "packed LUV (4 bytes a pixel, rows packed)", in->channels);
    ms_host *h = calloc(1, sizeof *h);
    if (!h)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", who);
    h->who = who;
    h->step = step;
    h->in = in;
    h->p = *p;
    h->runner = runner;
    h->out = output;
    size_t n = (size_t)in->width * (size_t)in->height;
    int ok = 1;
    if (rgb) {
        h->luv = malloc(n * sizeof *h->luv);
        h->filtered = step == SB_MS_FILTER ? ((sb_ms_luv *)output)->luv : malloc(n * sizeof *h->filtered);
        ok = h->luv && h->filtered;
    }
    if (step == SB_MS_PIPELINE)
        ok = ok && (h->flood = malloc(n * sizeof *h->flood));
    if (!ok) {
        sb_ms_host_release(h);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for %dx%d", who, in->width, in->height);
    }
    if (step != SB_MS_FILTER && (st = sb_ms_scratch_alloc(&h->scratch, in->width, in->height, runner.bands, err))) {
        sb_ms_host_release(h);
        return st;
    }
    *state = h;
    return SB_OK;
}

sb_status sb_ms_host_run(void *state, sb_error *err)
{
    (void)err;
    ms_host *h = state;
    const sb_band_runner *run = &h->runner;
    int w = h->in->width, ht = h->in->height;
    const uint32_t *packed = (const uint32_t *)h->in->data;   /* flood, merge: 4-byte aligned pinned rows */
    if (h->step == SB_MS_FILTER || h->step == SB_MS_PIPELINE) {
        sb_ms_host_convert(run, h->in, h->luv);
        sb_ms_host_filter(run, w, ht, h->luv, &h->p, h->filtered);
    }
    sb_ms_regions *r = h->out;
    if (h->step == SB_MS_FLOOD)
        r->count = sb_ms_host_flood(run, &h->scratch, packed, h->p.range, r->labels);
    else if (h->step == SB_MS_MERGE)
        r->count = sb_ms_host_merge(run, &h->scratch, packed, h->p.flood, &h->p, r->labels);
    else if (h->step == SB_MS_PIPELINE) {
        sb_ms_host_flood(run, &h->scratch, h->filtered, h->p.range, h->flood);
        r->count = sb_ms_host_merge(run, &h->scratch, h->filtered, h->flood, &h->p, r->labels);
    }
    return SB_OK;
}

sb_status sb_ms_host_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

sb_status sb_ms_serial(int step, const sb_image *in, const sb_ms_params *p, void *out, sb_error *err)
{
    void *state;
    sb_status st = sb_ms_host_prepare(&state, step, step_names[step], in, p, out, sb_band_serial(), err);
    if (st)
        return st;
    st = sb_ms_host_run(state, err);
    sb_ms_host_release(state);
    return st;
}

/* The serial variants: a prepare for each step, then their registrations. */
#define MS_CPU_PREPARE(fn, step)                                                                              \
    static sb_status fn(void **state, const sb_image *in, const void *params, void *output,                   \
                        const sb_exec *exec, sb_error *err)                                                    \
    {                                                                                                          \
        return sb_ms_host_prepare(state, step, exec->who, in, params, output, sb_band_serial(), err);         \
    }
MS_CPU_PREPARE(filter_prepare, SB_MS_FILTER)
MS_CPU_PREPARE(flood_prepare, SB_MS_FLOOD)
MS_CPU_PREPARE(merge_prepare, SB_MS_MERGE)
MS_CPU_PREPARE(pipeline_prepare, SB_MS_PIPELINE)

SB_VARIANT("meanshift-filter", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: per pixel, window row sums the compiler vectorises",
           filter_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
SB_VARIANT("meanshift-flood", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: join bits, then union-find keeping the smaller root",
           flood_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
SB_VARIANT("meanshift-merge", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: means, fusion union-find, pruning rounds, numbering",
           merge_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
SB_VARIANT("meanshift", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: the three steps in turn",
           pipeline_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
