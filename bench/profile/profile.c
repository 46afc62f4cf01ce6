/* profile.c - `segbench profile ALGO/VARIANT`: one checked run of each
 * chosen variant, stage and image, each alone between cudaProfilerStart()
 * and cudaProfilerStop(), for a profiler that records only that:
 *
 *   ncu --profile-from-start off segbench profile slic/cuda-registers
 *   nsys profile --capture-range=cudaProfilerApi segbench profile slic/cuda-registers
 *
 * Each run is warmed up first (outside the region), the L2 flushed as
 * bench does, then run once inside an NVTX range named like bench's rows,
 * after a marker kernel that tells a kernel-by-kernel profile where the
 * region begins (device.h), and checked against the serial reference.
 * --regions FILE logs the regions in order, for `profile --import`
 * (bench/profile/), which turns ncu's CSV into <algo>.profile.csv.
 */
#include "profile/profile.h"

#include "base/files.h"
#include "base/args.h"
#include "base/patterns.h"
#include "cases/cases.h"
#include "machine/device_status.h"
#include "variants/names.h"
#include "io/rows.h"
#include "profile/ncu_import.h"

#include "segbench/atomic_file.h"
#include "segbench/clock.h"
#include "segbench/device.h"
#include "segbench/image_io.h"
#include "segbench/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct profile_run {
    const profile_opts *o;
    void *stream;
    int region;               /* the next region's number */
    int failures;
    FILE *regions;
} profile_run;

/* "slic/cuda-*", "grabcut/pthread-bk@8" */
sb_status profile_parse_spec(const char *arg, profile_spec *ps, sb_error *err)
{
    memset(ps, 0, sizeof *ps);
    const char *slash = strchr(arg, '/'), *at = strchr(arg, '@');
    char algo[64];
    if (!slash || slash == arg || (size_t)(slash - arg) >= sizeof algo || !slash[1] || (at && at < slash))
        return sb_fail(err, SB_ERR_USAGE, "'%s': name what to profile as algo/variant (a pattern: slic/cuda-*)", arg);
    snprintf(algo, sizeof algo, "%.*s", (int)(slash - arg), arg);
    if (!(ps->algo = sb_algo_find(algo)))
        return sb_fail(err, SB_ERR_USAGE, "'%s': unknown algorithm '%s' (see 'segbench list')", arg, algo);
    size_t len = at ? (size_t)(at - slash - 1) : strlen(slash + 1);
    if (len == 0 || len >= sizeof ps->pattern)
        return sb_fail(err, SB_ERR_USAGE, "'%s': name what to profile as algo/variant", arg);
    snprintf(ps->pattern, sizeof ps->pattern, "%.*s", (int)len, slash + 1);
    if (at)
        return sb_parse_int(at + 1, 1, 1024, "thread count", &ps->threads, err);
    const char *names[256];
    int n = sb_variant_names(algo, names, 256);
    return sb_pattern_check(ps->pattern, names, n, arg, err);
}

/* Are the variants chosen able to run here?  A CUDA variant on a machine
 * without a usable GPU is refused with the line every command uses. */
static sb_status check_runnable(const profile_opts *o, sb_error *err)
{
    for (int s = 0; s < o->nspec; s++)
        for (int i = 0; i < sb_variant_count(); i++) {
            const sb_variant *v = sb_variant_at(i);
            if (strcmp(v->algo, o->spec[s].algo->name) || !sb_variant_match(o->spec[s].pattern, v->algo, v->name))
                continue;
            char why[256];
            if (sb_variant_availability(v, why, sizeof why) != SB_AVAILABLE)
                return sb_fail(err, SB_ERR_USAGE, "%s/%s cannot run here: %s", v->algo, v->name, why);
            if (o->spec[s].threads > 1 && !(v->flags & SB_THREADED))
                return sb_fail(err, SB_ERR_USAGE, "%s/%s does not take a thread count", v->algo, v->name);
        }
    return SB_OK;
}

