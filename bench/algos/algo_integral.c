/* algo_integral.c - the harness's view of the integral image: stages,
 * outputs and how each is checked, bytes moved and pictures. */
#include "variants/algo.h"

#include "variants/outputs.h"
#include "algos/pictures.h"

#include "segbench/device.h"
#include "segbench/image_io.h"
#include "segbench/integral.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const integral_stages[] = { "sum", "sqsum" };

static void integral_params_default(void *params, int stage)
{
    sb_integral_params *p = params;
    p->squares = stage == SB_INTEGRAL_STAGE_SQSUM;
}

static sb_status integral_params_option(void *params, const char *key, const char *value, sb_error *err)
{
    (void)params;
    (void)value;
    return sb_fail(err, SB_ERR_USAGE, "integral: unknown option --%s (it takes no options of its own)", key);
}

static sb_status integral_output_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l,
                                        sb_error *err)
{
    (void)err;
    sb_integral_out *o = out;
    size_t n = (size_t)in->width * (size_t)in->height;
    o->width = in->width;
    o->height = in->height;
    SB_OUT_PLANE(l, sb_integral_out, sum, "sums", SB_ELEM_UINT, n, in->width);
    sb_out_check(l, SB_CHECK_EXACT, SB_PART_INT32_RANGE);   /* NPP's sums are int32 */
    if (((const sb_integral_params *)params)->squares)
        SB_OUT_PLANE(l, sb_integral_out, sqsum, "squared sums", SB_ELEM_UINT, n, in->width);
    return SB_OK;
}

/* The floor (a widening copy) must give each pixel, and its square. */
static void integral_floor_output(const sb_image *in, const void *params, void *expected)
{
    sb_integral_out *e = expected;
    int squares = ((const sb_integral_params *)params)->squares;
    for (int y = 0; y < in->height; y++) {
        const uint8_t *row = sb_image_row(in, y);
        for (int x = 0; x < in->width; x++) {
            size_t i = (size_t)y * (size_t)in->width + (size_t)x;
            e->sum[i] = row[x];
            if (squares)
                e->sqsum[i] = (uint64_t)row[x] * row[x];
        }
    }
}

static double integral_bytes(const sb_image *in, const void *params, const void *ref)
{
    (void)ref;
    const sb_integral_params *p = params;
    double px = (double)in->width * (double)in->height;
    return px * (1.0 + 4.0 + (p->squares ? 8.0 : 0.0));
}

/* The table scaled to 0..255 (black top-left, white at the largest sum).
 * The u32 sums wrap past 2^32 (an image of more than 16.8 Mpx of white);
 * the true sums are rebuilt in 64 bits first: down column 0 each step adds
 * one pixel, along a row each step adds a column sum of at most
 * 255 * height < 2^32, so each step is the u32 difference, exactly.  The
 * scaling multiplies in 64 bits (a u32 sum times 255 overflowed past
 * 16.8 M and drew a wrap-around band). */
static sb_status integral_picture_sat(const sb_integral_out *o, sb_image *pic, sb_error *err)
{
    sb_status st = sb_image_alloc(pic, o->width, o->height, 1, err);
    if (st)
        return st;
    size_t w = (size_t)o->width, h = (size_t)o->height;
    uint64_t *sum = malloc(w * h * sizeof *sum);
    if (!sum) {
        sb_image_free(pic);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory for the table picture");
    }
    uint64_t max = 1, left = 0;
    for (size_t y = 0; y < h; y++) {
        const uint32_t *row = o->sum + y * w;
        left = y ? left + (uint32_t)(row[0] - row[-(ptrdiff_t)w]) : row[0];
        sum[y * w] = left;
        for (size_t x = 1; x < w; x++)
            sum[y * w + x] = sum[y * w + x - 1] + (uint32_t)(row[x] - row[x - 1]);
    }
    for (size_t i = 0; i < w * h; i++)
        max = sum[i] > max ? sum[i] : max;
    for (size_t i = 0; i < w * h; i++)
        pic->data[i] = (uint8_t)((sum[i] * 255u + max / 2) / max);
    free(sum);
    return SB_OK;
}

/* What the table is for: the mean of every (2r+1)^2 box from four lookups,
 * clipped at the borders.  Unsigned wrap-around cancels in the difference. */
static sb_status integral_picture_box(const sb_integral_out *o, int r, sb_image *pic, sb_error *err)
{
    sb_status st = sb_image_alloc(pic, o->width, o->height, 1, err);
    if (st)
        return st;
    int w = o->width, h = o->height;
    for (int y = 0; y < h; y++) {
        int y0 = y - r - 1, y1 = y + r < h ? y + r : h - 1;
        for (int x = 0; x < w; x++) {
            int x0 = x - r - 1, x1 = x + r < w ? x + r : w - 1;
            uint32_t s = o->sum[(size_t)y1 * w + x1];
            if (x0 >= 0)
                s -= o->sum[(size_t)y1 * w + x0];
            if (y0 >= 0)
                s -= o->sum[(size_t)y0 * w + x1];
            if (x0 >= 0 && y0 >= 0)
                s += o->sum[(size_t)y0 * w + x0];
            uint32_t area = (uint32_t)(x1 - (x0 < -1 ? -1 : x0)) * (uint32_t)(y1 - (y0 < -1 ? -1 : y0));
            pic->data[(size_t)y * w + x] = (uint8_t)((s + area / 2) / area);
        }
    }
    return SB_OK;
}

static sb_status integral_write_output(const char *path, const sb_image *in, const void *params,
                                       const void *out, sb_error *err)
{
    (void)in;
    (void)params;
    sb_image pic = { 0 };
    return sb_picture_write(path, &pic, integral_picture_sat(out, &pic, err), err);
}

static sb_status integral_gallery(sb_gallery_album *album, const sb_image *in, const void *params, const void *out,
                                  sb_error *err)
{
    (void)params;
    sb_image pic = { 0 };
    sb_status st = sb_gallery_add(album, "input", in, SB_OK, "input, grey (BT.601 integer luma)", err);
    if (!st) {
        st = sb_gallery_add(album, "sat", &pic, integral_picture_sat(out, &pic, err),
                            "the summed-area table, scaled to 0..255", err);
        sb_image_free(&pic);
    }
    if (!st) {
        st = sb_gallery_add(album, "box", &pic, integral_picture_box(out, 8, &pic, err),
                            "17x17 box mean, four table lookups a pixel", err);
        sb_image_free(&pic);
    }
    return st;
}

static const sb_algo sb_algo_integral = {
    .name = "integral",
    .summary = "integral image (summed-area table): u32 sums, u64 squared sums",
    .contract = "bit-exact: every u32 sum (mod 2^32) and u64 squared sum equals the serial reference's",
    .stage_count = 2,
    .stages = integral_stages,
    .load_mode = SB_LOAD_RGB,
    .luma_input = 1,
    .params_size = sizeof(sb_integral_params),
    .options_help = "",
    .params_default = integral_params_default,
    .params_option = integral_params_option,
    .output_size = sizeof(sb_integral_out),
    .output_layout = integral_output_layout,
    .floor_output = integral_floor_output,
    .bytes = integral_bytes,
    /* with the colour image the case keeps: peak RSS of `segbench run
     * integral` grew 24.0 bytes a pixel from 1920x1080 to 3840x2160
     * (2026-11-27), half again is 36 */
    .host_bytes_per_px = 36,
    .output_channels = 1,
    .write_output = integral_write_output,
    .gallery = integral_gallery,
};
SB_ALGO(sb_algo_integral, 10)
