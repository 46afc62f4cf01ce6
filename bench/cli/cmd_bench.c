/* cmd_bench.c - `segbench bench` and `segbench check`: every selected
 * variant on every selected image, checked against the reference and (for
 * bench) timed.  Each row is appended to results/<machine-id>/<algo>.csv
 * (and its samples to <algo>.samples.csv) as soon as it is measured, with
 * the commit, date and run id, so a stopped run keeps what it measured and
 * `bench --resume` finishes it; env.json says whether the run got to its
 * end. */
#include "cli/commands.h"

#include "cli/args.h"
#include "cli/options.h"
#include "cli/patterns.h"
#include "harness/cases.h"
#include "io/catalogue.h"
#include "io/dir_lock.h"
#include "io/env.h"
#include "io/gallery_index.h"
#include "harness/harness.h"
#include "harness/kernels.h"
#include "compare/noise.h"
#include "algos/quality.h"
#include "io/result_set.h"

#include "segbench/atomic_file.h"
#include "segbench/clock.h"
#include "segbench/device.h"
#include "segbench/image_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { MAX_THREAD_COUNTS = 16, MAX_FILES = 256, MAX_CASE_ROWS = 256 };

typedef struct bench_opts {
    int check_only;
    const char *set;
    char *files[MAX_FILES];
    int nfiles;
    const char *algos, *variants, *stages;   /* comma lists of patterns, NULL = all */
    int threads[MAX_THREAD_COUNTS], nthreads;
    int sweep_all;            /* sweep threads on every image and stage, not only the marked image */
    int resume;
    int json;                 /* also write <algo>.json */
    int wait;                 /* wait for the results folder's lock */
    int overwrite;            /* write into a published result set */
    int report;               /* then report on the run */
    int rect[4], has_rect;    /* --rect, for --image files */
    int no_size_caps;         /* bench: measure images above an algorithm's bench size too */
    sb_timing_opts timing;
    const char *results_dir;
    int quiet;
} bench_opts;

/* One row to measure: a variant at a thread count. */
typedef struct planned_row {
    const sb_variant *v;
    int threads;
} planned_row;

/* Where this invocation's time goes (ms, host clock): the serial
 * references and pipeline inputs each case computes before its rows, the
 * kernel census, gallery and quality pictures, each step of the rows'
 * protocol, and the rows by kind -- the serial reference, CPU threads, the
 * GPU -- with the thread sweep's rows below the largest count apart.
 * Printed at the end and kept in env.json (invocation_time_s). */
typedef struct time_account {
    double references, census, pictures;
    double step[SB_STEPS];
    double serial, threaded, gpu, sweep;
} time_account;

typedef struct bench_run {
    const bench_opts *o;
    sb_env env;
    sb_dataset ds;
    char results_dir[1024];
    char row_commit[56];          /* commit as written on each row ("-dirty" when the tree was) */
    void *stream;                 /* one CUDA stream for every device variant */
    int total, done, skipped;     /* rows, for the progress line */
    double weight_total, weight_done, started_ms;
    int failures, errors;
    int pairs_skipped;            /* (image, stage) pairs the stage cannot take */
    double seconds_before;        /* the run's time before this invocation (--resume) */
    double begun_ms;              /* this invocation's start, for run_seconds */
    int noisy;                    /* rows with a spread or over_peak flag */
    int tty;
    char failed[32][200];         /* the first failures, repeated at the end */
    sb_gallery_index gallery;
    int have_gallery;
    sb_dir_lock lock;             /* the results folder, held for the whole run */
    /* the algorithm being measured */
    sb_csv_log rows_log, samples_log, quality_log, kernels_log;
    char *kernels_seen;           /* the census lines written for this algorithm (kernels.c) */
    int census_off;               /* launches cannot be observed here: said once */
    sb_rows done_rows;            /* rows of this run already in the results (--resume) */
    char *quality_text;           /* its quality file so far (--resume), to add no line twice */
    time_account spent;
} bench_run;

/* ---- options ---------------------------------------------------------------------------- */

enum {
    OPT_SET, OPT_IMAGE, OPT_RECT, OPT_ALGO, OPT_VARIANT, OPT_STAGE, OPT_THREADS, OPT_SWEEP, OPT_MAX_PIXELS,
    OPT_MAX_MEMORY, OPT_BUDGET, OPT_MIN_REPS, OPT_MAX_REPS, OPT_NO_SIZE_CAPS, OPT_NO_FLUSH, OPT_RESUME, OPT_RESULTS,
    OPT_OVERWRITE, OPT_WAIT, OPT_REPORT, OPT_JSON, OPT_QUIET, OPT_COUNT
};

#define BENCH_BUDGET_MS 100
#define SELECTION_OPTIONS                                                                                       \
    [OPT_SET] = { "set", "NAME", "default", "the image set datasets/sets/NAME.set" },                             \
    [OPT_IMAGE] = { "image", "FILE", NULL, "an image file instead of a set (repeat for more)" },                  \
    [OPT_RECT] = { "rect", "X,Y,W,H", "inset by a tenth of each side",                                          \
                   "GrabCut's rectangle on the --image files" },                                               \
    [OPT_ALGO] = { "algo", "PATTERNS", "all", "algorithms: comma list of shell patterns, e.g. kmeans,mean*" },        \
    [OPT_VARIANT] = { "variant", "PATTERNS", "all", "variants: comma list of shell patterns, e.g. 'cuda-*',cpu (students' rungs only by name: 'student-*')" },    \
    [OPT_STAGE] = { "stage", "PATTERNS", "all", "stages: comma list of shell patterns, e.g. filter,merge" },          \
    [OPT_THREADS] = { "threads", "LIST", "1,2,4,... and the core count", "thread counts of threaded variants" },   \
    [OPT_SWEEP] = { "sweep", "marked|all", "marked",                                                            \
                    "where threads are swept: the set's sweep image and first stage, or everywhere" },          \
    [OPT_MAX_PIXELS] = SB_OPTION_MAX_PIXELS,                                                                    \
    [OPT_MAX_MEMORY] = SB_OPTION_MAX_MEMORY,                                                                    \
    [OPT_QUIET] = { "quiet", NULL, NULL, "no progress line and no summary table" }