/* Warm up, then the one profiled run, then its check. */
static sb_status profile_one(profile_run *r, const sb_case *c, const sb_variant *v, int threads, sb_error *err)
{
    int device = (v->flags & SB_DEVICE) != 0;
    void *stream = device ? r->stream : NULL;
    const char *stage = c->algo->stages[c->stage];
    char at[16] = "";
    if (threads > 1)
        snprintf(at, sizeof at, "@%d", threads);
    sb_session s;
    sb_status st = sb_session_open(&s, c, v, threads, stream, 1, err);
    if (st)
        return st;
    double ms = 0.0;
    sb_trace_push("%s/%s%s/%s/%s warm-up", c->algo->name, v->name, at, stage, c->image);
    for (int i = 0; i < r->o->warmup && !st; i++)
        st = sb_session_sample(&s, device, &ms, err);
    sb_trace_pop();
    if (!st && device)
        st = sb_device_flush_l2(stream, err);
    if (!st && device && !(st = sb_device_sync(stream, err)) && !(st = sb_device_profiler_start(err)))
        st = sb_device_profile_marker(r->region, stream, err);
    if (!st) {
        sb_trace_push("%s/%s%s/%s/%s", c->algo->name, v->name, at, stage, c->image);
        st = sb_session_sample(&s, 0, &ms, err);
        sb_trace_pop();
    }
    if (device) {
        sb_error ignored;
        sb_device_profiler_stop(st ? &ignored : err);
    }
    sb_agreement ag = { 0 };
    if (!st)
        st = sb_session_check(&s, &ag, err);
    sb_session_close(&s);
    if (st)
        return st;
    printf("%-16s %-14s %-16s t%-3d %-20s %10.4f ms  %-9s region %d\n", c->algo->name, stage, v->name, threads,
           c->image, ms, ag.verdict, r->region);
    if (!ag.ok) {
        fprintf(stderr, "%s/%s %s %s: %s\n", c->algo->name, v->name, stage, c->image, ag.metric);
        r->failures++;
    }
    if (r->regions)
        fprintf(r->regions, "%d\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%s\t%.6f\n", r->region, c->algo->name, stage, v->name,
                threads, c->image, c->input->width, c->input->height, ag.verdict, ms);
    if (r->regions)
        fflush(r->regions);
    r->region++;
    fflush(stdout);
    return SB_OK;
}

/* A rung of segbench's own CUDA ladder (not a library, not a copy floor). */
static int is_rung(const sb_variant *v)
{
    return (v->flags & SB_DEVICE) && !(v->flags & SB_FLOOR) && strcmp(v->backend, "lib") != 0;
}

/* --top: the stage's fastest agreeing GPU rung on this image in the
 * result set, and the rung it grows from (its SB_RUNG parent; the rung
 * listed before it where it declares none); NULL where the set has no
 * such row. */
static void top_rungs(const profile_opts *o, const sb_algo *algo, int stage, const char *image,
                      const sb_variant *pick[2])
{
    pick[0] = pick[1] = NULL;
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%.1000s/%.60s.csv", o->results, algo->name);
    sb_rows rows;
    sb_error ignored;
    if (sb_rows_read_ladders(path, &rows, NULL, &ignored) != SB_OK)
        return;
    const sb_row *best = NULL;
    for (int i = 0; i < rows.count; i++) {
        const sb_row *r = &rows.row[i];
        const sb_variant *v = sb_variant_find(algo->name, r->variant);
        if (v && is_rung(v) && !strcmp(r->stage, algo->stages[stage]) && !strcmp(r->image, image) &&
            strcmp(r->agreement, "FAIL") && r->kernel.median > 0 && (!best || r->kernel.median < best->kernel.median))
            best = r;
    }
    const sb_variant *before = NULL;
    for (int i = 0; best && i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, algo->name) || !is_rung(v) || !(v->stages & (1u << stage)))
            continue;
        if (!strcmp(v->name, best->variant)) {
            const sb_variant *parent = v->parent ? sb_variant_find(algo->name, v->parent) : NULL;
            pick[0] = v;
            pick[1] = parent && is_rung(parent) && (parent->stages & (1u << stage)) ? parent : before;
            break;
        }
        before = v;
    }
    sb_rows_free(&rows);
}

