/* algo_grabcut.c - the harness's view of GrabCut: four stages and the
 * pipeline (grabcut.h), each an algorithm with its own variants.
 *
 * Steps after the first are fed the serial reference's output of the
 * step before them (`after` and `feed`, run by the harness): grabcut-gmm
 * gets the k-means clusters, grabcut-graph the mixtures, grabcut-maxflow
 * the graph, each through sb_grabcut_params.upstream.  The
 * rectangle comes from the dataset manifest (or --rect); images without
 * one are skipped.  Every check is exact, and says what it compared.
 */
#include "variants/algo.h"

#include "base/args.h"
#include "variants/outputs.h"
#include "algos/pictures.h"
#include "variants/registry.h"

#include "segbench/device.h"
#include "segbench/grabcut.h"
#include "segbench/image_io.h"
#include "segbench/kmeans.h"
#include "segbench/maxflow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The records, defined at the end of the file (the hooks above name them). */
static const sb_algo sb_algo_grabcut_maxflow;
static const sb_algo sb_algo_grabcut;

static const char *const rect_stage[] = { "rect" };

static void gc_params_default(void *params, int stage)
{
    (void)stage;
    sb_grabcut_params *p = params;
    memset(p, 0, sizeof *p);
    p->iterations = 5;
    p->gamma = 50.0;
    p->lambda = 9.0 * 50.0;
}

static sb_status gc_params_option(void *params, const char *key, const char *value, sb_error *err)
{
    sb_grabcut_params *p = params;
    if (strcmp(key, "rect") == 0) {
        /* each number checked on its own: sscanf's %d overflowed silently */
        int r[4], n = 0;
        sb_status st = sb_parse_int_list(value, 0, SB_MAX_SIDE, "--rect (X,Y,W,H)", r, 4, &n, err);
        if (st)
            return st;
        if (n != 4)
            return sb_fail(err, SB_ERR_USAGE, "--rect: '%s' is not X,Y,W,H", value);
        if (r[2] <= 0 || r[3] <= 0)
            return sb_fail(err, SB_ERR_USAGE, "--rect: width and height must be positive (got %dx%d)", r[2], r[3]);
        memcpy(p->rect, r, sizeof r);
        return SB_OK;
    }
    if (strcmp(key, "iterations") == 0)
        return sb_parse_int(value, 1, SB_GC_MAX_ITER, "--iterations", &p->iterations, err);
    if (strcmp(key, "gamma") == 0)
        return sb_parse_double(value, 1e-6, 1e6, "--gamma", &p->gamma, err);
    if (strcmp(key, "lambda") == 0)
        return sb_parse_double(value, 0.0, SB_GC_ENERGY_MAX, "--lambda", &p->lambda, err);
    if (strcmp(key, "converge") == 0) {
        static const char *const modes[] = { "off", "on", NULL };
        return sb_parse_choice(value, "--converge (on or off)", modes, &p->converge, err);
    }
    return sb_fail(err, SB_ERR_USAGE, "grabcut: unknown option --%s (see 'segbench run --help')", key);
}

static int gc_image_params(void *params, const int rect[4], char *why, size_t why_size)
{
    sb_grabcut_params *p = params;
    if (rect[2] <= 0 || rect[3] <= 0) {
        snprintf(why, why_size, "no rectangle in the manifest");
        return 0;
    }
    memcpy(p->rect, rect, sizeof p->rect);
    return 1;
}

static size_t px(const sb_image *in) { return (size_t)in->width * (size_t)in->height; }

/* ---- outputs ---- */

static sb_status no_memory(const sb_image *in, sb_error *err)
{
    return sb_fail(err, SB_ERR_NOMEM, "grabcut: out of memory for a %dx%d image", in->width, in->height);
}

static sb_status kmeans_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l, sb_error *err)
{
    sb_status st = sb_gc_check_params(params, in->width, in->height, err);
    if (st)
        return st;
    sb_gc_kmeans_out *o = out;
    o->width = in->width;
    o->height = in->height;
    SB_OUT_PLANE(l, sb_gc_kmeans_out, comp, "clusters", SB_ELEM_UINT, px(in), in->width);
    sb_out_field(l, offsetof(sb_gc_kmeans_out, centres), sizeof o->centres, "centres", SB_ELEM_RECORD,
                 sizeof o->centres[0][0], 2 * SB_GC_K);
    SB_OUT_FIELD(l, sb_gc_kmeans_out, passes, "the pass count", SB_ELEM_INT);
    sb_out_work(l, "passes");
    return SB_OK;
}