static const sb_option BENCH_OPTIONS[OPT_COUNT] = {
    SELECTION_OPTIONS,
    [OPT_BUDGET] = { "budget", "MS", SB_STR(BENCH_BUDGET_MS), "time to spend measuring each row" },
    [OPT_MIN_REPS] = { "min-reps", "N", "10", "samples per row at least; a row slower than the budget takes 1" },
    [OPT_MAX_REPS] = { "max-reps", "N", "2000", "samples per row at most" },
    [OPT_NO_SIZE_CAPS] = { "no-size-caps", NULL, NULL,
                           "also time images above an algorithm's bench size (mean-shift, GrabCut: 1920x1080)" },
    [OPT_NO_FLUSH] = { "no-flush", NULL, NULL, "keep the GPU's L2 warm between device runs (default: flushed)" },
    [OPT_RESUME] = { "resume", NULL, NULL, "finish the run in the results directory (same commit and options)" },
    [OPT_RESULTS] = { "results", "DIR", "results/<machine-id>",
                      "where the results go (a published set, results/published.txt: <machine-id>-local)" },
    [OPT_OVERWRITE] = { "overwrite", NULL, NULL, "write into a published result set, replacing its run" },
    [OPT_REPORT] = { "report", NULL, NULL, "then write this run's report and report/MACHINES.md (what make bench does)" },
    [OPT_JSON] = { "json", NULL, NULL, "also write <algo>.json (rows with their samples) beside each CSV" },
    [OPT_WAIT] = { "wait", NULL, NULL, "when another bench is writing to the results folder, wait for it (default: exit 2)" },
};

static const sb_option CHECK_OPTIONS[OPT_COUNT] = { SELECTION_OPTIONS };

const sb_command sb_cmd_bench = {
    "bench", "[options]", "Check every selected variant against the serial reference, then time it; "
                          "write results/<machine-id>/.",
    "Rows go to <algo>.csv and their samples to <algo>.samples.csv as they are measured, so a\n"
    "stopped run keeps them and --resume finishes it.  A row whose spread or bandwidth looks\n"
    "wrong gets a warning line and a flag in the CSV's flags column.\n",
    BENCH_OPTIONS, OPT_COUNT, 0, SB_EXIT_AGREEMENT, cmd_bench,
};

const sb_command sb_cmd_check = {
    "check", "[options]", "Check every selected variant against the serial reference on every image; "
                          "time nothing, write nothing.",
    NULL, CHECK_OPTIONS, OPT_COUNT, 0, SB_EXIT_AGREEMENT, cmd_check,
};

static sb_status bench_parse(int argc, char **argv, bench_opts *o, sb_error *err)
{
    sb_timing_defaults(&o->timing);
    o->timing.budget_ms = BENCH_BUDGET_MS;
    sb_optparse p;
    sb_optparse_begin(&p, o->check_only ? &sb_cmd_check : &sb_cmd_bench, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;) {
        const char *v = p.value;
        switch (opt) {
        case OPT_SET: o->set = v; break;
        case OPT_IMAGE:
            if (o->nfiles == MAX_FILES)
                return sb_fail(err, SB_ERR_USAGE, "at most %d --image files", MAX_FILES);
            o->files[o->nfiles++] = (char *)v;
            break;
        case OPT_RECT:
            st = sb_parse_rect(v, o->rect, err);
            o->has_rect = 1;
            break;
        case OPT_MAX_PIXELS: st = sb_option_max_pixels(v, err); break;
        case OPT_MAX_MEMORY: st = sb_option_max_memory(v, err); break;
        case OPT_NO_SIZE_CAPS: o->no_size_caps = 1; break;
        case OPT_ALGO: o->algos = v; break;
        case OPT_VARIANT: o->variants = v; break;
        case OPT_STAGE: o->stages = v; break;
        case OPT_THREADS:
            st = sb_parse_int_list(v, 1, 1024, "--threads", o->threads, MAX_THREAD_COUNTS, &o->nthreads, err);
            break;
        case OPT_SWEEP:
            if (strcmp(v, "all") == 0)
                o->sweep_all = 1;
            else if (strcmp(v, "marked") != 0)
                return sb_fail(err, SB_ERR_USAGE, "--sweep: '%s' is not 'marked' or 'all'", v);
            break;
        case OPT_BUDGET: st = sb_parse_double(v, 1.0, 600000.0, "--budget (ms)", &o->timing.budget_ms, err); break;
        case OPT_MIN_REPS: st = sb_parse_int(v, 1, 100000, "--min-reps", &o->timing.min_reps, err); break;
        case OPT_MAX_REPS: st = sb_parse_int(v, 1, 100000, "--max-reps", &o->timing.max_reps, err); break;
        case OPT_NO_FLUSH: o->timing.flush_l2 = 0; break;
        case OPT_RESUME: o->resume = 1; break;
        case OPT_RESULTS: o->results_dir = v; break;
        case OPT_JSON: o->json = 1; break;
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_WAIT: o->wait = 1; break;
        case OPT_OVERWRITE: o->overwrite = 1; break;
        case OPT_REPORT: o->report = 1; break;
        default: return sb_optparse_unexpected(&p);
        }
    }
    if (p.status || st)
        return p.status ? p.status : st;
    if (o->timing.max_reps < o->timing.min_reps)
        return sb_fail(err, SB_ERR_USAGE, "--max-reps %d is below --min-reps %d", o->timing.max_reps,
                       o->timing.min_reps);
    if (o->nthreads == 0)
        o->nthreads = sb_default_threads(o->threads, MAX_THREAD_COUNTS);
    for (int i = 0, warned = 0; i < o->nthreads && !warned; i++)
        if (o->threads[i] > sysconf(_SC_NPROCESSORS_ONLN)) {
            sb_warn_oversubscribed("--threads", o->threads[i]);
            warned = 1;
        }
    const char *names[256];
    int n = sb_algo_names(names, 256);
    if ((st = sb_pattern_check(o->algos, names, n, "--algo", err)))
        return st;
    n = sb_variant_names(o->algos, names, 256);
    if ((st = sb_pattern_check(o->variants, names, n, "--variant", err)))
        return st;
    n = sb_stage_names(o->algos, names, 256);
    return sb_pattern_check(o->stages, names, n, "--stage", err);
}

/* The options that shape every timing; a resumed run must share them. */
static void timing_options(const bench_opts *o, const char *set, char *out, size_t size)
{
    char threads[128] = "";
    for (int i = 0, n = 0; i < o->nthreads; i++)
        n += snprintf(threads + n, sizeof threads - (size_t)n, "%s%d", i ? "," : "", o->threads[i]);
    snprintf(out, size, "set=%s budget=%g min_reps=%d max_reps=%d threads=%s sweep=%s l2_flush=%d", set,
             o->timing.budget_ms, o->timing.min_reps, o->timing.max_reps, threads, o->sweep_all ? "all" : "marked",
             o->timing.flush_l2);
}

