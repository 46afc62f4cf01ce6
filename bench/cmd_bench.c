/* cmd_bench.c - `segbench bench` and `segbench check`: every selected
 * variant on every selected image, checked against the reference and (for
 * bench) timed; rows, raw samples, the machine fingerprint and the gallery
 * go to results/<machine-id>/. */
#include "commands.h"

#include "args.h"
#include "cases.h"
#include "env.h"
#include "harness.h"
#include "quality.h"

#include "segbench/atomic_file.h"
#include "segbench/device.h"
#include "segbench/image_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_THREAD_COUNTS = 16, MAX_FILES = 256 };

typedef struct bench_opts {
    int check_only;
    const char *set;
    char *files[MAX_FILES];
    int nfiles;
    const char *algos, *variants, *stages;   /* comma lists, NULL = all */
    int threads[MAX_THREAD_COUNTS], nthreads;
    sb_timing_opts timing;
    const char *results_dir;
    int quiet;
} bench_opts;

typedef struct bench_run {
    const bench_opts *o;
    sb_env env;
    sb_dataset ds;
    void *stream;               /* one CUDA stream for every device variant */
    int total, done;            /* rows, for the progress line */
    int failures, errors;
    int tty;
    char failed[32][200];         /* the first failures, repeated at the end */
    /* gallery/index.tsv, kept in memory and rewritten after every image */
    FILE *gallery_index;
    char *gallery_text;
    size_t gallery_len;
    char gallery_path[1200];
} bench_run;

/* Rewrite gallery/index.tsv from what is known so far. */
static sb_status gallery_index_write(bench_run *r, sb_error *err)
{
    if (!r->gallery_index)
        return SB_OK;
    fflush(r->gallery_index);
    return sb_atomic_write_text(r->gallery_path, r->gallery_text, err);
}

/* Does some algorithm have a variant of this name? */
static int variant_named(const char *name)
{
    for (int i = 0; i < sb_variant_count(); i++)
        if (strcmp(sb_variant_at(i)->name, name) == 0)
            return 1;
    return 0;
}

/* Does some algorithm have a stage of this name? */
static int stage_named(const char *name)
{
    for (int i = 0; i < sb_algo_count(); i++)
        for (int s = 0; s < sb_algo_at(i)->stage_count; s++)
            if (strcmp(sb_algo_at(i)->stages[s], name) == 0)
                return 1;
    return 0;
}

static sb_status bench_parse(int argc, char **argv, bench_opts *o, sb_error *err)
{
    sb_timing_defaults(&o->timing);
    o->timing.budget_ms = 300.0;
    sb_args a = sb_args_begin(argc, argv, err);
    sb_status st = SB_OK;
    while (!st && sb_args_next(&a)) {
        if (sb_args_opt(&a, "--set"))
            o->set = a.value;
        else if (sb_args_opt(&a, "--image")) {
            if (o->nfiles == MAX_FILES)
                return sb_fail(err, SB_ERR_USAGE, "at most %d --image files", MAX_FILES);
            o->files[o->nfiles++] = (char *)a.value;
        } else if (sb_args_opt(&a, "--algo"))
            o->algos = a.value;
        else if (sb_args_opt(&a, "--variant"))
            o->variants = a.value;
        else if (sb_args_opt(&a, "--stage"))
            o->stages = a.value;
        else if (sb_args_opt(&a, "--threads"))
            st = sb_parse_int_list(a.value, 1, 1024, "--threads", o->threads, MAX_THREAD_COUNTS, &o->nthreads, err);
        else if (sb_args_opt(&a, "--budget"))
            st = sb_parse_double(a.value, 1.0, 600000.0, "--budget (ms)", &o->timing.budget_ms, err);
        else if (sb_args_opt(&a, "--min-reps"))
            st = sb_parse_int(a.value, 1, 100000, "--min-reps", &o->timing.min_reps, err);
        else if (sb_args_opt(&a, "--max-reps"))
            st = sb_parse_int(a.value, 1, 100000, "--max-reps", &o->timing.max_reps, err);
        else if (sb_args_flag(&a, "--no-flush"))
            o->timing.flush_l2 = 0;
        else if (sb_args_opt(&a, "--results"))
            o->results_dir = a.value;
        else if (sb_args_flag(&a, "--quiet"))
            o->quiet = 1;
        else
            return sb_args_unknown(&a);
    }
    if (a.status || st)
        return a.status ? a.status : st;
    if (o->timing.max_reps < o->timing.min_reps)
        return sb_fail(err, SB_ERR_USAGE, "--max-reps %d is below --min-reps %d", o->timing.max_reps,
                       o->timing.min_reps);
    if (o->nthreads == 0)
        o->nthreads = sb_default_threads(o->threads, MAX_THREAD_COUNTS);
    char item[64];
    for (const char *p = o->algos; sb_list_next(&p, item, sizeof item);)
        if (!sb_algo_find(item))
            return sb_fail(err, SB_ERR_USAGE, "--algo: unknown algorithm '%s' (see 'segbench list')", item);
    for (const char *p = o->variants; sb_list_next(&p, item, sizeof item);)
        if (!variant_named(item))
            return sb_fail(err, SB_ERR_USAGE, "--variant: unknown variant '%s' (see 'segbench list')", item);
    for (const char *p = o->stages; sb_list_next(&p, item, sizeof item);)
        if (!stage_named(item))
            return sb_fail(err, SB_ERR_USAGE, "--stage: unknown stage '%s' (see 'segbench list')", item);
    return SB_OK;
}