static sb_status gmm_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l, sb_error *err)
{
    sb_status st = sb_gc_check_params(params, in->width, in->height, err);
    if (st)
        return st;
    sb_gc_gmm_out *o = out;
    o->width = in->width;
    o->height = in->height;
    SB_OUT_PLANE(l, sb_gc_gmm_out, comp, "components", SB_ELEM_UINT, px(in), in->width);
    SB_OUT_ARRAY(l, sb_gc_gmm_out, gmm, "mixtures (weights, means, covariances, inverses, determinants)",
                 SB_ELEM_RECORD, 2);
    return SB_OK;
}

static sb_status graph_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l, sb_error *err)
{
    sb_status st = sb_gc_check_params(params, in->width, in->height, err);
    if (st)
        return st;
    sb_gc_graph *g = out;
    g->width = in->width;
    g->height = in->height;
    static const char *const nlinks[SB_GC_NLINKS] = { "n-links (plane 0)", "n-links (plane 1)",
                                                       "n-links (plane 2)", "n-links (plane 3)" };
    SB_OUT_PLANE(l, sb_gc_graph, term, "t-links", SB_ELEM_INT, px(in), in->width);
    for (int d = 0; d < SB_GC_NLINKS; d++)
        sb_out_plane(l, offsetof(sb_gc_graph, nlink) + d * sizeof g->nlink[0], nlinks[d], SB_ELEM_INT,
                     sizeof(int32_t), px(in), in->width);
    SB_OUT_FIELD(l, sb_gc_graph, beta, "beta", SB_ELEM_FLOAT);
    return SB_OK;
}

static sb_status cut_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l, sb_error *err)
{
    (void)params;
    (void)err;
    sb_gc_cut_out *o = out;
    o->width = in->width;
    o->height = in->height;
    SB_OUT_PLANE(l, sb_gc_cut_out, fg, "pixels of the canonical cut", SB_ELEM_UINT, px(in), in->width);
    SB_OUT_FIELD(l, sb_gc_cut_out, flow, "the flow", SB_ELEM_INT);
    /* the solvers count rounds differently (BK none, the tiles sweeps) */
    SB_OUT_FIELD(l, sb_gc_cut_out, rounds, "rounds", SB_ELEM_INT);
    sb_out_check(l, SB_CHECK_REPORT, 0);
    sb_out_work(l, "rounds");
    SB_OUT_FIELD(l, sb_gc_cut_out, relabels, "global relabels", SB_ELEM_INT);
    sb_out_check(l, SB_CHECK_REPORT, 0);
    sb_out_work(l, "relabels");
    return SB_OK;
}

static sb_status pipeline_layout(void *out, const sb_image *in, const void *params, sb_out_layout *l,
                                 sb_error *err)
{
    sb_status st = sb_gc_check_params(params, in->width, in->height, err);
    if (st)
        return st;
    sb_gc_out *o = out;
    o->width = in->width;
    o->height = in->height;
    SB_OUT_PLANE(l, sb_gc_out, mask, "mask pixels", SB_ELEM_UINT, px(in), in->width);
    SB_OUT_ARRAY(l, sb_gc_out, flow, "flows", SB_ELEM_INT, (size_t)((const sb_grabcut_params *)params)->iterations);
    SB_OUT_FIELD(l, sb_gc_out, iterations, "the iteration count", SB_ELEM_INT);
    sb_out_work(l, "iterations");
    /* a warm start's mixtures (sb_gc_start): every variant's, to the bit */
    SB_OUT_ARRAY(l, sb_gc_out, gmm, "mixtures", SB_ELEM_RECORD, 2);
    return SB_OK;
}

/* ---- bytes: inputs read once, outputs written once ---- */

