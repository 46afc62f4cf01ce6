/* kmeans.c - k-means colour quantization: the rules every variant shares
 * (kmeans.h) and the serial reference.
 *
 * The assignment works on chunks of 64 pixels with the loops turned
 * inside out: for each centre, for each pixel of the chunk.  The inner
 * loop then has no dependence from one pixel to the next and the compiler
 * vectorises it (4 pixels an instruction with SSE2); the pixel-by-pixel
 * form, a running minimum over centres, does not.  (Checked with
 * -fopt-info-vec: GCC 12 vectorises the masked select below, not a
 * ternary on the index.)
 */
#include "segbench/kmeans.h"

#include "segbench/rng.h"
#include "segbench/variant.h"

#include "kmeans_host.h"

#include <stdlib.h>
#include <string.h>

enum { CHUNK = 64 };

sb_status sb_kmeans_check_params(const sb_kmeans_params *p, sb_error *err)
{
    if (p->k < 1 || p->k > SB_KMEANS_MAX_K)
        return sb_fail(err, SB_ERR_USAGE, "kmeans: k must be 1..%d, not %d", SB_KMEANS_MAX_K, p->k);
    if (p->init != SB_KMEANS_INIT_SPREAD && p->init != SB_KMEANS_INIT_PLUSPLUS)
        return sb_fail(err, SB_ERR_USAGE, "kmeans: unknown initialisation %d", p->init);
    if (p->max_iter < 1 || p->max_iter > SB_KMEANS_MAX_ITER)
        return sb_fail(err, SB_ERR_USAGE, "kmeans: iterations must be 1..%d, not %d", SB_KMEANS_MAX_ITER,
                       p->max_iter);
    return SB_OK;
}

/* Squared distance, in quarter levels squared, from pixel px to centre c. */
static uint32_t distance2(const uint8_t *px, const int32_t c[3])
{
    uint32_t d = 0;
    for (int ch = 0; ch < 3; ch++) {
        int32_t e = SB_KMEANS_UNIT * px[ch] - c[ch];
        d += (uint32_t)(e * e);
    }
    return d;
}

static const uint8_t *pixel_at(const sb_image *rgb, size_t i)
{
    size_t w = (size_t)rgb->width;
    return sb_image_row(rgb, (int)(i / w)) + 3 * (i % w);
}

/* kmeans++ (Arthur and Vassilvitskii 2007) in integers. */
static sb_status initial_plusplus(const sb_image *rgb, const sb_kmeans_params *p, int32_t centres[][3],
                                  sb_error *err)
{
    size_t n = (size_t)rgb->width * (size_t)rgb->height;
    uint32_t *d2 = malloc(n * sizeof *d2);
    if (!d2)
        return sb_fail(err, SB_ERR_NOMEM, "kmeans: out of memory for kmeans++ (%zu pixels)", n);
    sb_rng rng;
    sb_rng_seed(&rng, p->seed);
    const uint8_t *first = pixel_at(rgb, sb_rng_below(&rng, (uint32_t)n));
    for (int ch = 0; ch < 3; ch++)
        centres[0][ch] = SB_KMEANS_UNIT * first[ch];
    for (size_t i = 0; i < n; i++)
        d2[i] = UINT32_MAX;

    for (int c = 1; c < p->k; c++) {
        uint64_t total = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t d = distance2(pixel_at(rgb, i), centres[c - 1]);
            if (d < d2[i])
                d2[i] = d;
            total += d2[i];
        }
        if (total == 0) {           /* every pixel sits on a centre: repeat the first */
            for (; c < p->k; c++)
                memcpy(centres[c], centres[0], sizeof centres[0]);
            break;
        }
        uint64_t r = sb_rng_next(&rng) % total;   /* modulo bias below 2^-14 */
        size_t pick = 0;
        for (uint64_t run = d2[0]; run <= r; run += d2[++pick])
            ;
        const uint8_t *px = pixel_at(rgb, pick);
        for (int ch = 0; ch < 3; ch++)
            centres[c][ch] = SB_KMEANS_UNIT * px[ch];
    }
    free(d2);
    return SB_OK;
}