static int variant_selected(const bench_opts *o, const sb_variant *v, const sb_algo *algo, int stage)
{
    return strcmp(v->algo, algo->name) == 0 && sb_in_list(o->variants, v->name) && (v->stages & (1u << stage)) &&
           sb_in_list(o->stages, algo->stages[stage]);
}

static void progress(bench_run *r, const char *what)
{
    r->done++;
    if (r->tty && !r->o->quiet) {
        fprintf(stderr, "\r\033[K[%d/%d] %s", r->done, r->total, what);
        fflush(stderr);
    }
}

static void progress_clear(bench_run *r)
{
    if (r->tty && !r->o->quiet)
        fprintf(stderr, "\r\033[K");
}

static void note_failure(bench_run *r, const char *row, const char *metric)
{
    if (r->failures < 32)
        snprintf(r->failed[r->failures], sizeof r->failed[0], "%.80s: %.110s", row, metric);
    r->failures++;
}

/* Measure (or check) one variant at one thread count and record the row. */
static void bench_one(bench_run *r, sb_rows *rows, const sb_dataset_image *im, const sb_case *c,
                      const sb_variant *v, int threads)
{
    const sb_algo *algo = c->algo;
    char label[256];
    snprintf(label, sizeof label, "%s %s %s t%d %s", algo->name, algo->stages[c->stage], v->name, threads,
             im->name);
    progress(r, label);
    void *stream = (v->flags & SB_DEVICE) ? r->stream : NULL;

    sb_error err = { SB_OK, "" };
    sb_measurement m;
    memset(&m, 0, sizeof m);
    sb_status st = r->o->check_only ? sb_check_only(c, v, threads, stream, &m.agreement, &err)
                                    : sb_measure(c, v, threads, stream, &r->o->timing, &m, &err);
    if (st) {                                  /* could not run at all: a failure too */
        m.agreement.ok = 0;
        snprintf(m.agreement.verdict, sizeof m.agreement.verdict, "FAIL");
        snprintf(m.agreement.metric, sizeof m.agreement.metric, "error: %s", err.msg);
        r->errors++;
    }
    if (!m.agreement.ok)
        note_failure(r, label, m.agreement.metric);

    progress_clear(r);
    if (r->o->check_only) {
        printf("%-9s %-6s %-14s t%-3d %-22s %-6s %s\n", algo->name, algo->stages[c->stage], v->name, threads,
               im->name, m.agreement.verdict, m.agreement.metric);
        sb_measurement_free(&m);
        return;
    }

    sb_row *row = sb_rows_add(rows);
    if (!row) {
        note_failure(r, label, "out of memory for the results row");
        r->errors++;
    } else {
        snprintf(row->algo, sizeof row->algo, "%s", algo->name);
        snprintf(row->stage, sizeof row->stage, "%s", algo->stages[c->stage]);
        snprintf(row->variant, sizeof row->variant, "%s", v->name);
        snprintf(row->backend, sizeof row->backend, "%s", v->backend);
        row->threads = threads;
        snprintf(row->image, sizeof row->image, "%s", im->name);
        row->width = c->input->width;
        row->height = c->input->height;
        row->kernel = m.kernel;
        row->e2e = m.e2e;
        row->bytes = algo->bytes(c->input, c->params, c->reference);
        row->gbps = m.kernel.median > 0 ? row->bytes / (m.kernel.median * 1e-3) / 1e9 : 0.0;
        double peak = (v->flags & SB_DEVICE) ? r->env.device_copy_gbps : sb_env_host_peak(&r->env, threads);
        row->peak_fraction = peak > 0 ? row->gbps / peak : 0.0;
        snprintf(row->agreement, sizeof row->agreement, "%s", m.agreement.verdict);
        snprintf(row->metric, sizeof row->metric, "%s", m.agreement.metric);
        row->kernel_ms = m.kernel_ms;
        row->e2e_ms = m.e2e_ms;
        m.kernel_ms = m.e2e_ms = NULL;
        if (!r->o->quiet)
            printf("%-9s %-6s %-14s t%-3d %-20s %10.4f ms [%.4f-%.4f] e2e %9.3f ms %8.1f GB/s %5.1f%%  %s\n",
                   row->algo, row->stage, row->variant, threads, row->image, m.kernel.median, m.kernel.p25,
                   m.kernel.p75, m.e2e.median, row->gbps, 100.0 * row->peak_fraction, row->agreement);
    }
    sb_measurement_free(&m);
    fflush(stdout);
}