static double kmeans_bytes(const sb_image *in, const void *params, const void *ref)
{
    (void)params;
    /* each pass reads RGB and the mask, writes the cluster */
    return (double)px(in) * 5.0 * ((const sb_gc_kmeans_out *)ref)->passes;
}
static double gmm_bytes(const sb_image *in, const void *params, const void *ref)
{
    (void)params;
    (void)ref;
    return (double)px(in) * 15.0;       /* learn (5), assign (4 + 1), learn (5) */
}
static double graph_bytes(const sb_image *in, const void *params, const void *ref)
{
    (void)params;
    (void)ref;
    return (double)px(in) * (3.0 + 1.0 + 20.0);   /* RGB, mask; term and 4 n-links */
}
static double cut_bytes(const sb_image *in, const void *params, const void *ref)
{
    (void)params;
    (void)ref;
    return (double)px(in) * 21.0;       /* the graph, the cut */
}
static double pipeline_bytes(const sb_image *in, const void *params, const void *ref)
{
    (void)ref;
    const sb_grabcut_params *p = params;
    /* RGB once, the mask out; per iteration at least the graph written and read */
    return (double)px(in) * (4.0 + 40.0 * p->iterations);
}

/* ---- a step's input: the image, and the step before's output ---- */

static sb_status gc_feed(const sb_image *loaded, const sb_image *before_in, const void *before_out, void *params,
                         sb_image *input, sb_error *err)
{
    (void)before_in;
    ((sb_grabcut_params *)params)->upstream = before_out;
    return sb_image_convert(loaded, 3, input, err);
}

/* ---- pictures ---- */

/* Clusters and components: each pixel painted with its side's centre
 * (k-means) or mixture mean (GMM). */
static sb_status kmeans_write_output(const char *path, const sb_image *in, const void *params, const void *out,
                                     sb_error *err)
{
    const sb_gc_kmeans_out *o = out;
    uint8_t *mask = malloc(px(in));
    sb_image pic = { 0 };
    sb_status st = mask ? sb_image_alloc(&pic, o->width, o->height, 3, err) : no_memory(in, err);
    if (!st) {
        sb_gc_mask_init(params, o->width, o->height, mask);
        for (size_t i = 0; i < px(in); i++)
            for (int ch = 0; ch < 3; ch++)
                pic.data[3 * i + ch] = sb_kmeans_level(o->centres[SB_GC_SIDE(mask[i])][o->comp[i]][ch]);
    }
    free(mask);
    return sb_picture_write(path, &pic, st, err);
}

static sb_status gmm_write_output(const char *path, const sb_image *in, const void *params, const void *out,
                                  sb_error *err)
{
    const sb_gc_gmm_out *o = out;
    uint8_t *mask = malloc(px(in));
    sb_image pic = { 0 };
    sb_status st = mask ? sb_image_alloc(&pic, o->width, o->height, 3, err) : no_memory(in, err);
    if (!st) {
        sb_gc_mask_init(params, o->width, o->height, mask);
        for (size_t i = 0; i < px(in); i++)
            for (int ch = 0; ch < 3; ch++)
                pic.data[3 * i + ch] = (uint8_t)(o->gmm[SB_GC_SIDE(mask[i])].c[o->comp[i]].mean[ch] + 0.5);
    }
    free(mask);
    return sb_picture_write(path, &pic, st, err);
}

/* t-links: red for the source (foreground), blue for the sink; n-links
 * as brightness (weak links dark: the edges the cut follows). */
static sb_status graph_write_output(const char *path, const sb_image *in, const void *params, const void *out,
                                    sb_error *err)
{
    (void)params;
    const sb_gc_graph *g = out;
    sb_image pic = { 0 };
    sb_status st = sb_image_alloc(&pic, g->width, g->height, 3, err);
    double full = SB_GC_SCALE * 50.0;
    for (size_t i = 0; !st && i < px(in); i++) {
        double t = g->term[i] / (SB_GC_SCALE * 20.0);
        double nl = (g->nlink[0][i] + g->nlink[2][i]) / (2.0 * full);
        uint8_t *q = pic.data + 3 * i;
        q[0] = (uint8_t)(255.0 * fmin(1.0, fmax(0.0, t)));
        q[2] = (uint8_t)(255.0 * fmin(1.0, fmax(0.0, -t)));
        q[1] = (uint8_t)(255.0 * fmin(1.0, fmax(0.0, nl)));
    }
    return sb_picture_write(path, &pic, st, err);
}