/* Parameters and image fit for the loop (the message names what is not). */
static sb_status check_input(const sb_image *rgb, const sb_kmeans_params *p, sb_error *err)
{
    sb_status st = sb_kmeans_check_params(p, err);
    if (!st && rgb->channels != 3)
        st = sb_fail(err, SB_ERR_USAGE, "kmeans: needs an RGB image, not %d channel(s)", rgb->channels);
    return st;
}

sb_status sb_kmeans_initial(const sb_image *rgb, const sb_kmeans_params *p, int32_t centres[][3], sb_error *err)
{
    sb_status st = check_input(rgb, p, err);
    if (st)
        return st;
    if (p->start && p->start->given) {
        memcpy(centres, p->start->centres, (size_t)p->k * sizeof p->start->centres[0]);
        return SB_OK;
    }
    if (p->init == SB_KMEANS_INIT_PLUSPLUS)
        return initial_plusplus(rgb, p, centres, err);
    for (int c = 0; c < p->k; c++) {
        int32_t v = (SB_KMEANS_UNIT * 255 * c + p->k / 2) / p->k;
        centres[c][0] = centres[c][1] = centres[c][2] = v;
    }
    return SB_OK;
}

long sb_kmeans_assign_rows(const sb_image *rgb, int y0, int y1, const sb_kmeans_prepped *centres, int k,
                           int first_pass, uint8_t *labels, sb_kmeans_sums *sums)
{
    int w = rgb->width;
    long changed = 0;
    float mr[CHUNK], mg[CHUNK], mb[CHUNK], best[CHUNK];
    int32_t nearest[CHUNK];

    for (int y = y0; y < y1; y++) {
        const uint8_t *row = sb_image_row(rgb, y);
        uint8_t *lab = labels + (size_t)y * (size_t)w;
        for (int x0 = 0; x0 < w; x0 += CHUNK) {
            int m = w - x0 < CHUNK ? w - x0 : CHUNK;
            const uint8_t *px = row + 3 * x0;
            for (int i = 0; i < m; i++) {
                mr[i] = sb_kmeans_pixel_weight(px[3 * i]);
                mg[i] = sb_kmeans_pixel_weight(px[3 * i + 1]);
                mb[i] = sb_kmeans_pixel_weight(px[3 * i + 2]);
                best[i] = sb_kmeans_score(centres[0], mr[i], mg[i], mb[i]);
                nearest[i] = 0;
            }
            for (int c = 1; c < k; c++) {
                sb_kmeans_prepped cen = centres[c];
                for (int i = 0; i < m; i++) {
                    float s = sb_kmeans_score(cen, mr[i], mg[i], mb[i]), b = best[i];
                    /* all ones where strictly nearer (ties keep the lower index); a
                     * mask, not a branch, so the loop vectorises */
                    int32_t closer = -(int32_t)(s < b);
                    nearest[i] = (nearest[i] & ~closer) | (c & closer);
                    best[i] = s < b ? s : b;
                }
            }
            for (int i = 0; i < m; i++) {
                uint8_t l = (uint8_t)nearest[i];
                changed += first_pass || lab[x0 + i] != l;
                lab[x0 + i] = l;
                sums[l][0] += px[3 * i];
                sums[l][1] += px[3 * i + 1];
                sums[l][2] += px[3 * i + 2];
                sums[l][3] += 1;
            }
        }
    }
    return changed;
}

void sb_kmeans_accumulate_rows(const sb_image *rgb, int y0, int y1, const uint8_t *labels, sb_kmeans_sums *sums)
{
    int w = rgb->width;
    for (int y = y0; y < y1; y++) {
        const uint8_t *px = sb_image_row(rgb, y);
        const uint8_t *lab = labels + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++, px += 3) {
            sums[lab[x]][0] += px[0];
            sums[lab[x]][1] += px[1];
            sums[lab[x]][2] += px[2];
            sums[lab[x]][3] += 1;
        }
    }
}