static int stage_rows(const bench_opts *o, const sb_algo *algo, int stage)
{
    int n = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        char why[300];
        if (variant_selected(o, v, algo, stage) && sb_variant_availability(v, why, sizeof why) == SB_AVAILABLE)
            n += (v->flags & SB_THREADED) ? o->nthreads : 1;
    }
    return n;
}

/* The gallery: the reference's pictures for images marked for it. */
static sb_status bench_gallery(const char *dir, FILE *index, const sb_algo *algo,
                               const sb_dataset_image *im, const sb_case *c, sb_error *err)
{
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s-%s", algo->name, im->name);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = algo->gallery(dir, prefix, c->input, c->params, c->reference, mem, err);
    fclose(mem);
    for (char *line = buf, *next; !st && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        fprintf(index, "%s\t%s\t%s\n", algo->name, im->name, line);
    }
    free(buf);
    return st;
}

/* The image's ground-truth labels (or foreground mask), when the manifest
 * names them. */
static sb_status load_truth(const sb_dataset_image *im, int mask, sb_labels *truth, int *have, sb_error *err)
{
    *have = 0;
    const char *path = mask ? im->mask : im->labels;
    if (!path[0])
        return SB_OK;
    sb_image grey = { 0 };
    sb_status st = sb_image_load(path, SB_LOAD_GREY, &grey, err);
    if (!st)
        st = sb_labels_alloc(truth, grey.width, grey.height, err);
    if (!st) {
        for (int y = 0; y < grey.height; y++)
            for (int x = 0; x < grey.width; x++)
                truth->data[(size_t)y * grey.width + x] = sb_image_row(&grey, y)[x];
        *have = 1;
    }
    if (grey.data)
        sb_image_free(&grey);
    return st;
}

/* The quality of the reference's output on this image and stage. */
static sb_status bench_quality(sb_quality_rows *q, const sb_algo *algo, const sb_dataset_image *im,
                               const sb_case *c, sb_error *err)
{
    sb_labels truth = { 0 };
    int have;
    sb_status st = load_truth(im, algo->truth_is_mask, &truth, &have, err);
    sb_quality measures;
    if (!st)
        st = algo->quality(c->input, c->params, c->reference, have ? &truth : NULL, &measures, err);
    if (!st)
        st = sb_quality_add(q, algo->stages[c->stage], im->name, c->input->width, c->input->height, &measures, err);
    if (have)
        sb_labels_free(&truth);
    return st;
}

/* Rows, samples and quality so far -- rewritten after every image, so a
 * run that is stopped keeps every image it finished. */
static sb_status bench_write(const sb_rows *rows, const sb_quality_rows *q, const sb_algo *algo,
                             const char *results_dir, sb_error *err)
{
    char path[1200];
    sb_status st = SB_OK;
    if (rows->count > 0) {
        snprintf(path, sizeof path, "%s/%s.csv", results_dir, algo->name);
        st = sb_rows_write_csv(rows, path, err);
        if (!st) {
            snprintf(path, sizeof path, "%s/%s.samples.csv", results_dir, algo->name);
            st = sb_rows_write_samples(rows, path, err);
        }
    }
    if (!st && q->count > 0) {
        snprintf(path, sizeof path, "%s/%s.quality.csv", results_dir, algo->name);
        st = sb_quality_write_csv(q, algo->name, path, err);
    }
    return st;
}

/* Is the image above what the algorithm is benchmarked on? */
static int too_large(const sb_algo *algo, int width, int height)
{
    return algo->max_bench_pixels > 0 && (long)width * height > algo->max_bench_pixels;
}