static sb_status fg_picture(const uint8_t *fg, int width, int height, int mask_values, sb_image *pic, sb_error *err)
{
    sb_status st = sb_image_alloc(pic, width, height, 1, err);
    for (size_t i = 0, n = (size_t)width * height; !st && i < n; i++)
        pic->data[i] = (mask_values ? SB_GC_SIDE(fg[i]) : fg[i]) ? 255 : 0;
    return st;
}

static sb_status cut_write_output(const char *path, const sb_image *in, const void *params, const void *out,
                                  sb_error *err)
{
    (void)in;
    (void)params;
    const sb_gc_cut_out *o = out;
    sb_image pic = { 0 };
    return sb_picture_write(path, &pic, fg_picture(o->fg, o->width, o->height, 0, &pic, err), err);
}

/* The cut-out: foreground pixels as they are, background dimmed to a
 * quarter over a grey checkerboard. */
static sb_status cutout_picture(const sb_image *in, const sb_gc_out *o, sb_image *pic, sb_error *err)
{
    sb_status st = sb_image_alloc(pic, in->width, in->height, 3, err);
    for (int y = 0; !st && y < in->height; y++)
        for (int x = 0; x < in->width; x++) {
            const uint8_t *s = sb_image_row(in, y) + 3 * x;
            uint8_t *d = sb_image_row(pic, y) + 3 * x;
            int fg = SB_GC_SIDE(o->mask[(size_t)y * in->width + x]);
            int check = ((x >> 4) + (y >> 4)) & 1 ? 96 : 64;
            for (int ch = 0; ch < 3; ch++)
                d[ch] = fg ? s[ch] : (uint8_t)(check + s[ch] / 4);
        }
    return st;
}

static sb_status pipeline_write_output(const char *path, const sb_image *in, const void *params, const void *out,
                                       sb_error *err)
{
    (void)params;
    sb_image pic = { 0 };
    return sb_picture_write(path, &pic, cutout_picture(in, out, &pic, err), err);
}

static sb_status comp_write_labels(const char *path, const uint8_t *comp, int w, int h, sb_error *err)
{
    sb_image pic = { w, h, 1, (size_t)w, (uint8_t *)comp };
    return sb_image_save(path, &pic, err);
}
static sb_status kmeans_write_labels(const char *path, const void *out, sb_error *err)
{
    const sb_gc_kmeans_out *o = out;
    return comp_write_labels(path, o->comp, o->width, o->height, err);
}
static sb_status gmm_write_labels(const char *path, const void *out, sb_error *err)
{
    const sb_gc_gmm_out *o = out;
    return comp_write_labels(path, o->comp, o->width, o->height, err);
}
/* The mask as OpenCV writes it: 0 BGD, 1 FGD, 2 PR_BGD, 3 PR_FGD. */
static sb_status pipeline_write_labels(const char *path, const void *out, sb_error *err)
{
    const sb_gc_out *o = out;
    return comp_write_labels(path, o->mask, o->width, o->height, err);
}

