/* single.c - `segbench run ALGO IN OUT` (single.h): the input probed from
 * its header before anything is decoded, the reference computed, the
 * variant run once and checked, its outputs written only when it agrees. */
#include "run/single.h"

#include "base/args.h"
#include "base/options.h"
#include "base/patterns.h"
#include "variants/agreement.h"
#include "cases/cases.h"
#include "variants/names.h"
#include "variants/outputs.h"
#include "cases/select.h"

#include "segbench/atomic_file.h"
#include "segbench/clock.h"
#include "segbench/device.h"
#include "segbench/image_io.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct run_input {
    const char *path;
    char *bytes;             /* a stream's bytes, or NULL for a file */
    size_t len;
} run_input;

static sb_status input_probe(run_input *in, sb_image_info *info, sb_error *err)
{
    struct stat st;
    if (stat(in->path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return sb_image_probe(in->path, info, err);     /* a file, or the loader's own message */
    FILE *fp = fopen(in->path, "rb");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", in->path, strerror(errno));
    size_t cap = 1 << 16;
    sb_status status = (in->bytes = malloc(cap)) ? SB_OK : sb_fail(err, SB_ERR_NOMEM, "out of memory");
    if (!status) {
        in->len = fread(in->bytes, 1, cap, fp);
        FILE *head = fmemopen(in->bytes, in->len ? in->len : 1, "rb");
        status = head ? sb_image_probe_stream(head, in->path, info, err) : sb_fail(err, SB_ERR_NOMEM, "out of memory");
        if (head)
            fclose(head);
    }
    for (size_t got = in->len; !status && got > 0;) {       /* the rest, now that the size is known */
        if (in->len == cap) {
            char *grown = realloc(in->bytes, cap *= 2);
            if (!grown) {
                status = sb_fail(err, SB_ERR_NOMEM, "%s: out of memory reading the stream", in->path);
                break;
            }
            in->bytes = grown;
        }
        got = fread(in->bytes + in->len, 1, cap - in->len, fp);
        in->len += got;
    }
    fclose(fp);
    return status;
}

static sb_status input_load(const run_input *in, sb_load_mode mode, sb_image *img, sb_error *err)
{
    if (!in->bytes)
        return sb_image_load(in->path, mode, img, err);
    FILE *fp = fmemopen(in->bytes, in->len, "rb");
    if (!fp)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = sb_image_read(fp, in->path, mode, img, err);
    fclose(fp);
    return st;
}

/* An output of `run`: checked before any work, then written through a
 * temporary file that is renamed into place only when every output is
 * written (sb_atomic_hold_begin/end). */
typedef struct run_output {
    const char *path;
    char canonical[PATH_MAX + 256];   /* the real directory + base name */
} run_output;

/* `channels`: what the algorithm draws there (1 grey, 3 colour), which a
 * .pgm or .ppm file must hold. */
static sb_status output_check(run_output *o, const char *path, const char *what, int channels, sb_error *err)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path, *dot = strrchr(base, '.');
    if (!*base)
        return sb_fail(err, SB_ERR_USAGE, "%s: the %s path names a directory", path, what);
    if (!dot || (strcasecmp(dot, ".png") && strcasecmp(dot, ".ppm") && strcasecmp(dot, ".pgm") &&
                 strcasecmp(dot, ".pnm")))
        return sb_fail(err, SB_ERR_USAGE, "%s: unknown format for the %s (use .png, .ppm or .pgm)", path, what);
    if ((channels == 3 && strcasecmp(dot, ".pgm") == 0) || (channels == 1 && strcasecmp(dot, ".ppm") == 0))
        return sb_fail(err, SB_ERR_USAGE, "%s: a %s file holds %s, and the %s is %s (use %s or .png)", path, dot,
                       channels == 3 ? "grey" : "colour", what, channels == 3 ? "colour" : "grey",
                       channels == 3 ? ".ppm" : ".pgm");
    char dir[PATH_MAX], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !realpath(dir, real))
        return sb_fail(err, SB_ERR_IO, "%s: cannot write the %s: its directory does not exist (%s)", path, what,
                       dir);
    if (access(dir, W_OK) != 0)
        return sb_fail(err, SB_ERR_IO, "%s: cannot write the %s: its directory is not writable (%s)", path, what,
                       dir);
    snprintf(o->canonical, sizeof o->canonical, "%s/%s", real, base);
    /* what a killed run left here for this output */
    sb_temp_sweep(real, time(NULL));
    return SB_OK;
}

