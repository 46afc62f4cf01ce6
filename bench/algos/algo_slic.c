/* algo_slic.c - the harness's view of SLIC superpixels: parameters,
 * outputs, the bit-exact check, bytes moved, quality against ground truth
 * and pictures. */
#include "variants/algo.h"

#include "base/args.h"
#include "variants/outputs.h"
#include "algos/pictures.h"
#include "algos/segmetrics.h"

#include "segbench/device.h"
#include "segbench/image_io.h"
#include "segbench/slic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The records, defined at the end of the file (the hooks above name them). */
static const sb_algo sb_algo_slic;

/* s16: S = 16, 10 iterations, full connectivity -- the timing
 *      benchmark, and what `segbench run slic` does by default;
 * n1000: about 1000 superpixels, full connectivity (quality);
 * n1000-majority: the same with the source's 5x5 majority filter in place
 *      of connectivity enforcement (quality "with connectivity off"). */
static const char *const slic_stages[] = { "s16", "n1000", "n1000-majority" };

static void slic_params_default(void *params, int stage)
{
    sb_slic_params *p = params;
    p->segments = stage == SB_SLIC_STAGE_S16 ? 0 : 1000;
    p->size = 16;
    p->iterations = 10;
    p->weight = 0.6f;
    p->space = SB_SLIC_LAB;
    p->connectivity = stage == SB_SLIC_STAGE_N1000_MAJORITY ? SB_SLIC_CONNECT_MAJORITY : SB_SLIC_CONNECT_FULL;
    p->converge = 0;
    p->start = NULL;
}

static sb_status pick(const char *value, const char *what, const char *const *names, int count, int *out,
                      sb_error *err)
{
    for (int i = 0; i < count; i++)
        if (strcmp(value, names[i]) == 0) {
            *out = i;
            return SB_OK;
        }
    return sb_fail(err, SB_ERR_USAGE, "%s: unknown value '%s'", what, value);
}

static sb_status slic_params_option(void *params, const char *key, const char *value, sb_error *err)
{
    sb_slic_params *p = params;
    if (strcmp(key, "segments") == 0)
        return sb_parse_int(value, 1, SB_MAX_PIXELS, "--segments", &p->segments, err);
    if (strcmp(key, "size") == 0) {
        p->segments = 0;
        return sb_parse_int(value, 1, SB_MAX_SIDE, "--size", &p->size, err);
    }
    if (strcmp(key, "iterations") == 0)
        return sb_parse_int(value, 1, SB_SLIC_MAX_ITER, "--iterations", &p->iterations, err);
    if (strcmp(key, "weight") == 0) {
        double w;
        sb_status st = sb_parse_double(value, 0.0, 1000.0, "--weight", &w, err);
        p->weight = (float)w;
        return st;
    }
    if (strcmp(key, "space") == 0) {
        static const char *const spaces[] = { "lab", "xyz", "rgb" };
        return pick(value, "--space (lab, xyz or rgb)", spaces, 3, &p->space, err);
    }
    if (strcmp(key, "converge") == 0) {
        static const char *const modes[] = { "off", "on" };
        return pick(value, "--converge (on or off)", modes, 2, &p->converge, err);
    }
    if (strcmp(key, "connectivity") == 0) {
        static const char *const modes[] = { "full", "majority", "none" };
        return pick(value, "--connectivity (full, majority or none)", modes, 3, &p->connectivity, err);
    }
    return sb_fail(err, SB_ERR_USAGE, "slic: unknown option --%s (see 'segbench run --help')", key);
}

