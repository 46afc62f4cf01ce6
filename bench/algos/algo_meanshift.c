/* algo_meanshift.c - the harness's view of mean-shift segmentation: four
 * algorithms (the three steps and the pipeline) sharing parameters,
 * outputs and pictures.  The flood and merge steps take the reference
 * output of the step before them (`after` and `feed`, run by the
 * harness), so each step is checked and timed on its own. */
#include "variants/algo.h"

#include "base/args.h"
#include "variants/outputs.h"
#include "algos/pictures.h"
#include "variants/partition.h"
#include "algos/segmetrics.h"

#include "segbench/device.h"
#include "segbench/meanshift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The records, defined at the end of the file (the hooks above name them). */
static const sb_algo sb_algo_meanshift_filter;
static const sb_algo sb_algo_meanshift;

/* The filter's stages are the radius sweep (the source's table); the
 * others run at the goal's radius. */
static const char *const filter_stages[] = { "r16", "r8", "r4", "r2" };
static const char *const r16_stage[] = { "r16" };

static void ms_defaults(sb_ms_params *p, int radius)
{
    memset(p, 0, sizeof *p);
    p->radius = radius;
    p->range = 10;
    p->max_iter = 5;
    p->min_area = 20;
}

static void filter_params_default(void *params, int stage) { ms_defaults(params, 16 >> stage); }
static void region_params_default(void *params, int stage)
{
    (void)stage;
    ms_defaults(params, 16);
}

static sb_status ms_params_option(void *params, const char *key, const char *value, sb_error *err)
{
    sb_ms_params *p = params;
    if (strcmp(key, "radius") == 0)
        return sb_parse_int(value, 1, SB_MS_MAX_RADIUS, "--radius", &p->radius, err);
    if (strcmp(key, "range") == 0)
        return sb_parse_int(value, 0, SB_MS_MAX_RANGE, "--range", &p->range, err);
    if (strcmp(key, "max-iter") == 0)
        return sb_parse_int(value, 1, SB_MS_MAX_ITER, "--max-iter", &p->max_iter, err);
    if (strcmp(key, "min-area") == 0)
        return sb_parse_int(value, 0, (long)SB_MAX_PIXELS, "--min-area", &p->min_area, err);
    return sb_fail(err, SB_ERR_USAGE, "meanshift: unknown option --%s (see 'segbench run --help')", key);
}

/* ---- outputs ------------------------------------------------------------------------ */

static sb_status luv_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l, sb_error *err)
{
    (void)params;
    (void)err;
    sb_ms_luv *o = out;
    o->width = in->width;
    o->height = in->height;
    SB_OUT_PLANE(l, sb_ms_luv, luv, "filtered LUV pixels", SB_ELEM_UINT, (size_t)in->width * (size_t)in->height,
                 in->width);
    return SB_OK;
}

static sb_status regions_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l,
                                sb_error *err)
{
    (void)params;
    (void)err;
    sb_ms_regions *o = out;
    o->width = in->width;
    o->height = in->height;
    SB_OUT_PLANE(l, sb_ms_regions, labels, "labels", SB_ELEM_INT, (size_t)in->width * (size_t)in->height, in->width);
    sb_out_check(l, SB_CHECK_PARTITION, 0);   /* region numbers are not canonical: the regions are compared */
    SB_OUT_FIELD(l, sb_ms_regions, count, "the region count", SB_ELEM_INT);
    return SB_OK;
}

/* ---- checks ------------------------------------------------------------------------- */

/* ---- bytes: inputs read once, outputs written once ------------------------------------ */

static double px(const sb_image *in) { return (double)in->width * (double)in->height; }
static double filter_bytes(const sb_image *in, const void *p, const void *r) { (void)p, (void)r; return px(in) * 7.0; }
static double flood_bytes(const sb_image *in, const void *p, const void *r) { (void)p, (void)r; return px(in) * 8.0; }
static double merge_bytes(const sb_image *in, const void *p, const void *r) { (void)p, (void)r; return px(in) * 12.0; }

/* ---- the steps' inputs ----------------------------------------------------------------- */

/* flood: the filter's output, packed LUV, as a 4-channel image */
static sb_status flood_feed(const sb_image *loaded, const sb_image *before_in, const void *before_out, void *params,
                            sb_image *input, sb_error *err)
{
    (void)before_in;
    (void)params;
    const sb_ms_luv *f = before_out;
    sb_status st = sb_image_alloc(input, loaded->width, loaded->height, 4, err);
    if (!st)
        memcpy(input->data, f->luv, px(loaded) * sizeof *f->luv);
    return st;
}

