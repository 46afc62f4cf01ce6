/* algo_kmeans.c - the harness's view of k-means colour quantization:
 * parameters, outputs, outputs and how each is checked, bytes moved and pictures. */
#include "variants/algo.h"

#include "base/args.h"
#include "variants/outputs.h"
#include "algos/pictures.h"

#include "segbench/device.h"
#include "segbench/image_io.h"
#include "segbench/kmeans.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The records, defined at the end of the file (the hooks above name them). */
static const sb_algo sb_algo_kmeans;

/* converge: k = 16 from the spread start, until no label changes (at
 * most 100 passes) -- also what `segbench run kmeans` does by default;
 * fixed10: the same start, exactly 10 passes (the benchmark). */
static const char *const kmeans_stages[] = { "converge", "fixed10" };

static void kmeans_params_default(void *params, int stage)
{
    sb_kmeans_params *p = params;
    p->k = 16;
    p->init = SB_KMEANS_INIT_SPREAD;
    p->seed = 1;
    p->fixed = stage == SB_KMEANS_STAGE_FIXED10;
    p->max_iter = p->fixed ? 10 : 100;
}

static sb_status kmeans_params_option(void *params, const char *key, const char *value, sb_error *err)
{
    sb_kmeans_params *p = params;
    if (strcmp(key, "k") == 0)
        return sb_parse_int(value, 1, SB_KMEANS_MAX_K, "--k", &p->k, err);
    if (strcmp(key, "init") == 0) {
        if (strcmp(value, "spread") == 0)
            p->init = SB_KMEANS_INIT_SPREAD;
        else if (strcmp(value, "kmeans++") == 0)
            p->init = SB_KMEANS_INIT_PLUSPLUS;
        else
            return sb_fail(err, SB_ERR_USAGE, "--init: unknown initialisation '%s' (spread or kmeans++)", value);
        return SB_OK;
    }
    if (strcmp(key, "seed") == 0) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        if (!isdigit((unsigned char)value[0]) || *end || errno)   /* no sign, no leading blank */
            return sb_fail(err, SB_ERR_USAGE, "--seed: '%s' is not a non-negative integer", value);
        p->seed = v;
        return SB_OK;
    }
    if (strcmp(key, "max-iter") == 0 || strcmp(key, "fixed") == 0) {
        p->fixed = strcmp(key, "fixed") == 0;
        return sb_parse_int(value, 1, SB_KMEANS_MAX_ITER, p->fixed ? "--fixed" : "--max-iter", &p->max_iter, err);
    }
    return sb_fail(err, SB_ERR_USAGE, "kmeans: unknown option --%s (see 'segbench run --help')", key);
}

static sb_status kmeans_output_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l,
                                      sb_error *err)
{
    const sb_kmeans_params *p = params;
    sb_status st = sb_kmeans_check_params(p, err);
    if (st)
        return st;
    sb_kmeans_out *o = out;
    o->width = in->width;
    o->height = in->height;
    o->k = p->k;
    SB_OUT_PLANE(l, sb_kmeans_out, labels, "labels", SB_ELEM_UINT, (size_t)in->width * (size_t)in->height, in->width);
    SB_OUT_ARRAY(l, sb_kmeans_out, centres, "centres", SB_ELEM_RECORD, (size_t)p->k);
    SB_OUT_FIELD(l, sb_kmeans_out, iterations, "the pass count", SB_ELEM_INT);
    sb_out_work(l, "passes");
    return SB_OK;
}

/* Per pass: read the image once (3 bytes a pixel), write the labels once. */
static double kmeans_bytes(const sb_image *in, const void *params, const void *ref_out)
{
    const sb_kmeans_out *ref = ref_out;
    (void)params;
    return (double)in->width * (double)in->height * 4.0 * ref->iterations;
}

/* Each pixel painted with its centre. */
static sb_status kmeans_picture(const sb_kmeans_out *o, sb_image *pic, sb_error *err)
{
    sb_status st = sb_image_alloc(pic, o->width, o->height, 3, err);
    if (st)
        return st;
    size_t n = (size_t)o->width * (size_t)o->height;
    for (size_t i = 0; i < n; i++)
        for (int ch = 0; ch < 3; ch++)
            pic->data[3 * i + ch] = sb_kmeans_level(o->centres[o->labels[i]][ch]);
    return SB_OK;
}

static sb_status kmeans_write_output(const char *path, const sb_image *in, const void *params, const void *out,
                                     sb_error *err)
{
    (void)in;
    (void)params;
    sb_image pic = { 0 };
    return sb_picture_write(path, &pic, kmeans_picture(out, &pic, err), err);
}