static void describe_params(FILE *fp, const sb_grabcut_params *p)
{
    fprintf(fp, "rect %d,%d,%d,%d, gamma %g, lambda %g", p->rect[0], p->rect[1], p->rect[2], p->rect[3], p->gamma,
            p->lambda);
}
static void cut_describe(FILE *fp, const void *params, const void *out)
{
    const sb_gc_cut_out *o = out;
    describe_params(fp, params);
    size_t fg = 0, n = (size_t)o->width * o->height;
    for (size_t i = 0; i < n; i++)
        fg += o->fg[i];
    fprintf(fp, ": flow %lld, %zu of %zu pixels foreground, %d rounds, %d global relabels\n", (long long)o->flow, fg,
            n, o->rounds, o->relabels);
}
static void pipeline_describe(FILE *fp, const void *params, const void *out)
{
    const sb_gc_out *o = out;
    describe_params(fp, params);
    size_t fg = 0, n = (size_t)o->width * o->height;
    for (size_t i = 0; i < n; i++)
        fg += SB_GC_SIDE(o->mask[i]);
    const sb_grabcut_params *p = params;
    if (p->converge)
        fprintf(fp, ", %d iterations (%s, at most %d)", o->iterations,
                o->iterations < p->iterations ? "converged: the last cut moved at most 0.1 % of the rectangle"
                                              : "the cap reached",
                p->iterations);
    else
        fprintf(fp, ", %d iterations", o->iterations);
    fprintf(fp, ": %zu of %zu pixels foreground\n", fg, n);
    fprintf(fp, "iteration  flow          rounds  relabels\n");
    for (int i = 0; i < o->iterations; i++)
        fprintf(fp, "%9d  %12lld  %6d  %8d\n", i + 1, (long long)o->flow[i], o->rounds[i], o->relabels[i]);
}

/* ---- quality ---- */

/* Against the ground-truth mask (255 on the object): the error rate
 * (pixels on the wrong side, %) and the foreground's IoU. */
static sb_status pipeline_quality(const sb_image *in, const void *params, const void *out, const sb_labels *truth,
                                  sb_quality *q, sb_error *err)
{
    (void)params;
    const sb_gc_out *o = out;
    size_t n = px(in), fg = 0, wrong = 0, inter = 0, uni = 0;
    for (size_t i = 0; i < n; i++)
        fg += SB_GC_SIDE(o->mask[i]);
    memset(q, 0, sizeof *q);
    q->name[q->count] = "foreground_fraction";
    q->value[q->count++] = (double)fg / (double)n;
    if (!truth)
        return SB_OK;
    if (truth->width != in->width || truth->height != in->height)
        return sb_fail(err, SB_ERR_USAGE, "grabcut quality: the truth mask is %dx%d, the image %dx%d", truth->width,
                       truth->height, in->width, in->height);
    for (size_t i = 0; i < n; i++) {
        int a = SB_GC_SIDE(o->mask[i]), b = truth->data[i] != 0;
        wrong += a != b;
        inter += a && b;
        uni += a || b;
    }
    q->name[q->count] = "error_rate_pct";
    q->value[q->count++] = 100.0 * (double)wrong / (double)n;
    q->name[q->count] = "iou";
    q->value[q->count++] = uni ? (double)inter / (double)uni : 1.0;
    return SB_OK;
}

/* The rounds the synchronous push-relabel takes on this graph (the same
 * for pthread, OpenMP and cuda-global, which test_gpu checks), and the
 * global relabels of the FIFO push-relabel. */
static sb_status cut_quality(const sb_image *in, const void *params, const void *out, const sb_labels *truth,
                             sb_quality *q, sb_error *err)
{
    (void)out;
    (void)truth;
    const sb_grabcut_params *p = params;
    void *made = NULL;
    sb_mf_rounds *mr = NULL;
    sb_band_runner serial = sb_band_serial();
    sb_status st = sb_output_alloc(&sb_algo_grabcut_maxflow, &made, in, params, err);
    if (!st)
        st = sb_mf_rounds_open(&mr, in->width, in->height, err);
    sb_gc_cut_out *c = made;
    if (!st)
        st = sb_mf_rounds_solve(mr, p->upstream, &serial, c, err);
    memset(q, 0, sizeof *q);
    if (!st) {
        q->name[q->count] = "rounds";
        q->value[q->count++] = c->rounds;
        q->name[q->count] = "global_relabels";
        q->value[q->count++] = c->relabels;
        q->name[q->count] = "flow";
        q->value[q->count++] = (double)c->flow;
    }
    sb_mf_rounds_close(mr);
    sb_output_free(made);
    return st;
}

/* ---- the gallery: input with its rectangle, the mask, the cut-out ---- */