/* Every chosen variant of one spec on one image, stage by stage. */
static sb_status profile_image(profile_run *r, const profile_spec *ps, const sb_dataset_image *im, sb_error *err)
{
    const sb_algo *algo = ps->algo;
    sb_image loaded = { 0 };
    sb_status st = sb_image_load(im->path, algo->load_mode, &loaded, err);
    for (int stage = 0; stage < algo->stage_count && !st; stage++) {
        if (!sb_pattern_match(r->o->stages, algo->stages[stage]))
            continue;
        void *params = NULL;
        int usable;
        char why[200];
        if ((st = sb_case_params(algo, stage, im->rect, &params, &usable, why, sizeof why, err)))
            break;
        sb_case_data cd;
        if (!usable) {
            printf("%-16s %-14s skipped on %s: %s\n", algo->name, algo->stages[stage], im->name, why);
        } else if (!(st = sb_case_open(&cd, NULL, algo, stage, params, &loaded, err))) {
            cd.c.image = im->name;
            const sb_variant *pick[2] = { NULL, NULL };
            if (r->o->top) {
                top_rungs(r->o, algo, stage, im->name, pick);
                if (!pick[0])
                    printf("%-16s %-14s no GPU row on %s in %s: nothing to profile\n", algo->name,
                           algo->stages[stage], im->name, r->o->results);
            }
            /* --top: the fastest first, so a profiler stopped on its parent
             * (a long run of launches) has the fastest already */
            int count = r->o->top ? 2 : sb_variant_count();
            for (int i = 0; i < count && !st; i++) {
                const sb_variant *v = r->o->top ? pick[i] : sb_variant_at(i);
                int loop = (v && (v->flags & SB_GRAPH_LOOP)) != 0;
                if (!v || strcmp(v->algo, algo->name) || !sb_variant_match(ps->pattern, v->algo, v->name) ||
                    !(v->stages & (1u << stage)) || (r->o->graph_loops == PROFILE_GRAPH_LOOPS_ONLY && !loop) ||
                    (r->o->graph_loops == PROFILE_GRAPH_LOOPS_NONE && loop))
                    continue;
                int threads = 1;
                if (v->flags & SB_THREADED)
                    threads = ps->threads ? ps->threads : r->o->threads ? r->o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
                st = profile_one(r, &cd.c, v, threads > 0 ? threads : 1, err);
            }
            sb_case_close(&cd);
        }
        free(params);
    }
    sb_image_free(&loaded);
    return st;
}

static sb_status profile_spec_run(profile_run *r, const profile_spec *ps, const sb_dataset *ds, sb_error *err)
{
    if (r->o->images.nfiles || r->o->all_images) {
        sb_status st = SB_OK;
        for (int i = 0; i < ds->count && !st; i++)
            st = profile_image(r, ps, &ds->images[i], err);
        return st;
    }
    const sb_dataset_image *im = sb_summary_image(ds, ps->algo, !r->o->no_size_caps);
    if (!im)
        return sb_fail(err, SB_ERR_USAGE, "%s: no image of set '%s' that bench times it on (try --all-images or --image)",
                       ps->algo->name, ds->name);
    return profile_image(r, ps, im, err);
}

sb_status sb_profile_run(const profile_opts *o, sb_error *err)
{
    sb_status st;
    if (o->import)
        return sb_ncu_import(o->import, o->regions, o->results, err);
    if ((st = check_runnable(o, err)))
        return st;
    sb_dataset ds = { 0 };
    if ((st = sb_image_choice_load(&o->images, "default", &ds, err)))
        return st;
    profile_run r = { o, NULL, 0, 0, NULL };
    char why[256];
    if (sb_device_usable(why, sizeof why) && (st = sb_device_stream_create(&r.stream, err)))
        goto out;
    /* a log, a line a region as each is profiled: what a profiler that
     * was stopped saw is still named */
    if (o->regions) {
        if (!(r.regions = fopen(o->regions, "w"))) {
            st = sb_fail(err, SB_ERR_IO, "%s: cannot write (%s)", o->regions, strerror(errno));
            goto out;
        }
        fprintf(r.regions, "region\talgo\tstage\tvariant\tthreads\timage\twidth\theight\tverdict\tms\n");
    }
    for (int s = 0; s < o->nspec && !st; s++)
        st = profile_spec_run(&r, &o->spec[s], &ds, err);
    if (r.regions && fclose(r.regions) != 0 && !st)
        st = sb_fail(err, SB_ERR_IO, "%s: cannot write (%s)", o->regions, strerror(errno));
    if (!st && r.region == 0)
        st = sb_fail(err, SB_ERR_USAGE, "nothing profiled: no chosen variant runs the chosen stages");
    if (!st && r.failures)
        st = sb_fail(err, SB_ERR_AGREEMENT, "%d profiled run%s broke the agreement contract", r.failures,
                     r.failures > 1 ? "s" : "");
out:
    if (r.stream)
        sb_device_stream_destroy(r.stream);
    sb_dataset_free(&ds);
    return st;
}