/* The algorithm's own options, read from its options_help ("--k 1..256
 * (16)  --init spread|kmeans++ ..."), where two joined by " | " exclude
 * each other ("--size S (16) | --segments N"). */
enum { ALGO_OPTIONS_MAX = 16 };
typedef struct algo_options {
    char name[ALGO_OPTIONS_MAX][32];
    const char *ptr[ALGO_OPTIONS_MAX];
    int count;
    int exclusive[ALGO_OPTIONS_MAX];     /* the index of the option it excludes, or -1 */
} algo_options;

static void algo_options_read(const sb_algo *algo, algo_options *ao)
{
    memset(ao, 0, sizeof *ao);
    int bar = 0;                          /* a " | " since the last option */
    for (const char *p = algo->options_help; *p && ao->count < ALGO_OPTIONS_MAX; p++) {
        if (p[0] == '|' && p[-1] == ' ')
            bar = 1;
        if (p[0] != '-' || p[1] != '-' || (p > algo->options_help && p[-1] != ' '))
            continue;
        int n = ao->count++;
        snprintf(ao->name[n], sizeof ao->name[n], "%.*s", (int)strcspn(p + 2, " "), p + 2);
        ao->ptr[n] = ao->name[n];
        ao->exclusive[n] = bar && n > 0 ? n - 1 : -1;
        if (bar && n > 0)
            ao->exclusive[n - 1] = n;
        bar = 0;
    }
}

/* Every --key the command line passed to the algorithm is one of its
 * options, and no two exclude each other; else one line that names the
 * nearest option of run's own or the algorithm's. */
static sb_status check_algo_options(const sb_algo *algo, const sb_single_request *q, sb_error *err)
{
    algo_options ao;
    algo_options_read(algo, &ao);
    int given[ALGO_OPTIONS_MAX] = { 0 };
    const char (*keys)[64] = q->keys;
    for (int i = 0; i < q->nkeys; i++) {
        int k = 0;
        while (k < ao.count && strcmp(ao.name[k], keys[i]) != 0)
            k++;
        if (k < ao.count) {
            given[k] = 1;
            if (ao.exclusive[k] >= 0 && given[ao.exclusive[k]])
                return sb_fail(err, SB_ERR_USAGE, "%s: give --%s or --%s, not both", algo->name,
                               ao.name[ao.exclusive[k]], ao.name[k]);
            continue;
        }
        const char *names[64 + ALGO_OPTIONS_MAX];
        int n = 0;
        for (int o = 0; o < q->own_count && o < 64; o++)
            names[n++] = q->own_options[o].name;
        for (int o = 0; o < ao.count; o++)
            names[n++] = ao.ptr[o];
        const char *near = sb_nearest_name(keys[i], names, n);
        if (near)
            return sb_fail(err, SB_ERR_USAGE, "unknown option --%s (did you mean --%s? see 'segbench run --help' "
                           "and 'segbench list --algo %s')", keys[i], near, algo->name);
        return sb_fail(err, SB_ERR_USAGE, "unknown option --%s: %s takes %s%s (see 'segbench run --help')", keys[i],
                       algo->name, ao.count ? "" : "no options of its own", ao.count ? algo->options_help : "");
    }
    return SB_OK;
}

/* The one name of `names` that the patterns pick. */
static sb_status pick_one(const char *patterns, const char *const *names, int count, const char *what,
                          const char *algo, const char **out, sb_error *err)
{
    sb_status st = sb_pattern_check(patterns, names, count, what, err);
    if (st)
        return st;
    char picked[300] = "";
    int n = 0;
    for (int i = 0; i < count; i++)
        if (sb_pattern_match(patterns, names[i])) {
            size_t len = strlen(picked);
            snprintf(picked + len, sizeof picked - len, "%s%s", n ? ", " : "", names[i]);
            *out = names[i];
            n++;
        }
    if (n > 1)
        return sb_fail(err, SB_ERR_USAGE, "%s: '%s' matches %d of %s's (%s); run takes one", what, patterns, n, algo,
                       picked);
    return SB_OK;
}