/* merge: the same filtered image, and the flood's labels through params */
static sb_status merge_feed(const sb_image *loaded, const sb_image *before_in, const void *before_out, void *params,
                            sb_image *input, sb_error *err)
{
    (void)loaded;
    ((sb_ms_params *)params)->flood = ((const sb_ms_regions *)before_out)->labels;
    return sb_image_convert(before_in, 4, input, err);
}

/* ---- pictures ------------------------------------------------------------------------- */

static void label_colour(int32_t label, uint8_t rgb[3])
{
    uint32_t h = (uint32_t)label * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    rgb[0] = (uint8_t)(h | 32u);
    rgb[1] = (uint8_t)((h >> 8) | 32u);
    rgb[2] = (uint8_t)((h >> 16) | 32u);
}

static sb_status regions_picture(const sb_ms_regions *o, sb_image *pic, sb_error *err)
{
    sb_status st = sb_image_alloc(pic, o->width, o->height, 3, err);
    for (size_t i = 0, n = (size_t)o->width * (size_t)o->height; !st && i < n; i++)
        label_colour(o->labels[i], pic->data + 3 * i);
    return st;
}

static sb_status luv_picture(const uint32_t *luv, int width, int height, sb_image *pic, sb_error *err)
{
    sb_status st = sb_image_alloc(pic, width, height, 3, err);
    for (size_t i = 0, n = (size_t)width * (size_t)height; !st && i < n; i++)
        sb_ms_luv_to_rgb(luv[i], pic->data + 3 * i);
    return st;
}

static sb_status luv_write_output(const char *path, const sb_image *in, const void *params, const void *out,
                                  sb_error *err)
{
    (void)in;
    (void)params;
    const sb_ms_luv *o = out;
    sb_image pic = { 0 };
    return sb_picture_write(path, &pic, luv_picture(o->luv, o->width, o->height, &pic, err), err);
}

static sb_status regions_write_output(const char *path, const sb_image *in, const void *params, const void *out,
                                      sb_error *err)
{
    (void)in;
    (void)params;
    sb_image pic = { 0 };
    return sb_picture_write(path, &pic, regions_picture(out, &pic, err), err);
}

/* Labels as 24-bit RGB, R the high byte (as slic's). */
static sb_status regions_write_labels(const char *path, const void *out, sb_error *err)
{
    const sb_ms_regions *o = out;
    sb_image pic;
    sb_status st = sb_image_alloc(&pic, o->width, o->height, 3, err);
    for (size_t i = 0, n = (size_t)o->width * (size_t)o->height; !st && i < n; i++) {
        uint32_t l = (uint32_t)o->labels[i];
        pic.data[3 * i] = (uint8_t)(l >> 16);
        pic.data[3 * i + 1] = (uint8_t)(l >> 8);
        pic.data[3 * i + 2] = (uint8_t)l;
    }
    return sb_picture_write(path, &pic, st, err);
}

static void describe_params(FILE *fp, const sb_ms_params *p)
{
    fprintf(fp, "radius %d, colour range %d, at most %d iterations, min area %d", p->radius, p->range, p->max_iter,
            p->min_area);
}

static void luv_describe(FILE *fp, const void *params, const void *out)
{
    (void)out;
    describe_params(fp, params);
    fprintf(fp, "\n");
}

static void regions_describe(FILE *fp, const void *params, const void *out)
{
    describe_params(fp, params);
    fprintf(fp, ": %d regions\n", ((const sb_ms_regions *)out)->count);
}

static sb_status ms_quality(const sb_image *in, const void *params, const void *out, const sb_labels *truth,
                            sb_quality *q, sb_error *err)
{
    (void)params;
    const sb_ms_regions *o = out;
    memset(q, 0, sizeof *q);
    q->name[q->count] = "regions";
    q->value[q->count++] = o->count;
    if (!truth)
        return SB_OK;
    if (truth->width != in->width || truth->height != in->height)
        return sb_fail(err, SB_ERR_USAGE, "meanshift quality: truth is %dx%d, the image %dx%d", truth->width,
                       truth->height, in->width, in->height);
    double v, ue, asa;
    int radius = sb_boundary_radius(o->width, o->height);
    sb_status st = sb_boundary_recall(o->labels, truth->data, o->width, o->height, radius, &v, err);
    if (!st)
        st = sb_overlap_scores(o->labels, truth->data, o->width, o->height, &ue, &asa, err);
    if (st)
        return st;
    q->name[q->count] = "boundary_recall";
    q->value[q->count++] = v;
    q->name[q->count] = "undersegmentation_error";
    q->value[q->count++] = ue;
    q->name[q->count] = "achievable_accuracy";
    q->value[q->count++] = asa;
    return SB_OK;
}