static sb_status rect_picture(const sb_image *in, const sb_grabcut_params *p, sb_image *pic, sb_error *err)
{
    sb_status st = sb_image_alloc(pic, in->width, in->height, 3, err);
    if (st)
        return st;
    for (int y = 0; y < in->height; y++)
        memcpy(sb_image_row(pic, y), sb_image_row(in, y), (size_t)in->width * 3);
    int r[4];
    sb_gc_rect_clip(p, in->width, in->height, r);
    for (int y = r[1]; y < r[3]; y++)
        for (int x = r[0]; x < r[2]; x++)
            if (x < r[0] + 2 || x >= r[2] - 2 || y < r[1] + 2 || y >= r[3] - 2) {
                uint8_t *d = sb_image_row(pic, y) + 3 * x;
                d[0] = 255;
                d[1] = 40;
                d[2] = 40;
            }
    return SB_OK;
}

static sb_status pipeline_gallery(sb_gallery_album *album, const sb_image *in, const void *params, const void *out,
                                  sb_error *err)
{
    const sb_gc_out *o = out;
    char caption[160];
    sb_image pic = { 0 };
    const sb_grabcut_params *p = params;
    snprintf(caption, sizeof caption, "input and its rectangle %d,%d,%d,%d", p->rect[0], p->rect[1], p->rect[2],
             p->rect[3]);
    sb_status st = sb_gallery_add(album, "input", &pic, rect_picture(in, p, &pic, err), caption, err);
    sb_image_free(&pic);
    size_t fg = 0;
    for (size_t i = 0; i < px(in); i++)
        fg += SB_GC_SIDE(o->mask[i]);
    snprintf(caption, sizeof caption, "mask after %d iterations (white: foreground, %.1f%% of the image)",
             o->iterations, 100.0 * (double)fg / (double)px(in));
    if (!st) {
        st = sb_gallery_add(album, "mask", &pic, fg_picture(o->mask, o->width, o->height, 1, &pic, err), caption,
                            err);
        sb_image_free(&pic);
    }
    if (!st) {
        st = sb_gallery_add(album, "cutout", &pic, cutout_picture(in, o, &pic, err),
                            "cut-out (background dimmed over a checkerboard)", err);
        sb_image_free(&pic);
    }
    return st;
}

#define GC_OPTIONS "--rect X,Y,W,H (default: inset by a tenth of each side)  --iterations N (5)  --gamma G (50)  --lambda L (450)  " \
                   "--converge on|off (off; grabcut, on: stop after an iteration whose cut moved at most 0.1 % of the " \
                   "rectangle's pixels)"
#define GC_COMMON                                                                                 \
    .stage_count = 1, .stages = rect_stage, .load_mode = SB_LOAD_RGB,                             \
    .params_size = sizeof(sb_grabcut_params), .options_help = GC_OPTIONS,                          \
    .params_default = gc_params_default, .params_option = gc_params_option,                        \
    .image_params = gc_image_params, .truth_is_mask = 1, .max_bench_pixels = 1920 * 1080

static const sb_algo sb_algo_grabcut_kmeans = {
    .name = "grabcut-kmeans",
    .summary = "GrabCut's start: k-means with 5 clusters on each side of the rectangle (exact integer rules)",
    .contract = "bit-exact: every pixel's cluster, the 2x5 centres and the pass count equal the serial reference's",
    GC_COMMON,
    .output_size = sizeof(sb_gc_kmeans_out),
    .output_layout = kmeans_layout,
    .bytes = kmeans_bytes,
    .host_bytes_per_px = 20,
    .output_channels = 3, .labels_channels = 1,
    .write_output = kmeans_write_output,
    .write_labels = kmeans_write_labels,
};
SB_ALGO(sb_algo_grabcut_kmeans, 50)

static const sb_algo sb_algo_grabcut_gmm = {
    .name = "grabcut-gmm",
    .summary = "GrabCut's mixtures: learn from the clusters, assign each pixel its likeliest component, learn again",
    .contract = "bit-exact: every component and both GMMs (weights, means, covariances, inverses, determinants)",
    GC_COMMON,
    .output_size = sizeof(sb_gc_gmm_out),
    .output_layout = gmm_layout,
    .bytes = gmm_bytes,
    .host_bytes_per_px = 26,
    .output_channels = 3, .labels_channels = 1,
    .write_output = gmm_write_output,
    .write_labels = gmm_write_labels,
    .after = &sb_algo_grabcut_kmeans,
    .feed = gc_feed,
};
SB_ALGO(sb_algo_grabcut_gmm, 51)