/* Can the algorithm use the image at all (image_params)? */
static int usable_image(const sb_algo *algo, const sb_dataset_image *im)
{
    void *params = NULL;
    int usable = 0;
    char why[200];
    sb_error err;
    if (sb_case_params(algo, 0, im->rect, &params, &usable, why, sizeof why, &err) != SB_OK)
        usable = 1;              /* out of memory: let the run itself say so */
    free(params);
    return usable;
}

static sb_status bench_algo(bench_run *r, const sb_algo *algo, const char *results_dir, sb_error *err)
{
    FILE *gallery_index = r->gallery_index;
    const bench_opts *o = r->o;
    sb_rows rows = { 0 };
    sb_quality_rows quality = { 0 };
    char gallery_dir[1200];
    snprintf(gallery_dir, sizeof gallery_dir, "%s/gallery", results_dir ? results_dir : ".");
    sb_status st = SB_OK;

    for (int i = 0; i < r->ds.count && !st; i++) {
        const sb_dataset_image *im = &r->ds.images[i];
        sb_image loaded;
        if ((st = sb_image_load(im->path, algo->load_mode, &loaded, err)))
            break;
        if (too_large(algo, loaded.width, loaded.height)) {
            if (!o->quiet)
                printf("%-9s skipped on %s (%dx%d): above its bench size of %ld pixels\n", algo->name, im->name,
                       loaded.width, loaded.height, algo->max_bench_pixels);
            sb_image_free(&loaded);
            continue;
        }
        for (int stage = 0; stage < algo->stage_count && !st; stage++) {
            if (stage_rows(o, algo, stage) == 0)
                continue;
            sb_case_data cd;
            void *params = NULL;
            int usable;
            char why[200];
            if ((st = sb_case_params(algo, stage, im->rect, &params, &usable, why, sizeof why, err)))
                break;
            if (!usable) {
                if (!o->quiet)
                    printf("%-9s skipped on %s: %s\n", algo->name, im->name, why);
                free(params);
                continue;
            }
            st = sb_case_open(&cd, algo, stage, params, &loaded, err);
            free(params);
            if (st)
                break;
            if (stage == 0 && im->gallery && gallery_index && algo->gallery)
                st = bench_gallery(gallery_dir, gallery_index, algo, im, &cd.c, err);
            if (!st && algo->quality && !o->check_only)
                st = bench_quality(&quality, algo, im, &cd.c, err);
            for (int k = 0; k < sb_variant_count() && !st; k++) {
                const sb_variant *v = sb_variant_at(k);
                char why[300];
                if (!variant_selected(o, v, algo, stage) ||
                    sb_variant_availability(v, why, sizeof why) != SB_AVAILABLE)
                    continue;
                if (!(v->flags & SB_THREADED))
                    bench_one(r, &rows, im, &cd.c, v, 1);
                else
                    for (int t = 0; t < o->nthreads; t++)
                        bench_one(r, &rows, im, &cd.c, v, o->threads[t]);
            }
            sb_case_close(&cd);
        }
        sb_image_free(&loaded);
        if (!st && !o->check_only)
            st = bench_write(&rows, &quality, algo, results_dir, err);
        if (!st)
            st = gallery_index_write(r, err);
    }

    if (!st && !o->check_only && rows.count > 0 && !o->quiet) {
        printf("\n");
        sb_report_speedup_tables(&rows, algo, stdout);
    }
    sb_rows_free(&rows);
    sb_quality_free(&quality);
    return st;
}

static void report_unavailable(const bench_opts *o)
{
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        char why[300];
        if (sb_in_list(o->algos, v->algo) && sb_in_list(o->variants, v->name) &&
            sb_variant_availability(v, why, sizeof why) != SB_AVAILABLE)
            fprintf(stderr, "  %s/%s %s\n", v->algo, v->name, why);
    }
}

/* A run of some algorithms (--algo) keeps the other algorithms' gallery
 * entries: copy the old index's lines for algorithms not run now. */
static void keep_other_gallery_lines(const char *path, const char *algos, FILE *to)
{
    FILE *from = algos ? fopen(path, "r") : NULL;
    char line[2048], algo[64];
    if (!from)
        return;
    if (fgets(line, sizeof line, from))          /* the header */
        while (fgets(line, sizeof line, from)) {
            size_t len = strcspn(line, "\t");
            if (len == 0 || len >= sizeof algo)
                continue;
            memcpy(algo, line, len);
            algo[len] = '\0';
            if (sb_algo_find(algo) && !sb_in_list(algos, algo))
                fputs(line, to);
        }
    fclose(from);
}