/* The gallery: input, filtered colours, regions in random colours. */
static sb_status ms_gallery(sb_gallery_album *album, const sb_image *in, const void *params, const void *out,
                            sb_error *err)
{
    const sb_ms_regions *o = out;
    char caption[120];
    sb_status st = sb_gallery_add(album, "input", in, SB_OK, "input", err);
    void *f = NULL;
    if (!st)
        st = sb_output_alloc(&sb_algo_meanshift_filter, &f, in, params, err);
    if (!st)
        st = sb_ms_serial(SB_MS_FILTER, in, params, f, err);
    sb_image pic = { 0 };
    if (!st) {
        const uint32_t *luv = ((const sb_ms_luv *)f)->luv;
        st = sb_gallery_add(album, "filtered", &pic, luv_picture(luv, in->width, in->height, &pic, err),
                            "mean-shift filtered (each pixel's LUV mode)", err);
        sb_image_free(&pic);
    }
    sb_output_free(f);
    snprintf(caption, sizeof caption, "%d regions, in random colours", o->count);
    if (!st) {
        st = sb_gallery_add(album, "regions", &pic, regions_picture(o, &pic, err), caption, err);
        sb_image_free(&pic);
    }
    return st;
}

#define MS_OPTIONS "--radius R (16)  --range C (10: squared LUV distance <= C^2)  --max-iter N (5)  --min-area A (20)"

/* What the four mean-shift records share (GrabCut's share GC_COMMON), and
 * what the three that end in regions share besides. */
#define MS_COMMON                                                                                 \
    .load_mode = SB_LOAD_RGB, .params_size = sizeof(sb_ms_params), .options_help = MS_OPTIONS,     \
    .params_option = ms_params_option, .max_bench_pixels = 1920 * 1080
#define MS_REGIONS                                                                                \
    .stage_count = 1, .stages = r16_stage, MS_COMMON, .params_default = region_params_default,     \
    .output_size = sizeof(sb_ms_regions), .output_layout = regions_layout
#define MS_REGIONS_OUT                                                                            \
    .output_channels = 3, .labels_channels = 3, .write_output = regions_write_output,             \
    .write_labels = regions_write_labels, .describe = regions_describe

static const sb_algo sb_algo_meanshift_filter = {
    .name = "meanshift-filter",
    .summary = "mean-shift filter: each pixel's LUV mode over a moving (2r+1)^2 window, integer arithmetic",
    .contract = "bit-exact: every filtered LUV pixel equals the serial reference's",
    .stage_count = 4,
    .stages = filter_stages,
    MS_COMMON,
    .params_default = filter_params_default,
    .output_size = sizeof(sb_ms_luv),
    .output_layout = luv_layout,
    .bytes = filter_bytes,
    .host_bytes_per_px = 28,
    .output_channels = 3,
    .write_output = luv_write_output,
    .describe = luv_describe,
    .sweep = "radius",
};
SB_ALGO(sb_algo_meanshift_filter, 40)

static const sb_algo sb_algo_meanshift_flood = {
    .name = "meanshift-flood",
    .summary = "flooding: 4-neighbours with filtered colours within range, union-find, smallest-index labels",
    .contract = "exact: the same partition (and labels) as the serial reference, fed the reference filter's output",
    MS_REGIONS,
    .bytes = flood_bytes,
    .host_bytes_per_px = 48,
    MS_REGIONS_OUT,
    .after = &sb_algo_meanshift_filter,
    .feed = flood_feed,
};
SB_ALGO(sb_algo_meanshift_flood, 41)

static const sb_algo sb_algo_meanshift_merge = {
    .name = "meanshift-merge",
    .summary = "region merging: fuse regions with close means, prune small ones (union-find), number them",
    .contract = "exact: the same partition and count as the serial reference, fed the reference flood's output",
    MS_REGIONS,
    .bytes = merge_bytes,
    .host_bytes_per_px = 120,
    MS_REGIONS_OUT,
    .after = &sb_algo_meanshift_flood,
    .feed = merge_feed,
};
SB_ALGO(sb_algo_meanshift_merge, 42)

static const sb_algo sb_algo_meanshift = {
    .name = "meanshift",
    .summary = "mean-shift segmentation, the whole pipeline: LUV, filter, flood, merge",
    .contract = "exact: the same partition and count as the serial reference (adjusted Rand index 1)",
    MS_REGIONS,
    .bytes = filter_bytes,
    .host_bytes_per_px = 110,
    MS_REGIONS_OUT,
    .quality = ms_quality,
    .gallery = ms_gallery,
};
SB_ALGO(sb_algo_meanshift, 43)