/* ---- which rows ------------------------------------------------------------------------- */

/* Is the image above what bench times the algorithm on?  A time budget,
 * so `check` (which times nothing) and --no-size-caps ignore it. */
static int size_caps(const bench_opts *o) { return !o->check_only && !o->no_size_caps; }

static int too_large(const bench_opts *o, const sb_algo *algo, int width, int height)
{
    return size_caps(o) && algo->max_bench_pixels > 0 && (long)width * height > algo->max_bench_pixels;
}

/* Why the algorithm is not run on the image at all (above its bench size,
 * or above the memory budget), or NULL: one line for the output. */
static const char *image_skipped(const bench_opts *o, const sb_algo *algo, const sb_dataset_image *im, char *why,
                                 size_t size)
{
    if (too_large(o, algo, im->width, im->height)) {
        snprintf(why, size, "above its bench size of %ld pixels, a time budget (--no-size-caps times it anyway)",
                 algo->max_bench_pixels);
        return why;
    }
    return sb_case_fits(algo, im->width, im->height, why, size) ? NULL : why;
}

static int benched_image(const bench_opts *o, const sb_algo *algo, const sb_dataset_image *im)
{
    return sb_bench_takes_image(algo, im, size_caps(o));
}

/* The thread sweep runs on each algorithm's first stage, at the images the
 * set marks `sweep` (default set: 640x480), or at its largest synthetic image
 * when the set marks none it benchmarks; other stages and images are timed
 * at the largest thread count only, unless --sweep all.  The sweep's low
 * counts are a run's costliest rows (one thread is as slow as the serial
 * reference), and one size is enough to show how a variant scales. */
static int sweeps_threads(const bench_run *r, const sb_algo *algo, int stage, const sb_dataset_image *im)
{
    if (r->o->sweep_all)
        return 1;
    if (stage != 0)
        return 0;
    int marked = 0;
    for (int i = 0; i < r->ds.count; i++)
        marked |= r->ds.images[i].sweep && benched_image(r->o, algo, &r->ds.images[i]);
    if (marked)
        return im->sweep;
    return im == sb_summary_image(&r->ds, algo, size_caps(r->o));   /* the summary's image */
}

static int variant_selected(const bench_opts *o, const sb_variant *v, const sb_algo *algo, int stage)
{
    return strcmp(v->algo, algo->name) == 0 && sb_variant_pick(o->variants, v->algo, v->name) && (v->stages & (1u << stage)) &&
           sb_pattern_match(o->stages, algo->stages[stage]);
}

/* Is this row already in the results of the run being resumed? */
static int already_measured(const bench_run *r, const sb_algo *algo, int stage, const sb_variant *v, int threads,
                            const sb_dataset_image *im)
{
    sb_row key;
    memset(&key, 0, sizeof key);
    snprintf(key.algo, sizeof key.algo, "%s", algo->name);
    snprintf(key.stage, sizeof key.stage, "%s", algo->stages[stage]);
    snprintf(key.variant, sizeof key.variant, "%s", v->name);
    snprintf(key.image, sizeof key.image, "%s", im->name);
    key.threads = threads;
    for (int i = 0; i < r->done_rows.count; i++)
        if (sb_row_same_key(&r->done_rows.row[i], &key))
            return 1;
    return 0;
}

/* The rows still to measure for one (image, stage): variants in registry
 * order, threaded ones at each of their thread counts. */
static int plan_case(const bench_run *r, const sb_algo *algo, int stage, const sb_dataset_image *im,
                     planned_row *plan)
{
    const bench_opts *o = r->o;
    int n = 0, sweep = sweeps_threads(r, algo, stage, im);
    for (int k = 0; k < sb_variant_count(); k++) {
        const sb_variant *v = sb_variant_at(k);
        char why[300];
        if (!variant_selected(o, v, algo, stage) || sb_variant_availability(v, why, sizeof why) != SB_AVAILABLE)
            continue;
        int first = 0, counts = 1;
        if (v->flags & SB_THREADED) {
            counts = o->nthreads;
            first = sweep ? 0 : counts - 1;
        }
        for (int t = first; t < counts && n < MAX_CASE_ROWS; t++) {
            int threads = (v->flags & SB_THREADED) ? o->threads[t] : 1;
            if (!already_measured(r, algo, stage, v, threads, im))
                plan[n++] = (planned_row){ v, threads };
        }
    }
    return n;
}

/* A rough cost of one row, for the ETA: pixels over threads on the host,
 * a small fraction of that on the GPU, plus a fixed overhead. */
static double row_weight(const planned_row *p, const sb_dataset_image *im)
{
    double px = (double)im->width * im->height;
    return 2e4 + ((p->v->flags & SB_DEVICE) ? px / 50.0 : px / p->threads);
}

/* ---- progress ----------------------------------------------------------------------------- */