/* The output's parts, its labels in 32 bits or, narrow, in 16. */
static sb_status slic_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l, int narrow,
                             sb_error *err)
{
    sb_slic_geometry g;
    sb_status st = sb_slic_geometry_init(&g, in->width, in->height, params, err);
    if (st)
        return st;
    sb_slic_out *o = out;
    o->width = in->width;
    o->height = in->height;
    o->centre_count = g.centres;
    size_t n = (size_t)in->width * (size_t)in->height;
    if (narrow)
        SB_OUT_PLANE(l, sb_slic_out, labels16, "labels", SB_ELEM_UINT, n, in->width);
    else
        SB_OUT_PLANE(l, sb_slic_out, labels, "labels", SB_ELEM_INT, n, in->width);
    SB_OUT_PLANE(l, sb_slic_out, centres, "centres", SB_ELEM_RECORD, (size_t)g.centres, 0);
    SB_OUT_FIELD(l, sb_slic_out, superpixels, "the superpixel count", SB_ELEM_INT);
    SB_OUT_FIELD(l, sb_slic_out, iterations, "the pass count", SB_ELEM_INT);
    sb_out_work(l, "passes");
    return SB_OK;
}

static sb_status slic_output_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l,
                                    sb_error *err)
{
    return slic_layout(out, in, params, l, 0, err);
}

/* The narrow output (SB_NARROW variants): the labels in 16 bits, half the
 * bytes of the 32-bit plane on the bus.  Such a variant refuses a case
 * whose labels may not fit. */
static sb_status slic_narrow_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l,
                                    sb_error *err)
{
    return slic_layout(out, in, params, l, 1, err);
}

/* Pixel i's label, from whichever plane the output has. */
static int32_t label_at(const sb_slic_out *o, size_t i) { return o->labels ? o->labels[i] : o->labels16[i]; }

/* The floor: each iteration must read every pixel's colour (3 bytes of
 * RGB, its most compact form); the labels are written once. */
static double slic_bytes(const sb_image *in, const void *params, const void *ref_out)
{
    const sb_slic_params *p = params;
    int passes = ref_out && ((const sb_slic_out *)ref_out)->iterations > 0 ? ((const sb_slic_out *)ref_out)->iterations
                                                                          : p->iterations;
    return (double)in->width * (double)in->height * (3.0 * passes + 4.0);
}

static int on_boundary(const sb_slic_out *o, int x, int y)
{
    size_t i = (size_t)y * o->width + x;
    int32_t own = label_at(o, i);
    return (x + 1 < o->width && label_at(o, i + 1) != own) ||
           (y + 1 < o->height && label_at(o, i + o->width) != own) || (x > 0 && label_at(o, i - 1) != own) ||
           (y > 0 && label_at(o, i - o->width) != own);
}

/* The input with superpixel borders in red. */
static sb_status overlay_picture(const sb_image *in, const sb_slic_out *o, sb_image *pic, sb_error *err)
{
    sb_status st = sb_image_alloc(pic, o->width, o->height, 3, err);
    if (st)
        return st;
    for (int y = 0; y < o->height; y++) {
        const uint8_t *src = sb_image_row(in, y);
        uint8_t *dst = sb_image_row(pic, y);
        for (int x = 0; x < o->width; x++) {
            static const uint8_t red[3] = { 255, 0, 0 };
            memcpy(dst + 3 * x, on_boundary(o, x, y) ? red : src + 3 * x, 3);
        }
    }
    return SB_OK;
}

static sb_status slic_write_output(const char *path, const sb_image *in, const void *params, const void *out,
                                   sb_error *err)
{
    (void)params;
    sb_image pic;
    sb_status st = overlay_picture(in, out, &pic, err);
    if (!st)
        st = sb_image_save(path, &pic, err);
    sb_image_free(&pic);
    return st;
}

/* Labels can pass 255: each is written as 24-bit RGB, R the high byte. */
static sb_status slic_write_labels(const char *path, const void *out, sb_error *err)
{
    const sb_slic_out *o = out;
    sb_image pic;
    sb_status st = sb_image_alloc(&pic, o->width, o->height, 3, err);
    if (st)
        return st;
    size_t n = (size_t)o->width * (size_t)o->height;
    for (size_t i = 0; i < n; i++) {
        uint32_t l = (uint32_t)label_at(o, i);
        pic.data[3 * i] = (uint8_t)(l >> 16);
        pic.data[3 * i + 1] = (uint8_t)(l >> 8);
        pic.data[3 * i + 2] = (uint8_t)l;
    }
    st = sb_image_save(path, &pic, err);
    sb_image_free(&pic);
    return st;
}

