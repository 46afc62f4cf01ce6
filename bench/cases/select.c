/* select.c - the images and stages a command takes (see select.h). */
#define _GNU_SOURCE               /* sched_getaffinity, CPU_COUNT */
#include "cases/select.h"
#include "machine/env.h"

#include "base/args.h"
#include "base/patterns.h"
#include "cases/cases.h"
#include "variants/names.h"

#include "segbench/image_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>

sb_status sb_image_choice_take(sb_image_choice *c, sb_image_option which, const char *value, sb_error *err)
{
    switch (which) {
    case SB_IMAGE_OPT_SET: c->set = value; return SB_OK;
    case SB_IMAGE_OPT_IMAGE:
        if (c->nfiles == SB_IMAGE_FILES_MAX)
            return sb_fail(err, SB_ERR_USAGE, "at most %d --image files", SB_IMAGE_FILES_MAX);
        c->files[c->nfiles++] = (char *)value;
        return SB_OK;
    case SB_IMAGE_OPT_RECT: c->has_rect = 1; return sb_parse_rect(value, c->rect, err);
    case SB_IMAGE_OPT_MAX_PIXELS: return sb_option_max_pixels(value, err);
    case SB_IMAGE_OPT_MAX_MEMORY: return sb_option_max_memory(value, err);
    }
    return sb_fail(err, SB_ERR_USAGE, "unknown image option");
}

int sb_image_choice_option(sb_image_choice *c, const sb_image_options *where, int opt, const char *value,
                           sb_status *st, sb_error *err)
{
    const int index[] = { where->set, where->image, where->rect, where->max_pixels, where->max_memory };
    const sb_image_option which[] = { SB_IMAGE_OPT_SET, SB_IMAGE_OPT_IMAGE, SB_IMAGE_OPT_RECT,
                                      SB_IMAGE_OPT_MAX_PIXELS, SB_IMAGE_OPT_MAX_MEMORY };
    for (size_t k = 0; k < sizeof index / sizeof index[0]; k++)
        if (index[k] >= 0 && opt == index[k]) {
            *st = sb_image_choice_take(c, which[k], value, err);
            return 1;
        }
    return 0;
}

sb_status sb_image_choice_load(const sb_image_choice *c, const char *default_set, sb_dataset *ds, sb_error *err)
{
    return sb_select_images(c->set ? c->set : default_set, c->files, c->nfiles, c->has_rect ? c->rect : NULL, ds,
                            err);
}

sb_status sb_select_images(const char *set, char *const *files, int nfiles, const int *rect, sb_dataset *ds,
                           sb_error *err)
{
    if (nfiles > 0)
        return sb_dataset_from_files(files, nfiles, rect, ds, err);
    if (rect)
        return sb_fail(err, SB_ERR_USAGE, "--rect applies to --image files (a set's rectangles are in its manifest)");
    return sb_dataset_load_set(".", set ? set : "default", ds, err);
}

const char *sb_image_skip_reason(const sb_algo *algo, const sb_dataset_image *im, int size_caps, char *why,
                                 size_t size)
{
    if (size_caps && algo->max_bench_pixels > 0 && (long)im->width * im->height > algo->max_bench_pixels) {
        snprintf(why, size, "above its bench size of %ld pixels, a time budget (--no-size-caps times it anyway)",
                 algo->max_bench_pixels);
        return why;
    }
    return sb_case_fits(algo, im->width, im->height, why, size) ? NULL : why;
}

int sb_bench_takes_image(const sb_algo *algo, const sb_dataset_image *im, int size_caps)
{
    char why[300];
    if (sb_image_skip_reason(algo, im, size_caps, why, sizeof why))
        return 0;
    void *params = NULL;
    int usable = 0;
    sb_error err;
    if (sb_case_params(algo, 0, im->rect, &params, &usable, why, sizeof why, &err) != SB_OK)
        usable = 1;              /* out of memory: let the run itself say so */
    free(params);
    return usable;
}

int sb_stage_variant_chosen(const char *variants, const char *stages, const sb_variant *v, const sb_algo *algo,
                            int stage)
{
    return strcmp(v->algo, algo->name) == 0 && sb_variant_pick(variants, v->algo, v->name) &&
           (v->stages & (1u << stage)) && sb_pattern_match(stages, algo->stages[stage]);
}

const sb_dataset_image *sb_summary_image(const sb_dataset *ds, const sb_algo *algo, int size_caps)
{
    const sb_dataset_image *best = NULL;
    for (int i = 0; i < ds->count; i++) {
        const sb_dataset_image *c = &ds->images[i];
        if (!sb_bench_takes_image(algo, c, size_caps))
            continue;
        int synth = strcmp(c->kind, "synthetic") == 0, best_synth = best && strcmp(best->kind, "synthetic") == 0;
        if (!best || synth > best_synth ||
            (synth == best_synth && (long)c->width * c->height > (long)best->width * best->height))
            best = c;
    }
    return best;
}

sb_status sb_parse_rect(const char *value, int rect[4], sb_error *err)
{
    int n = 0;
    sb_status st = sb_parse_int_list(value, 0, SB_MAX_SIDE, "--rect (X,Y,W,H)", rect, 4, &n, err);
    if (!st && n != 4)
        st = sb_fail(err, SB_ERR_USAGE, "--rect: '%s' is not X,Y,W,H", value);
    if (!st && (rect[2] <= 0 || rect[3] <= 0))
        st = sb_fail(err, SB_ERR_USAGE, "--rect: width and height must be positive (got %dx%d)", rect[2], rect[3]);
    return st;
}

int sb_default_threads(int *threads, int max)
{
    long cores = sb_usable_cores();
    if (cores < 1)
        cores = 1;
    int n = 0;
    for (int t = 1; t <= cores && n < max; t *= 2)
        threads[n++] = t;
    if (n < max && threads[n - 1] != cores)
        threads[n++] = (int)cores;
    return n;
}

void sb_warn_oversubscribed(const char *what, int threads)
{
    long cores = sb_usable_cores();
    if (cores > 0 && threads > cores)
        fprintf(stderr, "warning: %s runs %d threads on %ld cores: oversubscribed, its times measure the "
                        "scheduler as much as the code\n", what, threads, cores);
}

sb_status sb_option_max_pixels(const char *value, sb_error *err)
{
    int px = 0;
    sb_status st = sb_parse_int(value, 1, (long)SB_MAX_PIXELS, "--max-pixels", &px, err);
    if (!st)
        sb_image_set_pixel_limit((size_t)px);
    return st;
}

sb_status sb_option_max_memory(const char *value, sb_error *err)
{
    size_t bytes = 0;
    sb_status st = sb_parse_bytes(value, "--max-memory", &bytes, err);
    if (!st)
        sb_set_memory_budget(bytes);
    return st;
}