static void progress(bench_run *r, const char *what)
{
    if (!r->tty || r->o->quiet)
        return;
    char eta[64] = "";
    double elapsed = sb_clock_ms() - r->started_ms;
    if (r->weight_done > 0 && elapsed > 5000.0) {
        double left = elapsed * (r->weight_total - r->weight_done) / r->weight_done / 1000.0;
        snprintf(eta, sizeof eta, ", ETA %dm%02ds", (int)(left / 60), (int)left % 60);
    }
    fprintf(stderr, "\r\033[K[%d/%d%s] %s", r->done + 1, r->total, eta, what);
    fflush(stderr);
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

/* ---- one row ---------------------------------------------------------------------------- */

static void fill_row(const bench_run *r, sb_row *row, const sb_dataset_image *im, const sb_case *c,
                     const sb_variant *v, int threads, sb_measurement *m)
{
    const sb_algo *algo = c->algo;
    snprintf(row->algo, sizeof row->algo, "%s", algo->name);
    snprintf(row->stage, sizeof row->stage, "%s", algo->stages[c->stage]);
    snprintf(row->variant, sizeof row->variant, "%s", v->name);
    snprintf(row->backend, sizeof row->backend, "%s", v->backend);
    row->threads = threads;
    snprintf(row->image, sizeof row->image, "%s", im->name);
    row->width = c->input->width;
    row->height = c->input->height;
    row->kernel = m->kernel;
    row->e2e = m->e2e;
    row->frame = m->frame;
    row->setup = m->setup;
    row->bytes = algo->bytes(c->input, c->params, c->reference);
    row->gbps = m->kernel.median > 0 ? row->bytes / (m->kernel.median * 1e-3) / 1e9 : 0.0;
    double peak = (v->flags & SB_DEVICE) ? r->env.device_copy_gbps : sb_env_host_peak(&r->env, threads);
    row->peak_fraction = peak > 0 ? row->gbps / peak : 0.0;
    snprintf(row->agreement, sizeof row->agreement, "%s", m->agreement.verdict);
    snprintf(row->metric, sizeof row->metric, "%s", m->agreement.metric);
    snprintf(row->commit, sizeof row->commit, "%s", r->row_commit);
    time_t now = time(NULL);
    strftime(row->date, sizeof row->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(row->run_id, sizeof row->run_id, "%s", r->env.run_id);
    row->sm_mhz[0] = m->clocks_start.ok ? m->clocks_start.sm_mhz : 0;
    row->sm_mhz[1] = m->clocks_end.ok ? m->clocks_end.sm_mhz : 0;
    row->mem_mhz[0] = m->clocks_start.ok ? m->clocks_start.mem_mhz : 0;
    row->mem_mhz[1] = m->clocks_end.ok ? m->clocks_end.mem_mhz : 0;
    sb_gpu_clocks_reasons_text((m->clocks_start.reasons | m->clocks_end.reasons) & SB_CLOCKS_THROTTLE_MASK,
                               row->clock_reasons, sizeof row->clock_reasons);
    row->kernel_ms = m->kernel_ms;
    row->e2e_ms = m->e2e_ms;
    row->frame_ms = m->frame_ms;
    row->setup_ms = m->setup_ms;
}

/* env.json: rewritten as the run starts, after every row (so rows_measured
 * is true whatever stops the run) and as it ends. */
static sb_status write_env(bench_run *r, sb_error *err)
{
    char path[1200];
    r->env.run_seconds = r->seconds_before + (sb_clock_ms() - r->begun_ms) / 1000.0;
    snprintf(path, sizeof path, "%s/env.json", r->results_dir);
    return sb_env_write_json(&r->env, path, err);
}

static void account_row(bench_run *r, const sb_variant *v, int threads, const sb_measurement *m)
{
    double row = 0.0;
    for (int k = 0; k < SB_STEPS; k++) {
        r->spent.step[k] += m->step_ms[k];
        row += m->step_ms[k];
    }
    if (v->flags & SB_DEVICE)
        r->spent.gpu += row;
    else if (v->flags & SB_THREADED)
        r->spent.threaded += row;
    else
        r->spent.serial += row;
    if ((v->flags & SB_THREADED) && threads < r->o->threads[r->o->nthreads - 1])
        r->spent.sweep += row;
}

/* The account, as a line for a reader and a JSON object for env.json. */
static void account_text(const bench_run *r, char *line, size_t line_size, char *json, size_t json_size)
{
    const time_account *a = &r->spent;
    double total = sb_clock_ms() - r->begun_ms, known = a->references + a->census + a->pictures;
    for (int k = 0; k < SB_STEPS; k++)
        known += a->step[k];
    double rest = total > known ? total - known : 0.0;
    snprintf(line, line_size,
             "where the time went (%.0f s): serial references and pipeline inputs %.0f s, rows %.0f s, kernel census "
             "%.0f s, gallery and quality %.0f s, the rest %.0f s (images, bandwidth ceilings, files)\n"
             "  rows by step: check %.0f s, warm-up %.0f, timed %.0f, per frame %.0f, cold runs %.0f; by kind: "
             "serial %.0f s, CPU threads %.0f (the sweep's smaller counts %.0f), GPU %.0f",
             total / 1e3, a->references / 1e3, (a->serial + a->threaded + a->gpu) / 1e3, a->census / 1e3,
             a->pictures / 1e3, rest / 1e3, a->step[SB_STEP_CHECK] / 1e3, a->step[SB_STEP_WARMUP] / 1e3,
             a->step[SB_STEP_TIMED] / 1e3, a->step[SB_STEP_FRAMES] / 1e3, a->step[SB_STEP_COLD] / 1e3,
             a->serial / 1e3, a->threaded / 1e3, a->sweep / 1e3, a->gpu / 1e3);
    snprintf(json, json_size,
             "{\"total\": %.1f, \"references\": %.1f, \"check\": %.1f, \"warm_up\": %.1f, \"timed\": %.1f, "
             "\"per_frame\": %.1f, \"cold_runs\": %.1f, \"serial_rows\": %.1f, \"threaded_rows\": %.1f, "
             "\"sweep_rows\": %.1f, \"gpu_rows\": %.1f, \"census\": %.1f, \"gallery_quality\": %.1f, "
             "\"rest\": %.1f}",
             total / 1e3, a->references / 1e3, a->step[SB_STEP_CHECK] / 1e3, a->step[SB_STEP_WARMUP] / 1e3,
             a->step[SB_STEP_TIMED] / 1e3, a->step[SB_STEP_FRAMES] / 1e3, a->step[SB_STEP_COLD] / 1e3,
             a->serial / 1e3, a->threaded / 1e3, a->sweep / 1e3, a->gpu / 1e3, a->census / 1e3, a->pictures / 1e3,
             rest / 1e3);
}

/* Measure (or check) one variant at one thread count; append its row. */
static sb_status bench_one(bench_run *r, sb_rows *rows, const sb_dataset_image *im, const sb_case *c,
                           const planned_row *p, sb_error *fatal)
{
    const sb_algo *algo = c->algo;
    const sb_variant *v = p->v;
    char label[256];
    snprintf(label, sizeof label, "%s %s %s t%d %s", algo->name, algo->stages[c->stage], v->name, p->threads,
             im->name);
    progress(r, label);
    void *stream = (v->flags & SB_DEVICE) ? r->stream : NULL;

    sb_error err = { SB_OK, "" };
    /* the kernel census: a measured row's check run takes it (harness.h);
     * a checked-only row, or one whose check took none, runs once for it */
    int census = (v->flags & SB_DEVICE) && r->kernels_log.fp && !r->census_off;
    sb_timing_opts timing = r->o->timing;
    timing.census = census && !r->o->check_only;
    sb_measurement m;
    memset(&m, 0, sizeof m);
    sb_status st = r->o->check_only ? sb_check_only(c, v, p->threads, stream, &m.agreement, &err)
                                    : sb_measure(c, v, p->threads, stream, &timing, &m, &err);
    if (census && !st) {
        sb_error cerr = { SB_OK, "" };
        double t0 = sb_clock_ms();
        sb_status cs = m.census_n >= 0 ? sb_kernels_log(r->kernels_log.fp, &r->kernels_seen, algo->stages[c->stage],
                                                        v->name, im->name, m.census, m.census_n, &cerr)
                                       : sb_kernels_census(r->kernels_log.fp, &r->kernels_seen, c, v, p->threads,
                                                           stream, im->name, &cerr);
        r->spent.census += sb_clock_ms() - t0;
        if (cs == SB_ERR_UNAVAILABLE) {
            progress_clear(r);
            fprintf(stderr, "note: %s; no kernel census in this run\n", cerr.msg);
            r->census_off = 1;
        } else if (cs) {
            sb_measurement_free(&m);
            return sb_fail(fatal, cs, "%s", cerr.msg);
        }
    }
    r->done++;
    r->weight_done += row_weight(p, im);
    account_row(r, v, p->threads, &m);
    progress_clear(r);
    if (st == SB_ERR_DEVICE_MEMORY) {          /* the GPU cannot hold this image: say so, go on */
        printf("%-9s %-6s %-14s t%-3d %-20s skipped: too little free GPU memory (%s)\n", algo->name,
               algo->stages[c->stage], v->name, p->threads, im->name, err.msg);
        r->skipped++;
        sb_measurement_free(&m);
        return SB_OK;
    }
    if (st) {                                  /* could not run at all: a failure too */
        m.agreement.ok = 0;
        snprintf(m.agreement.verdict, sizeof m.agreement.verdict, "FAIL");
        snprintf(m.agreement.metric, sizeof m.agreement.metric, "error: %s", err.msg);
        r->errors++;
    }
    if (!m.agreement.ok)
        note_failure(r, label, m.agreement.metric);

    if (r->o->check_only) {
        printf("%-9s %-6s %-14s t%-3d %-22s %-6s %s\n", algo->name, algo->stages[c->stage], v->name, p->threads,
               im->name, m.agreement.verdict, m.agreement.metric);
        sb_measurement_free(&m);
        return SB_OK;
    }

    sb_row *row = sb_rows_add(rows);
    if (!row) {
        sb_measurement_free(&m);
        return sb_fail(fatal, SB_ERR_NOMEM, "out of memory for the results rows");
    }
    fill_row(r, row, im, c, v, p->threads, &m);
    m.kernel_ms = m.e2e_ms = m.frame_ms = m.setup_ms = NULL;   /* the row owns the samples now */
    int noise = sb_noise_row_flags(row, !(v->flags & SB_DEVICE)) | sb_noise_clock_flags(row, r->env.device.sm_clock_mhz);
    sb_noise_flag_text(noise, row->flags, sizeof row->flags);
    if (noise & ~SB_NOISE_FLAG_GOVERNOR)
        r->noisy++;
    /* the samples reach the file before their row: a row in the file has
     * its samples, and what a kill or a full disk leaves between the two
     * is dropped by the next --resume (sb_results_repair) */
    sb_row_put_samples(r->samples_log.fp, row);
    sb_status wst = sb_csv_log_flush(&r->samples_log, fatal);
    if (!wst) {
        sb_row_put_csv(r->rows_log.fp, row);
        wst = sb_csv_log_flush(&r->rows_log, fatal);
    }
    if (!wst && r->kernels_log.fp)
        wst = sb_csv_log_flush(&r->kernels_log, fatal);
    if (!wst) {
        r->env.rows_done++;
        wst = write_env(r, fatal);
    }
    if (!r->o->quiet)
        printf("%-9s %-6s %-14s t%-3d %-20s %10.4f ms [%.4f-%.4f] n=%-4d frame %9.3f ms setup %8.3f ms "
               "%8.1f GB/s %5.1f%%  %s\n",
               row->algo, row->stage, row->variant, p->threads, row->image, row->kernel.median, row->kernel.p25,
               row->kernel.p75, row->kernel.n, row->frame.median, row->setup.median, row->gbps,
               100.0 * row->peak_fraction, row->agreement);
    fflush(stdout);
    sb_noise_warn(stderr, label, noise, &row->kernel, row->peak_fraction);
    sb_measurement_free(&m);
    return wst;
}

/* ---- per image: gallery and quality ------------------------------------------------------- */

/* The gallery: the reference's pictures for images marked for it. */
static sb_status bench_gallery(bench_run *r, const sb_algo *algo, const sb_dataset_image *im, const sb_case *c,
                               sb_error *err)
{
    char dir[1100], prefix[256];
    snprintf(dir, sizeof dir, "%s/gallery", r->results_dir);
    snprintf(prefix, sizeof prefix, "%s-%s", algo->name, im->name);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = algo->gallery(dir, prefix, c->input, c->params, c->reference, mem, err);
    fclose(mem);
    FILE *index = st ? NULL : sb_gallery_index_redo(&r->gallery, algo->name, im->name);
    for (char *line = buf, *next; index && line && *line; line = next) {
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

/* The quality of the reference's output on this image and stage, appended
 * to <algo>.quality.csv (once: a resumed run does not repeat it). */
static sb_status bench_quality(bench_run *r, const sb_algo *algo, const sb_dataset_image *im, const sb_case *c,
                               sb_error *err)
{
    char key[300];
    snprintf(key, sizeof key, "\n%s,%s,%s,", algo->name, algo->stages[c->stage], im->name);
    if (r->quality_text && strstr(r->quality_text, key))
        return SB_OK;
    sb_labels truth = { 0 };
    int have;
    sb_status st = load_truth(im, algo->truth_is_mask, &truth, &have, err);
    sb_quality measures;
    if (!st)
        st = algo->quality(c->input, c->params, c->reference, have ? &truth : NULL, &measures, err);
    if (!st) {
        sb_quality_put(r->quality_log.fp, algo->name, algo->stages[c->stage], im->name, c->input->width,
                       c->input->height, &measures);
        st = sb_csv_log_flush(&r->quality_log, err);
    }
    if (have)
        sb_labels_free(&truth);
    return st;
}

/* ---- per algorithm ------------------------------------------------------------------------ */

/* Do all rows of the algorithm's CSV belong to this run (or is it empty)? */
static int csv_is_this_run(const char *path, const char *run_id, sb_rows *rows)
{
    sb_error ignored;
    if (sb_rows_read_csv(path, rows, &ignored) != SB_OK)
        return 0;
    for (int i = 0; i < rows->count; i++)
        if (strcmp(rows->row[i].run_id, run_id) != 0) {
            sb_rows_free(rows);
            return 0;
        }
    return 1;
}

/* Open the algorithm's three append logs.  A resumed run keeps what this
 * run already wrote; otherwise the algorithm's files start afresh. */
static sb_status open_logs(bench_run *r, const sb_algo *algo, sb_error *err)
{
    char path[1200];
    char samples[1200];
    snprintf(path, sizeof path, "%s/%s.csv", r->results_dir, algo->name);
    snprintf(samples, sizeof samples, "%s/%s.samples.csv", r->results_dir, algo->name);
    int keep = r->o->resume && csv_is_this_run(path, r->env.run_id, &r->done_rows);
    sb_status st = SB_OK;
    if (keep) {                  /* what a kill or a full disk left half-done is measured again */
        sb_repair fixed;
        sb_rows_free(&r->done_rows);
        if ((st = sb_results_repair(path, samples, r->env.run_id, &r->done_rows, &fixed, err)))
            return st;
        if (fixed.rows_dropped || fixed.lines_dropped)
            fprintf(stderr, "%s: %d row(s) without all their samples and %d sample line(s) of no row dropped; "
                            "they are measured again\n", algo->name, fixed.rows_dropped, fixed.lines_dropped);
    }
    if (!keep && r->have_gallery)
        sb_gallery_index_drop_algo(&r->gallery, algo->name);
    st = sb_csv_log_open(&r->samples_log, samples, SB_SAMPLES_CSV_HEADER, keep, err);
    if (!st)
        st = sb_csv_log_open(&r->rows_log, path, SB_ROWS_CSV_HEADER, keep, err);
    if (!st && r->env.device.present && r->env.device.has_image) {
        snprintf(path, sizeof path, "%s/%s.kernels.csv", r->results_dir, algo->name);
        st = sb_csv_log_open(&r->kernels_log, path, SB_KERNELS_CSV_HEADER, keep, err);
    }
    if (!st && algo->quality) {
        snprintf(path, sizeof path, "%s/%s.quality.csv", r->results_dir, algo->name);
        if (keep)
            r->quality_text = sb_read_text(path);
        st = sb_csv_log_open(&r->quality_log, path, SB_QUALITY_CSV_HEADER, keep, err);
    }
    return st;
}

static void close_logs(bench_run *r)
{
    sb_csv_log_close(&r->rows_log);
    sb_csv_log_close(&r->samples_log);
    sb_csv_log_close(&r->quality_log);
    sb_csv_log_close(&r->kernels_log);
    free(r->kernels_seen);
    r->kernels_seen = NULL;
    sb_rows_free(&r->done_rows);
    free(r->quality_text);
    r->quality_text = NULL;
}

/* --json: <algo>.json beside the CSV, from the files (so resumed rows are in it too). */
static sb_status write_json(const bench_run *r, const sb_algo *algo, sb_error *err)
{
    char csv[1200], samples[1200], json[1200];
    snprintf(csv, sizeof csv, "%s/%s.csv", r->results_dir, algo->name);
    snprintf(samples, sizeof samples, "%s/%s.samples.csv", r->results_dir, algo->name);
    snprintf(json, sizeof json, "%s/%s.json", r->results_dir, algo->name);
    sb_rows rows;
    sb_status st = sb_rows_read_csv(csv, &rows, err);
    if (st)
        return st;
    if (!(st = sb_rows_read_samples(samples, &rows, err)))
        st = sb_rows_write_json(&rows, json, err);
    sb_rows_free(&rows);
    return st;
}

/* Every stage of one image: the reference once per stage, then its rows. */
static sb_status bench_image(bench_run *r, const sb_algo *algo, const sb_dataset_image *im, sb_rows *rows,
                             sb_error *err)
{
    const bench_opts *o = r->o;
    sb_image loaded = { 0 };
    sb_status st = SB_OK;
    for (int stage = 0; stage < algo->stage_count && !st; stage++) {
        static planned_row plan[MAX_CASE_ROWS];
        int nplan = plan_case(r, algo, stage, im, plan);
        if (nplan == 0)
            continue;                 /* nothing selected, or all measured before (--resume) */
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
        if (!loaded.data && (st = sb_image_load(im->path, algo->load_mode, &loaded, err))) {
            free(params);
            break;
        }
        sb_case_data cd;
        sb_error why_not = { SB_OK, "" };
        double t0 = sb_clock_ms();
        sb_status opened = sb_case_open(&cd, algo, stage, params, &loaded, &why_not);
        r->spent.references += sb_clock_ms() - t0;
        free(params);
        if (opened == SB_ERR_USAGE || opened == SB_ERR_LIMIT || opened == SB_ERR_NOMEM) {
            /* this stage cannot take this image (1000 superpixels of a 1x1
             * image, a rectangle outside it, too little memory): its rows
             * are skipped, saying why, and the run goes on */
            printf("%-9s %-6s skipped on %s (%dx%d): %s\n", algo->name, algo->stages[stage], im->name, loaded.width,
                   loaded.height, why_not.msg);
            r->pairs_skipped++;
            continue;
        }
        if ((st = opened)) {
            sb_fail(err, opened, "%s", why_not.msg);
            break;
        }
        cd.c.image = im->name;
        t0 = sb_clock_ms();
        if (stage == 0 && im->gallery && r->have_gallery && algo->gallery)
            st = bench_gallery(r, algo, im, &cd.c, err);
        if (!st && algo->quality && !o->check_only)
            st = bench_quality(r, algo, im, &cd.c, err);
        r->spent.pictures += sb_clock_ms() - t0;
        for (int k = 0; k < nplan && !st; k++)
            st = bench_one(r, rows, im, &cd.c, &plan[k], err);
        sb_case_close(&cd);
    }
    if (loaded.data)
        sb_image_free(&loaded);
    return st;
}

static sb_status bench_algo(bench_run *r, const sb_algo *algo, sb_error *err)
{
    const bench_opts *o = r->o;
    sb_rows rows = { 0 };
    sb_status st = o->check_only ? SB_OK : open_logs(r, algo, err);
    for (int i = 0; i < r->ds.count && !st; i++) {
        const sb_dataset_image *im = &r->ds.images[i];
        char why[300];
        if (image_skipped(o, algo, im, why, sizeof why)) {
            if (!o->quiet)
                printf("%-9s skipped on %s (%dx%d): %s\n", algo->name, im->name, im->width, im->height, why);
            continue;
        }
        st = bench_image(r, algo, im, &rows, err);
        if (!st && r->have_gallery)
            st = sb_gallery_index_write(&r->gallery, err);
    }
    if (!st && !o->check_only && rows.count > 0 && !o->quiet) {
        printf("\n");
        sb_report_speedup_tables(&rows, algo, stdout);
    }
    sb_rows_free(&rows);
    if (!o->check_only)
        close_logs(r);
    if (!st && o->json)
        st = write_json(r, algo, err);
    return st;
}

/* The selected variants that cannot run here, one line per reason. */
static void report_unavailable(const bench_opts *o)
{
    char reasons[8][300];
    int counts[8] = { 0 }, nreasons = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        char why[300];
        if (!sb_pattern_match(o->algos, v->algo) || !sb_variant_pick(o->variants, v->algo, v->name) ||
            sb_variant_availability(v, why, sizeof why) == SB_AVAILABLE)
            continue;
        int k = 0;
        while (k < nreasons && strcmp(reasons[k], why) != 0)
            k++;
        if (k == nreasons && nreasons < 8)
            snprintf(reasons[nreasons++], sizeof reasons[0], "%s", why);
        if (k < nreasons)
            counts[k]++;
    }
    for (int k = 0; k < nreasons; k++)
        fprintf(stderr, "skipping %d variant(s): %s\n", counts[k], reasons[k]);
}

/* ---- the run as a whole ------------------------------------------------------------------- */

/* Add the algorithms with rows in this invocation to env->run_algos. */
static void note_algos(bench_run *r)
{
    for (int i = 0; i < sb_algo_count(); i++) {
        const char *name = sb_algo_at(i)->name;
        if (!sb_pattern_match(r->o->algos, name) || sb_in_list(r->env.run_algos[0] ? r->env.run_algos : "", name))
            continue;
        size_t n = strlen(r->env.run_algos);
        snprintf(r->env.run_algos + n, sizeof r->env.run_algos - n, "%s%s", n ? "," : "", name);
    }
}

/* A published result set (results/published.txt) is a run of record: a
 * run goes there only with --overwrite or --resume.  Otherwise, given by
 * --results, it is refused; by default, the run goes to <dir>-local. */
static sb_status spare_published(const bench_opts *o, char *dir, size_t size, sb_error *err)
{
    char root[1024], env[1100];
    const char *slash = strrchr(dir, '/');
    snprintf(root, sizeof root, "%.*s", slash ? (int)(slash - dir) : 1, slash ? dir : ".");
    snprintf(env, sizeof env, "%s/env.json", dir);
    struct stat st;
    if (o->overwrite || o->resume || sb_published_index(root, slash ? slash + 1 : dir) < 0 || stat(env, &st) != 0)
        return SB_OK;
    if (o->results_dir)
        return sb_fail(err, SB_ERR_USAGE, "%s/ is a published run of record (%s/published.txt): --overwrite replaces "
                       "it, --resume finishes its run, or choose another --results", dir, root);
    size_t len = strlen(dir);
    fprintf(stderr, "%s/ is a published run of record (%s/published.txt): this run goes to %s-local/ "
                    "(--overwrite replaces the published one)\n", dir, root, dir);
    snprintf(dir + len, size - len, "-local");
    return SB_OK;
}

/* A new run id, or (--resume) the one in env.json after checking that the
 * run being resumed was made by this machine, commit and options. */
static sb_status start_run(bench_run *r, sb_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/env.json", r->results_dir);
    if (!r->o->resume) {
        char stamp[32];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime(&now));
        snprintf(r->env.run_id, sizeof r->env.run_id, "%s-%04x", stamp, (unsigned)(getpid() ^ (unsigned)now) & 0xffff);
        return SB_OK;
    }
    sb_run_info old;
    if (!sb_run_info_read(r->results_dir, &old))
        return sb_fail(err, SB_ERR_USAGE, "--resume: %s not found; nothing to resume (run without --resume)", path);
    sb_status st = SB_OK;
    if (strcmp(old.machine_id, "?") == 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: %s is empty or not a segbench env.json (a run killed as it "
                     "began?); run without --resume to start afresh", path);
    else if (strcmp(old.run_id, "?") == 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: %s has no run id (made by an older segbench); run without --resume",
                     path);
    else if (strcmp(old.machine_id, r->env.machine_id) != 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: %s was measured on %s, this machine is %s", path, old.machine_id,
                     r->env.machine_id);
    else if (strcmp(old.commit, r->row_commit) != 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: run %s was made at commit %s, this build is %s; "
                     "run without --resume to start a new run", old.run_id, old.commit, r->row_commit);
    else if (strcmp(old.options, r->env.run_options) != 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: run %s used '%s', this one asks for '%s'", old.run_id, old.options,
                     r->env.run_options);
    if (st)
        return st;
    snprintf(r->env.run_id, sizeof r->env.run_id, "%s", old.run_id);
    char text_seconds[32];
    char *env_text = sb_read_text(path);
    sb_json_get(env_text, "run_seconds", text_seconds, sizeof text_seconds);
    free(env_text);
    r->seconds_before = strcmp(text_seconds, "?") ? atof(text_seconds) : 0.0;
    snprintf(r->env.run_algos, sizeof r->env.run_algos, "%s", strcmp(old.algos, "?") ? old.algos : "");
    fprintf(stderr, "resuming run %s (%s of %s rows measured before)\n", old.run_id, old.measured, old.planned);
    return SB_OK;
}

/* Count the rows to measure now (and, for the ETA, their weight); rows
 * already measured by the run being resumed count as done. */
static int plan_all(bench_run *r)
{
    int present = 0;
    static planned_row plan[MAX_CASE_ROWS];
    for (int i = 0; i < sb_algo_count(); i++) {
        const sb_algo *algo = sb_algo_at(i);
        if (!sb_pattern_match(r->o->algos, algo->name))
            continue;
        if (r->o->resume) {
            char path[1200];
            snprintf(path, sizeof path, "%s/%s.csv", r->results_dir, algo->name);
            if (csv_is_this_run(path, r->env.run_id, &r->done_rows))
                present += r->done_rows.count;
        }
        for (int img = 0; img < r->ds.count; img++)
            if (benched_image(r->o, algo, &r->ds.images[img]))
                for (int s = 0; s < algo->stage_count; s++) {
                    int n = plan_case(r, algo, s, &r->ds.images[img], plan);
                    r->total += n;
                    for (int k = 0; k < n; k++)
                        r->weight_total += row_weight(&plan[k], &r->ds.images[img]);
                }
        sb_rows_free(&r->done_rows);
    }
    return present;
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
    int present = 0;             /* rows measured before (--resume) */
    r.o = &o;
    r.tty = isatty(2);
    r.begun_ms = sb_clock_ms();
    if ((st = sb_select_images(o.set, o.files, o.nfiles, o.has_rect ? o.rect : NULL, &r.ds, err)))
        return st;

    sb_env_collect(&r.env, 0, o.threads, o.nthreads);
    snprintf(r.env.set, sizeof r.env.set, "%s", r.ds.name);
    r.env.l2_flush = o.timing.flush_l2;
    snprintf(o.timing.gpu_uuid, sizeof o.timing.gpu_uuid, "%s", r.env.device.uuid);
    snprintf(r.row_commit, sizeof r.row_commit, "%s%s", r.env.commit, r.env.dirty == 1 ? "-dirty" : "");
    timing_options(&o, r.ds.name, r.env.run_options, sizeof r.env.run_options);
    if (o.results_dir)
        snprintf(r.results_dir, sizeof r.results_dir, "%s", o.results_dir);
    else
        snprintf(r.results_dir, sizeof r.results_dir, "results/%s", r.env.machine_id);
    if (!check_only && (st = spare_published(&o, r.results_dir, sizeof r.results_dir, err)))
        goto out;
    r.lock.fd = -1;
    if (!check_only) {
        char what[200];
        snprintf(what, sizeof what, "bench (dataset %s)", r.ds.name);
        if ((st = sb_mkdirs(r.results_dir, err)) || (st = sb_dir_lock_take(&r.lock, r.results_dir, what, o.wait, err)) ||
            (st = start_run(&r, err)))
            goto out;
        /* what runs killed before this one left half-written (the lock says
         * no other bench writes here now) */
        char gallery[1100];
        snprintf(gallery, sizeof gallery, "%s/gallery", r.results_dir);
        int swept = sb_temp_sweep(r.results_dir, time(NULL)) + sb_temp_sweep(gallery, time(NULL));
        if (swept)
            fprintf(stderr, "removed %d temporary file(s) left by an earlier run that was killed\n", swept);
        /* the ceilings, once the folder is this run's */
        fprintf(stderr, "measuring bandwidth ceilings (device copy, host memcpy per thread count)...\n");
        sb_env_measure(&r.env, o.threads, o.nthreads);
    }
    present = plan_all(&r);
    if (r.env.device.present && r.env.device.has_image && (st = sb_device_stream_create(&r.stream, err)))
        goto out;

    if (!check_only) {
        char gallery_dir[1100], path[1200];
        snprintf(gallery_dir, sizeof gallery_dir, "%s/gallery", r.results_dir);
        if ((st = sb_mkdirs(gallery_dir, err)) || (st = sb_catalogue_write(r.results_dir, o.algos, err)))
            goto out;
        snprintf(path, sizeof path, "%s/index.tsv", gallery_dir);
        if ((st = sb_gallery_index_open(&r.gallery, path, err)))
            goto out;
        r.have_gallery = 1;
        /* the fingerprint first, marked unfinished: rows written as the run
         * goes describe this machine and build, and a stopped run says so */
        char run_id[48];
        snprintf(run_id, sizeof run_id, "%s", r.env.run_id);
        note_algos(&r);
        r.env.rows_planned = present + r.total;
        r.env.rows_done = present;
        if ((st = write_env(&r, err)))
            goto out;
        fprintf(stderr, "machine %s; dataset %s (%d images); run %s: %d rows to measure%s; results to %s/\n",
                r.env.machine_id, r.ds.name, r.ds.count, run_id, r.total, present ? " (the rest measured before)" : "",
                r.results_dir);
        if (r.env.device_copy_gbps > 0)
            fprintf(stderr, "device copy %.0f GB/s (read + write); ", r.env.device_copy_gbps);
        fprintf(stderr, "host memcpy %.1f GB/s at 1 thread, %.1f GB/s at %d\n", sb_env_host_peak(&r.env, 1),
                sb_env_host_peak(&r.env, 1 << 30), o.threads[o.nthreads - 1]);
    }
    report_unavailable(&o);
    char governor[64];
    if (!check_only && sb_noise_governor(governor, sizeof governor))
        fprintf(stderr, "warning: the CPU frequency governor is '%s', not 'performance': CPU rows may run at "
                        "changing clocks and are flagged 'governor' (cpupower frequency-set -g performance)\n",
                governor);
    r.started_ms = sb_clock_ms();

    for (int i = 0; i < sb_algo_count() && !st; i++)
        if (sb_pattern_match(o.algos, sb_algo_at(i)->name))
            st = bench_algo(&r, sb_algo_at(i), err);

    if (!check_only && !st) {
        char line[800];
        account_text(&r, line, sizeof line, r.env.time_spent, sizeof r.env.time_spent);
        r.env.run_finished = 1;
        st = write_env(&r, err);
        if (!st)
            fprintf(stderr, "wrote %s/ (env.json, <algo>.csv, <algo>.samples.csv, gallery/) in %.0f s\n%s\n",
                    r.results_dir, (sb_clock_ms() - r.started_ms) / 1000.0, line);
    }
    if (!st && r.skipped)
        fprintf(stderr, "%d row(s) skipped: too little free GPU memory\n", r.skipped);
    if (!st && r.pairs_skipped)
        fprintf(stderr, "%d (image, stage) pair(s) skipped: the stage cannot take the image (the lines above say "
                        "why)\n", r.pairs_skipped);
    if (!st && r.noisy)
        fprintf(stderr, "%d row(s) flagged noisy (the warnings above; the CSV's flags column says which)\n",
                r.noisy);
    if (!st && r.failures) {
        fprintf(stderr, "%d row(s) broke their agreement contract%s:\n", r.failures,
                r.errors ? " or failed to run" : "");
        for (int i = 0; i < r.failures && i < 32; i++)
            fprintf(stderr, "  %s\n", r.failed[i]);
        st = sb_fail(err, SB_ERR_AGREEMENT, "%d row(s) marked FAIL", r.failures);
    }
out:
    if (r.have_gallery)
        sb_gallery_index_close(&r.gallery);
    close_logs(&r);
    sb_device_stream_destroy(r.stream);
    sb_dataset_free(&r.ds);
    sb_dir_lock_release(&r.lock);
    if (o.report && !check_only && (st == SB_OK || st == SB_ERR_AGREEMENT)) {
        sb_error report_err = { SB_OK, "" };          /* FAIL rows are reported too */
        sb_status rst = sb_report_result_set(r.results_dir, NULL, NULL, &report_err);
        if (rst && !st) {
            st = rst;
            *err = report_err;
        } else if (rst) {
            fprintf(stderr, "segbench report: %s\n", report_err.msg);
        }
    }
    return st;
}

sb_status cmd_bench(int argc, char **argv, sb_error *err) { return bench_main(argc, argv, 0, err); }
sb_status cmd_check(int argc, char **argv, sb_error *err) { return bench_main(argc, argv, 1, err); }