static const char *connectivity_name(int c)
{
    return c == SB_SLIC_CONNECT_FULL ? "full connectivity" : c == SB_SLIC_CONNECT_MAJORITY ? "majority filter" : "none";
}

static void slic_describe(FILE *fp, const void *params, const void *out)
{
    const sb_slic_params *p = params;
    const sb_slic_out *o = out;
    sb_slic_geometry g;
    sb_error err;
    if (sb_slic_geometry_init(&g, o->width, o->height, p, &err))
        return;
    char passes[80];
    if (p->converge)
        snprintf(passes, sizeof passes, "%d passes (%s, at most %d)", o->iterations,
                 o->iterations < p->iterations ? "converged: at most 1 % of the centres unsettled" : "not settled",
                 p->iterations);
    else
        snprintf(passes, sizeof passes, "%d iterations", o->iterations);
    fprintf(fp, "S %d, grid %dx%d (%d centres), %s, weight %g, %s; %s: %d superpixels\n", g.S, g.grid_w,
            g.grid_h, g.centres, passes, (double)p->weight,
            p->space == SB_SLIC_LAB ? "Lab" : p->space == SB_SLIC_XYZ ? "XYZ" : "RGB", connectivity_name(p->connectivity),
            o->superpixels);
}

static sb_status slic_quality(const sb_image *in, const void *params, const void *out, const sb_labels *truth,
                              sb_quality *q, sb_error *err)
{
    (void)params;
    const sb_slic_out *o = out;
    memset(q, 0, sizeof *q);
    q->name[q->count] = "superpixels";
    q->value[q->count++] = o->superpixels;
    double v;
    sb_status st = sb_pieces_per_label(o->labels, o->width, o->height, &v, err);
    if (st)
        return st;
    q->name[q->count] = "pieces_per_label";
    q->value[q->count++] = v;
    if (!truth)
        return SB_OK;
    if (truth->width != in->width || truth->height != in->height)
        return sb_fail(err, SB_ERR_USAGE, "slic quality: truth is %dx%d, the image %dx%d", truth->width, truth->height,
                       in->width, in->height);
    int radius = sb_boundary_radius(o->width, o->height);
    if ((st = sb_boundary_recall(o->labels, truth->data, o->width, o->height, radius, &v, err)))
        return st;
    q->name[q->count] = "boundary_recall";
    q->value[q->count++] = v;
    double ue, asa;
    if ((st = sb_overlap_scores(o->labels, truth->data, o->width, o->height, &ue, &asa, err)))
        return st;
    q->name[q->count] = "undersegmentation_error";
    q->value[q->count++] = ue;
    q->name[q->count] = "achievable_accuracy";
    q->value[q->count++] = asa;
    q->name[q->count] = "recall_radius_px";
    q->value[q->count++] = radius;
    return SB_OK;
}

/* Mean input colour of each superpixel. */
static sb_status mean_picture(const sb_image *in, const sb_slic_out *o, sb_image *pic, sb_error *err)
{
    size_t n = (size_t)o->width * (size_t)o->height;
    uint64_t(*sum)[4] = calloc(n, sizeof *sum);
    if (!sum)
        return sb_fail(err, SB_ERR_NOMEM, "slic: out of memory");
    sb_status st = sb_image_alloc(pic, o->width, o->height, 3, err);
    for (int y = 0; !st && y < o->height; y++)
        for (int x = 0; x < o->width; x++) {
            uint64_t *s = sum[o->labels[(size_t)y * o->width + x]];
            for (int ch = 0; ch < 3; ch++)
                s[ch] += sb_image_row(in, y)[3 * x + ch];
            s[3]++;
        }
    for (size_t i = 0; !st && i < n; i++) {
        const uint64_t *s = sum[o->labels[i]];
        for (int ch = 0; ch < 3; ch++)
            pic->data[3 * i + ch] = (uint8_t)((s[ch] + s[3] / 2) / s[3]);
    }
    free(sum);
    return st;
}