static sb_status bench_main(int argc, char **argv, int check_only, sb_error *err)
{
    static bench_opts o;
    memset(&o, 0, sizeof o);
    o.check_only = check_only;
    sb_status st = bench_parse(argc, argv, &o, err);
    if (st)
        return st;

    static bench_run r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.tty = isatty(2);
    if ((st = sb_select_images(o.set, o.files, o.nfiles, &r.ds, err)))
        return st;

    if (!check_only)
        fprintf(stderr, "measuring bandwidth ceilings (device copy, host memcpy per thread count)...\n");
    sb_env_collect(&r.env, !check_only, o.threads, o.nthreads);
    snprintf(r.env.set, sizeof r.env.set, "%s", r.ds.name);
    r.env.l2_flush = o.timing.flush_l2;
    if (r.env.device.present && (st = sb_device_stream_create(&r.stream, err)))
        goto out;

    for (int i = 0; i < sb_algo_count(); i++)
        if (sb_in_list(o.algos, sb_algo_at(i)->name))
            for (int img = 0; img < r.ds.count; img++)
                if (!too_large(sb_algo_at(i), r.ds.images[img].width, r.ds.images[img].height) &&
                    usable_image(sb_algo_at(i), &r.ds.images[img]))
                    for (int s = 0; s < sb_algo_at(i)->stage_count; s++)
                        r.total += stage_rows(&o, sb_algo_at(i), s);

    char results_dir[1024] = "";
    if (!check_only) {
        if (o.results_dir)
            snprintf(results_dir, sizeof results_dir, "%s", o.results_dir);
        else
            snprintf(results_dir, sizeof results_dir, "results/%s", r.env.machine_id);
        char gallery_dir[1100], path[1200];
        snprintf(gallery_dir, sizeof gallery_dir, "%s/gallery", results_dir);
        if ((st = sb_mkdirs(gallery_dir, err)))
            goto out;
        snprintf(r.gallery_path, sizeof r.gallery_path, "%s/index.tsv", gallery_dir);
        r.gallery_index = open_memstream(&r.gallery_text, &r.gallery_len);
        if (!r.gallery_index) {
            st = sb_fail(err, SB_ERR_NOMEM, "out of memory for the gallery index");
            goto out;
        }
        fprintf(r.gallery_index, "algo\timage\tfile\tcaption\n");
        keep_other_gallery_lines(r.gallery_path, o.algos, r.gallery_index);
        /* the fingerprint first: rows written as the run goes describe this machine and build */
        snprintf(path, sizeof path, "%s/env.json", results_dir);
        if ((st = sb_env_write_json(&r.env, path, err)))
            goto out;
        fprintf(stderr, "machine %s; dataset %s (%d images); %d rows; results to %s/\n", r.env.machine_id,
                r.ds.name, r.ds.count, r.total, results_dir);
        if (r.env.device.present)
            fprintf(stderr, "device copy %.0f GB/s (read + write); ", r.env.device_copy_gbps);
        fprintf(stderr, "host memcpy %.1f GB/s at 1 thread, %.1f GB/s at %d\n", sb_env_host_peak(&r.env, 1),
                sb_env_host_peak(&r.env, 1 << 30), o.threads[o.nthreads - 1]);
    }
    report_unavailable(&o);

    for (int i = 0; i < sb_algo_count() && !st; i++)
        if (sb_in_list(o.algos, sb_algo_at(i)->name))
            st = bench_algo(&r, sb_algo_at(i), check_only ? NULL : results_dir, err);

    if (!check_only) {
        if (!st)
            st = gallery_index_write(&r, err);
        if (!st)
            fprintf(stderr, "wrote %s/ (env.json, <algo>.csv, <algo>.samples.csv, gallery/)\n", results_dir);
    }
    if (!st && r.failures) {
        fprintf(stderr, "%d row(s) broke their agreement contract%s:\n", r.failures,
                r.errors ? " or failed to run" : "");
        for (int i = 0; i < r.failures && i < 32; i++)
            fprintf(stderr, "  %s\n", r.failed[i]);
        st = sb_fail(err, SB_ERR_AGREEMENT, "%d row(s) marked FAIL", r.failures);
    }
out:
    if (r.gallery_index)
        fclose(r.gallery_index);
    free(r.gallery_text);
    sb_device_stream_destroy(r.stream);
    sb_dataset_free(&r.ds);
    return st;
}

sb_status cmd_bench(int argc, char **argv, sb_error *err) { return bench_main(argc, argv, 0, err); }
sb_status cmd_check(int argc, char **argv, sb_error *err) { return bench_main(argc, argv, 1, err); }
