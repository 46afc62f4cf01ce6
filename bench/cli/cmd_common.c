/* cmd_common.c - helpers the subcommands share (see commands.h). */
#include "cli/commands.h"

#include "cli/args.h"
#include "harness/cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const sb_command *const SB_COMMANDS[] = {
    &sb_cmd_list, &sb_cmd_run, &sb_cmd_bench, &sb_cmd_check, &sb_cmd_compare, &sb_cmd_profile, &sb_cmd_lesson,
    &sb_cmd_exercise, &sb_cmd_grade, &sb_cmd_report,
    &sb_cmd_env,
};
const int SB_COMMAND_COUNT = sizeof SB_COMMANDS / sizeof SB_COMMANDS[0];

sb_status sb_select_images(const char *set, char *const *files, int nfiles, const int *rect, sb_dataset *ds,
                           sb_error *err)
{
    if (nfiles > 0)
        return sb_dataset_from_files(files, nfiles, rect, ds, err);
    if (rect)
        return sb_fail(err, SB_ERR_USAGE, "--rect applies to --image files (a set's rectangles are in its manifest)");
    return sb_dataset_load_set(".", set ? set : "default", ds, err);
}

int sb_bench_takes_image(const sb_algo *algo, const sb_dataset_image *im, int size_caps)
{
    char why[300];
    if (size_caps && algo->max_bench_pixels > 0 && (long)im->width * im->height > algo->max_bench_pixels)
        return 0;
    if (!sb_case_fits(algo, im->width, im->height, why, sizeof why))
        return 0;
    void *params = NULL;
    int usable = 0;
    sb_error err;
    if (sb_case_params(algo, 0, im->rect, &params, &usable, why, sizeof why, &err) != SB_OK)
        usable = 1;              /* out of memory: let the run itself say so */
    free(params);
    return usable;
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
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
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
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0 && threads > cores)
        fprintf(stderr, "warning: %s runs %d threads on %ld cores: oversubscribed, its times measure the "
                        "scheduler as much as the code\n", what, threads, cores);
}

sb_status sb_parse_variant_spec(const char *spec, const sb_variant **v, int *threads, sb_error *err)
{
    char algo[64], name[64];
    const char *slash = strchr(spec, '/');
    if (!slash || slash == spec || (size_t)(slash - spec) >= sizeof algo)
        return sb_fail(err, SB_ERR_USAGE, "'%s': name a variant as algo/variant[@threads]", spec);
    snprintf(algo, sizeof algo, "%.*s", (int)(slash - spec), spec);
    const char *at = strchr(slash, '@');
    size_t len = at ? (size_t)(at - slash - 1) : strlen(slash + 1);
    if (len == 0 || len >= sizeof name)
        return sb_fail(err, SB_ERR_USAGE, "'%s': name a variant as algo/variant[@threads]", spec);
    snprintf(name, sizeof name, "%.*s", (int)len, slash + 1);
    if (!sb_algo_find(algo))
        return sb_fail(err, SB_ERR_USAGE, "'%s': unknown algorithm '%s' (see 'segbench list')", spec, algo);
    *v = sb_variant_find(algo, name);
    if (!*v)
        return sb_fail(err, SB_ERR_USAGE, "'%s': unknown variant '%s' of %s (see 'segbench list')", spec, name,
                       algo);
    *threads = 1;
    if (at) {
        sb_status st = sb_parse_int(at + 1, 1, 1024, "thread count", threads, err);
        if (st)
            return st;
        if (*threads > 1 && !((*v)->flags & SB_THREADED))
            return sb_fail(err, SB_ERR_USAGE, "'%s': %s/%s does not take a thread count", spec, algo, name);
    }
    return SB_OK;
}