/* The gallery: the input, its superpixel borders with full connectivity
 * and with the source's majority filter, and the mean colours. */
static sb_status slic_gallery(sb_gallery_album *album, const sb_image *in, const void *params, const void *out,
                              sb_error *err)
{
    (void)out;
    sb_status st = sb_gallery_add(album, "input", in, SB_OK, "input", err);
    for (int mode = 0; mode < 2 && !st; mode++) {
        sb_slic_params p = *(const sb_slic_params *)params;
        p.connectivity = mode == 0 ? SB_SLIC_CONNECT_FULL : SB_SLIC_CONNECT_MAJORITY;
        void *o = NULL;
        sb_image pic = { 0 };
        char caption[200];
        st = sb_output_alloc(&sb_algo_slic, &o, in, &p, err);
        if (!st)
            st = sb_slic_serial(in, &p, o, err);
        if (!st)
            st = overlay_picture(in, o, &pic, err);
        if (!st) {
            snprintf(caption, sizeof caption, "borders, %s (%d superpixels)", connectivity_name(p.connectivity),
                     ((sb_slic_out *)o)->superpixels);
            st = sb_gallery_add(album, mode == 0 ? "borders" : "majority", &pic, SB_OK, caption, err);
        }
        sb_image_free(&pic);
        if (!st && mode == 0 && !(st = mean_picture(in, o, &pic, err)))
            st = sb_gallery_add(album, "mean", &pic, SB_OK, "mean colour of each superpixel", err);
        sb_image_free(&pic);
        sb_output_free(o);
    }
    return st;
}

/* A warm frame begins from the centres of the frame before's result. */
static void slic_warm_from(void *start, const void *out)
{
    sb_slic_start *s = start;
    const sb_slic_out *o = out;
    memset(s, 0, sizeof *s);
    if (!o)
        return;
    s->given = 1;
    s->count = o->centre_count;
    s->centres = o->centres;
}

static void slic_warm_attach(void *params, const void *start) { ((sb_slic_params *)params)->start = start; }

/* A warm stream's rows, cold and warm alike, stop on SLIC's own criterion
 * (converge mode, slic.h), within the stage's passes. */
static void slic_warm_mode(void *params) { ((sb_slic_params *)params)->converge = 1; }

static const sb_algo sb_algo_slic = {
    .name = "slic",
    .summary = "SLIC superpixels (gSLICr style): exact Lab, integer centre sums, full connectivity",
    .contract = "bit-exact: every label, every centre, the superpixel count and the pass count equal the serial "
                "reference's",
    .stage_count = 3,
    .stages = slic_stages,
    .load_mode = SB_LOAD_RGB,
    .params_size = sizeof(sb_slic_params),
    .options_help = "--size S (16) | --segments N  --iterations N (10)  --weight W (0.6)  --space lab|xyz|rgb (lab)  "
                    "--connectivity full|majority|none (full)  --converge on|off (off; on: stop after an update that "
                    "left at most 1 % of the centres unsettled, --iterations at most)",
    .params_default = slic_params_default,
    .params_option = slic_params_option,
    .output_size = sizeof(sb_slic_out),
    .output_layout = slic_output_layout,
    .narrow_layout = slic_narrow_layout,
    .bytes = slic_bytes,
    .host_bytes_per_px = 64,
    .output_channels = 3, .labels_channels = 3,
    .write_output = slic_write_output,
    .write_labels = slic_write_labels,
    .describe = slic_describe,
    .quality = slic_quality,
    .gallery = slic_gallery,
    .warm_size = sizeof(sb_slic_start),
    .warm_from = slic_warm_from,
    .warm_attach = slic_warm_attach,
    .warm_mode = slic_warm_mode,
    .warm_stage = SB_SLIC_STAGE_S16,
};
SB_ALGO(sb_algo_slic, 30)