static sb_status kmeans_write_labels(const char *path, const void *out, sb_error *err)
{
    const sb_kmeans_out *o = out;
    sb_image pic = { o->width, o->height, 1, (size_t)o->width, o->labels };
    return sb_image_save(path, &pic, err);
}

static void kmeans_describe(FILE *fp, const void *params, const void *out)
{
    const sb_kmeans_params *p = params;
    const sb_kmeans_out *o = out;
    size_t n = (size_t)o->width * (size_t)o->height, count[SB_KMEANS_MAX_K] = { 0 };
    for (size_t i = 0; i < n; i++)
        count[o->labels[i]]++;
    fprintf(fp, "k %d, init %s, %d pass%s (%s)\n", p->k, p->init == SB_KMEANS_INIT_SPREAD ? "spread" : "kmeans++",
            o->iterations, o->iterations == 1 ? "" : "es",
            p->fixed ? "fixed" : o->iterations < p->max_iter ? "converged" : "stopped at --max-iter");
    fprintf(fp, "centre  colour   R (1/4)  G (1/4)  B (1/4)  pixels\n");
    for (int c = 0; c < o->k; c++)
        fprintf(fp, "%6d  #%02x%02x%02x  %7d  %7d  %7d  %zu\n", c, sb_kmeans_level(o->centres[c][0]),
                sb_kmeans_level(o->centres[c][1]), sb_kmeans_level(o->centres[c][2]), o->centres[c][0],
                o->centres[c][1], o->centres[c][2], count[c]);
}

/* The gallery: the input beside its quantization with k = 4 and k = 16,
 * each run to convergence by the serial reference. */
static sb_status kmeans_gallery(sb_gallery_album *album, const sb_image *in, const void *params, const void *out,
                                sb_error *err)
{
    (void)out;
    sb_status st = sb_gallery_add(album, "input", in, SB_OK, "input", err);
    static const int ks[] = { 4, 16 };
    for (int i = 0; i < 2 && !st; i++) {
        sb_kmeans_params p = *(const sb_kmeans_params *)params;
        p.k = ks[i];
        p.fixed = 0;
        p.max_iter = 100;
        void *o = NULL;
        sb_image pic = { 0 };
        st = sb_output_alloc(&sb_algo_kmeans, &o, in, &p, err);
        if (!st)
            st = sb_kmeans_serial(in, &p, o, err);
        if (!st) {
            char name[16], caption[80];
            snprintf(name, sizeof name, "k%d", ks[i]);
            snprintf(caption, sizeof caption, "k = %d, %d passes to convergence", ks[i],
                     ((sb_kmeans_out *)o)->iterations);
            st = sb_gallery_add(album, name, &pic, kmeans_picture(o, &pic, err), caption, err);
        }
        sb_image_free(&pic);
        sb_output_free(o);
    }
    return st;
}

/* A warm frame begins from the centres of the frame before's result. */
static void kmeans_warm_from(void *start, const void *out)
{
    sb_kmeans_start *s = start;
    const sb_kmeans_out *o = out;
    memset(s, 0, sizeof *s);
    if (!o)
        return;
    s->given = 1;
    memcpy(s->centres, o->centres, (size_t)o->k * sizeof o->centres[0]);
}

static void kmeans_warm_attach(void *params, const void *start) { ((sb_kmeans_params *)params)->start = start; }

static const sb_algo sb_algo_kmeans = {
    .name = "kmeans",
    .summary = "k-means colour quantization: integer sums, quarter-level centres",
    .contract = "bit-exact: every label, every centre and the pass count equal the serial reference's",
    .stage_count = 2,
    .stages = kmeans_stages,
    .stream_stage = 1,          /* fixed10 */
    .warm_size = sizeof(sb_kmeans_start),
    .warm_from = kmeans_warm_from,
    .warm_attach = kmeans_warm_attach,
    .warm_stage = 0,            /* converge */
    .load_mode = SB_LOAD_RGB,
    .params_size = sizeof(sb_kmeans_params),
    .options_help = "--k 1..256 (16)  --init spread|kmeans++ (spread)  --seed N (1)  "
                    "--max-iter N (100; stop early when no label changes)  --fixed N (exactly N passes)",
    .params_default = kmeans_params_default,
    .params_option = kmeans_params_option,
    .output_size = sizeof(sb_kmeans_out),
    .output_layout = kmeans_output_layout,
    .bytes = kmeans_bytes,
    .host_bytes_per_px = 16,
    .output_channels = 3, .labels_channels = 1,
    .write_output = kmeans_write_output,
    .write_labels = kmeans_write_labels,
    .describe = kmeans_describe,
    .gallery = kmeans_gallery,
};
SB_ALGO(sb_algo_kmeans, 20)