/* The request resolved: what it names, checked. */
typedef struct single_run {
    const sb_single_request *q;
    const sb_algo *algo;
    int stage;
    const sb_variant *v;
    run_output outs[2];                 /* the picture, and --labels */
} single_run;

/* The algorithm, stage and variant named, each checked: it exists, it
 * takes what was asked, it can run here. */
static sb_status run_resolve(single_run *q, sb_error *err)
{
    const sb_algo *algo = q->algo = sb_algo_find(q->q->pos[0]);
    if (!algo) {
        const char *names[64];
        int n = sb_algo_names(names, 64);
        const char *near = sb_nearest_name(q->q->pos[0], names, n);
        return sb_fail(err, SB_ERR_USAGE, "unknown algorithm '%s'%s%s%s (see 'segbench list')", q->q->pos[0],
                       near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    }
    sb_status st = check_algo_options(algo, q->q, err);
    if (st)
        return st;
    if (q->q->stage_name) {
        const char *picked = NULL;
        if ((st = pick_one(q->q->stage_name, algo->stages, algo->stage_count, "--stage", algo->name, &picked, err)))
            return st;
        q->stage = sb_stage_find(algo, picked);
    }
    const sb_variant *v = q->v = sb_reference_variant(algo);
    if (q->q->variant_name) {
        const char *names[64], *picked = NULL;
        int n = sb_variant_names(algo->name, names, 64);
        if ((st = pick_one(q->q->variant_name, names, n, "--variant", algo->name, &picked, err)))
            return st;
        v = q->v = sb_variant_find(algo->name, picked);
    }
    if (q->q->threads_given && !(v->flags & SB_THREADED) && q->q->threads != 1)
        return sb_fail(err, SB_ERR_USAGE, "%s/%s does not take --threads", algo->name, v->name);
    if (v->flags & SB_THREADED) {
        char what[160];
        snprintf(what, sizeof what, "%s/%s", algo->name, v->name);
        sb_warn_oversubscribed(what, q->q->threads);
    }
    if (q->q->labels_path && !algo->write_labels)
        return sb_fail(err, SB_ERR_USAGE, "%s has no label image (--labels)", algo->name);
    if (!(v->stages & (1u << q->stage)))
        return sb_fail(err, SB_ERR_USAGE, "%s/%s does not implement stage %s", algo->name, v->name,
                       algo->stages[q->stage]);
    char unavailable[300];
    if (sb_variant_availability(v, unavailable, sizeof unavailable) != SB_AVAILABLE)
        return sb_fail(err, SB_ERR_UNAVAILABLE, "%s/%s cannot run here: %s", algo->name, v->name, unavailable);
    /* every output path is checked before any work */
    if ((st = output_check(&q->outs[0], q->q->pos[2], "output picture", algo->output_channels, err)))
        return st;
    if (q->q->labels_path) {
        if ((st = output_check(&q->outs[1], q->q->labels_path, "label image", algo->labels_channels, err)))
            return st;
        if (strcmp(q->outs[0].canonical, q->outs[1].canonical) == 0)
            return sb_fail(err, SB_ERR_USAGE, "%s: --labels names the output picture itself", q->q->labels_path);
    }
    return SB_OK;
}

/* The input's size from its header -- a decompression bomb or an image
 * this machine cannot hold is refused here, before anything is decoded --
 * and the parameters for it (*params, malloc'd). */
static sb_status run_probe(const single_run *q, run_input *input, void **params, sb_error *err)
{
    const sb_algo *algo = q->algo;
    sb_image_info info;
    sb_status st = input_probe(input, &info, err);
    if (st)
        return st;
    if ((size_t)info.width * (size_t)info.height > SB_PIXEL_WARN)
        fprintf(stderr, "warning: %s is %dx%d, %.0f Mpx: a large image (refused above %.0f Mpx; --max-pixels)\n",
                q->q->pos[1], info.width, info.height, (double)info.width * info.height / 1e6,
                sb_image_pixel_limit() / 1e6);
    char why[300];
    if (!sb_case_fits(algo, info.width, info.height, why, sizeof why))
        return sb_fail(err, SB_ERR_LIMIT, "%s: %s", q->q->pos[1], why);
    if (!(*params = calloc(1, algo->params_size)))
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    algo->params_default(*params, q->stage);
    if (algo->image_params) {           /* GrabCut: a rectangle inset from the border, unless --rect */
        int rect[4];
        sb_dataset_default_rect(info.width, info.height, rect);
        algo->image_params(*params, rect, why, sizeof why);
    }
    for (int i = 0; i < q->q->nkeys && !st; i++)
        st = algo->params_option(*params, q->q->keys[i], q->q->values[i], err);
    return st;
}

/* The variant's output, checked against the reference, then written: all
 * outputs or none. */
static sb_status run_and_write(const single_run *q, const sb_case_data *cd, void *out, void *stream, double *ms,
                               sb_error *err)
{
    const sb_algo *algo = q->algo;
    const sb_variant *v = q->v;
    double t0 = sb_clock_ms();
    sb_status st = sb_run_once(&cd->c, v, q->q->threads, stream, out, 1, NULL, err);
    *ms = sb_clock_ms() - t0;
    if (st)
        return st;
    sb_agreement ag;
    sb_output_check(algo, &cd->input, cd->params, cd->reference, out, v->flags, &ag);
    if (!ag.ok && !(v->flags & SB_FLOOR))
        return sb_fail(err, SB_ERR_AGREEMENT, "%s/%s disagrees with the reference: %s (nothing written)",
                       algo->name, v->name, ag.metric);
    const void *shown = (v->flags & SB_FLOOR) ? cd->reference : out;
    sb_atomic_hold_begin();
    st = algo->write_output(q->outs[0].path, &cd->input, cd->params, shown, err);
    if (!st && q->q->labels_path)
        st = algo->write_labels(q->outs[1].path, shown, err);
    sb_status moved = sb_atomic_hold_end(!st, err);
    return st ? st : moved;
}

static sb_status run_single_with(single_run *q, const sb_single_request *request, sb_error *err)
{
    memset(q, 0, sizeof *q);
    q->q = request;
    sb_status st = run_resolve(q, err);
    if (st)
        return st;
    run_input input = { request->pos[1], NULL, 0 };
    void *params = NULL;
    st = run_probe(q, &input, &params, err);

    const sb_algo *algo = q->algo;
    sb_image loaded = { 0 };
    sb_case_data cd = { 0 };
    void *stream = NULL, *out = NULL;
    if (!st)
        st = input_load(&input, algo->load_mode, &loaded, err);
    free(input.bytes);             /* a stream's bytes: decoded now */
    /* the reference is computed too: a variant's output is only written if it agrees */
    if (!st)
        st = sb_case_open(&cd, NULL, algo, q->stage, params, &loaded, err);
    if (!st && (q->v->flags & SB_DEVICE))
        st = sb_device_stream_create(&stream, err);
    if (!st)
        st = sb_output_alloc_for(algo, q->v->flags, &out, &cd.input, cd.params, err);
    double ms = 0.0;
    if (!st)
        st = run_and_write(q, &cd, out, stream, &ms, err);
    if (!st && algo->describe)
        algo->describe(stdout, cd.params, out);
    if (!st)
        fprintf(stderr, "%s/%s %s: %dx%d in %.3f ms (prepare + run + fetch) -> %s\n", algo->name, q->v->name,
                algo->stages[q->stage], loaded.width, loaded.height, ms, request->pos[2]);
    if (out)
        sb_output_free(out);
    sb_device_stream_destroy(stream);
    sb_case_close(&cd);
    sb_image_free(&loaded);
    free(params);
    return st;
}

sb_status sb_run_single(const sb_single_request *request, sb_error *err)
{
    single_run *q = calloc(1, sizeof *q);       /* large: the heap, not a static */
    if (!q)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = run_single_with(q, request, err);
    free(q);
    return st;
}