static const sb_algo sb_algo_grabcut_graph = {
    .name = "grabcut-graph",
    .summary = "GrabCut's graph: beta, 8-neighbour n-links, t-links from the GMMs, as integer capacities",
    .contract = "bit-exact: beta and every integer t-link and n-link capacity",
    GC_COMMON,
    .output_size = sizeof(sb_gc_graph),
    .output_layout = graph_layout,
    .bytes = graph_bytes,
    .host_bytes_per_px = 88,
    .output_channels = 3,
    .write_output = graph_write_output,
    .after = &sb_algo_grabcut_gmm,
    .feed = gc_feed,
};
SB_ALGO(sb_algo_grabcut_graph, 52)

static const sb_algo sb_algo_grabcut_maxflow = {
    .name = "grabcut-maxflow",
    .summary = "GrabCut's cut: max-flow on the integer grid graph, canonical minimum cut",
    .contract = "exact: the flow value and the canonical cut (pixels that reach the sink are background)",
    GC_COMMON,
    .output_size = sizeof(sb_gc_cut_out),
    .output_layout = cut_layout,
    .bytes = cut_bytes,
    .host_bytes_per_px = 136,
    .output_channels = 1,
    .write_output = cut_write_output,
    .describe = cut_describe,
    .quality = cut_quality,
    .quality_note = "Rounds to converge: the synchronous push-relabel rounds and global relabels (a BFS from the "
                    "sink every 32 rounds) the rounds solver takes on the first iteration's graph -- the same "
                    "counts for cpu-rounds, pthread, OpenMP and cuda-global (test_gpu checks it); cuda-shared "
                    "counts tile sweeps instead (its rows' agreement column). Flow is the max-flow value.",
    .after = &sb_algo_grabcut_graph,
    .feed = gc_feed,
};
SB_ALGO(sb_algo_grabcut_maxflow, 53)

/* A warm frame begins from the mask and mixtures of the frame before's
 * result (the stream's rectangle is one for every frame). */
static void gc_warm_from(void *start, const void *out)
{
    sb_gc_start *s = start;
    const sb_gc_out *o = out;
    memset(s, 0, sizeof *s);
    if (!o)
        return;
    s->given = 1;
    s->width = o->width;
    s->height = o->height;
    s->mask = o->mask;
    memcpy(s->gmm, o->gmm, sizeof s->gmm);
}

static void gc_warm_attach(void *params, const void *start) { ((sb_grabcut_params *)params)->start = start; }

/* A warm stream's rows, cold and warm alike, stop once a cut settles
 * (converge mode, grabcut.h), within the stage's iterations. */
static void gc_warm_mode(void *params) { ((sb_grabcut_params *)params)->converge = 1; }

static const sb_algo sb_algo_grabcut = {
    .name = "grabcut",
    .summary = "GrabCut, the whole loop: k-means, then 5 x (assign, learn, graph, max-flow)",
    .contract = "exact: the final mask, every iteration's flow, the iteration count and the last mixtures equal the "
                "serial reference's (mask agreement 100%)",
    GC_COMMON,
    .output_size = sizeof(sb_gc_out),
    .output_layout = pipeline_layout,
    .bytes = pipeline_bytes,
    .host_bytes_per_px = 120,
    .output_channels = 3, .labels_channels = 1,
    .write_output = pipeline_write_output,
    .write_labels = pipeline_write_labels,
    .describe = pipeline_describe,
    .quality = pipeline_quality,
    .warm_size = sizeof(sb_gc_start),
    .warm_from = gc_warm_from,
    .warm_attach = gc_warm_attach,
    .warm_stage = 0,
    .warm_mode = gc_warm_mode,
    .quality_note = "Error rate: pixels on the other side of the synthetic object's true mask, in per cent; IoU: "
                    "the foreground's intersection over union with it. Every variant's mask equals the reference's, "
                    "so every variant's error is the reference's. Photos have no mask: only the foreground fraction.",
    .gallery = pipeline_gallery,
};
SB_ALGO(sb_algo_grabcut, 54)