void sb_kmeans_update(int k, const sb_kmeans_sums *sums, int32_t centres[][3])
{
    for (int c = 0; c < k; c++) {
        if (sums[c][3] == 0)
            continue;                     /* empty: keeps its previous centre */
        for (int ch = 0; ch < 3; ch++)
            centres[c][ch] = sb_kmeans_mean(sums[c][ch], sums[c][3]);
    }
}

sb_status sb_kmeans_host_loop(const sb_kmeans_params *p, const int32_t initial[][3], sb_kmeans_pass_fn pass,
                              void *ctx, sb_kmeans_out *out, sb_error *err)
{
    sb_kmeans_prepped prepped[SB_KMEANS_MAX_K];
    sb_kmeans_sums sums[SB_KMEANS_MAX_K];
    memcpy(out->centres, initial, (size_t)p->k * sizeof out->centres[0]);
    out->k = p->k;
    int pass_no;
    for (pass_no = 1; pass_no <= p->max_iter; pass_no++) {
        for (int c = 0; c < p->k; c++)
            prepped[c] = sb_kmeans_prep(out->centres[c]);
        memset(sums, 0, (size_t)p->k * sizeof sums[0]);
        long changed = 0;
        sb_status st = pass(ctx, prepped, pass_no == 1, sums, &changed, err);
        if (st)
            return st;
        sb_kmeans_update(p->k, sums, out->centres);
        if (!p->fixed && changed == 0)
            break;
    }
    out->iterations = pass_no > p->max_iter ? p->max_iter : pass_no;
    return SB_OK;
}

/* ---- host-driven variants ------------------------------------------------ */

sb_status sb_kmeans_host_open(size_t size, void **state, const sb_image *in, const void *params, void *output,
                              int threads, const char *who, sb_error *err)
{
    *state = NULL;
    sb_kmeans_host *h = calloc(1, size);
    if (!h)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", who);
    h->in = in;
    h->params = *(const sb_kmeans_params *)params;
    h->out = output;
    h->threads = threads;
    sb_status st = check_input(in, &h->params, err);     /* the centres themselves at each run */
    if (st) {
        free(h);
        return st;
    }
    *state = h;
    return SB_OK;
}

/* The initial centres are the frame's: a stream points the input at each
 * frame in turn, and a warm start changes from frame to frame. */
sb_status sb_kmeans_host_run(sb_kmeans_host *h, sb_kmeans_pass_fn pass, sb_error *err)
{
    sb_status st = sb_kmeans_initial(h->in, &h->params, h->initial, err);
    return st ? st : sb_kmeans_host_loop(&h->params, (const int32_t(*)[3])h->initial, pass, h, h->out, err);
}

sb_status sb_kmeans_host_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

/* ---- the serial variant -------------------------------------------------- */

static sb_status serial_pass(void *ctx, const sb_kmeans_prepped *centres, int first_pass, sb_kmeans_sums *sums,
                             long *changed, sb_error *err)
{
    (void)err;
    sb_kmeans_host *h = ctx;
    *changed = sb_kmeans_assign_rows(h->in, 0, h->in->height, centres, h->params.k, first_pass, h->out->labels,
                                     sums);
    return SB_OK;
}

sb_status sb_kmeans_serial(const sb_image *rgb, const sb_kmeans_params *p, sb_kmeans_out *out, sb_error *err)
{
    sb_kmeans_host h = { rgb, *p, out, 1, { { 0 } } };
    return sb_kmeans_host_run(&h, serial_pass, err);
}

static sb_status serial_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    return sb_kmeans_host_open(sizeof(sb_kmeans_host), state, in, params, output, 1, exec->who, err);
}

static sb_status serial_run(void *state, sb_error *err) { return sb_kmeans_host_run(state, serial_pass, err); }

SB_VARIANT("kmeans", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: chunks of 64 pixels, centres outer, pixels inner (vectorised)",
           serial_prepare, NULL, serial_run, sb_kmeans_host_fetch, free)
