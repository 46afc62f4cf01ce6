/* report.c - `segbench report`: results/<machine>/ -> report/<machine>/.
 *
 * REPORT.md is the first screen: the summary of every stage (serial, best
 * CPU and best GPU time, speed-ups, distance to the floor), the ladders in
 * one line each, the contents, the machine and how to read the numbers.
 * Each algorithm has its own page, <algo>.md: its ladder per stage with a
 * step plot, the table at the largest image, speed-ups over sizes, thread
 * scaling, plots, parameter sweeps, quality and, for pipelines, where the
 * time goes.  gallery.md holds the pictures.  Plots are generated gnuplot
 * scripts over generated data files, so a reader can rerun them; without
 * gnuplot the report says which plots are missing.
 */
#include "pages/report.h"

#include "course/lessons.h"

#include "base/files.h"

#include "io/catalogue.h"
#include "pages/report_parts.h"
#include "pages/report_limits.h"

#include "machine/env.h"
#include "io/noise_floor.h"
#include "io/result_set.h"

#include "segbench/atomic_file.h"

#include "segbench/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

static sb_status copy_file(const char *from, const char *to, sb_error *err)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", from, strerror(errno));
    sb_atomic_file af;
    sb_status st = sb_atomic_open(&af, to, err);
    if (!st) {
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, af.fp);
        st = sb_atomic_commit(&af, err);
    }
    fclose(in);
    return st;
}

static sb_status report_gallery(const char *results_dir, const char *out_dir, FILE *md, int *any, sb_error *err)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/gallery/index.tsv", results_dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return SB_OK;
    *any = 1;
    char gdir[1400];
    snprintf(gdir, sizeof gdir, "%s/gallery", out_dir);
    sb_status st = sb_mkdirs(gdir, err);
    char line[SB_PATH_MAX], last[300] = "";
    int header = 1;
    fprintf(md, "# Gallery\n\n[Back to the report](REPORT.md). The serial reference's output (every variant's is "
                "identical where it agrees).\n\n");
    while (!st && fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (header) {
            header = 0;
            continue;
        }
        char *f[4];
        int n = 0;
        for (char *save = NULL, *t = strtok_r(line, "\t", &save); t && n < 4; t = strtok_r(NULL, "\t", &save))
            f[n++] = t;
        if (n != 4)
            continue;
        char key[300];
        snprintf(key, sizeof key, "%s %s", f[0], f[1]);
        if (strcmp(key, last) != 0) {
            fprintf(md, "\n**%s, %s**\n\n", f[0], f[1]);
            snprintf(last, sizeof last, "%s", key);
        }
        char from[1400], to[2900];
        snprintf(from, sizeof from, "%s/gallery/%s", results_dir, f[2]);
        snprintf(to, sizeof to, "%s/%s", gdir, f[2]);
        st = copy_file(from, to, err);
        fprintf(md, "- %s<br>![%s](gallery/%s)\n", f[3], f[3], f[2]);
    }
    fclose(fp);
    fprintf(md, "\n");
    return st;
}

/* Is the algorithm a pipeline whose stages are algorithms of their own
 * ("meanshift" with "meanshift-filter", ...)? */
static int is_pipeline(const sb_algo *algo)
{
    size_t n = strlen(algo->name);
    for (int a = 0; a < sb_algo_count(); a++)
        if (!strncmp(sb_algo_at(a)->name, algo->name, n) && sb_algo_at(a)->name[n] == '-')
            return 1;
    return 0;
}

/* <algo>.md: everything about one algorithm on this machine. */
static sb_status algo_page(plot_ctx *pc, const char *results_dir, const char *out_dir, const sb_algo *algo,
                           const sb_rows *rows, const profile_set *profile, sb_error *err)
{
    char path[1400], notes[300];
    snprintf(path, sizeof path, "%s/%s.csv", results_dir, algo->name);
    char *text = NULL;
    size_t len = 0;
    FILE *md = open_memstream(&text, &len);
    if (!md)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    int fails = 0, few = 0;
    for (int i = 0; i < rows->count; i++) {
        fails += strcmp(rows->row[i].agreement, "FAIL") == 0;
        few += rows->row[i].kernel.n < 3;
    }
    char provenance[600];
    sb_result_set_provenance(path, provenance, sizeof provenance);
    report_notes_path(algo->name, notes, sizeof notes);
    fprintf(md, "# %s\n\n[Back to the report](REPORT.md)", algo->name);
    if (view_rows_have_gpu(rows))
        fprintf(md, " · [the lessons: its CUDA ladder as a tree](lessons-%s.md)", algo->name);
    fprintf(md, ". %s.%s%s%s\n\nMeasured at %s. Agreement contract: %s. "
                "**%d of %d rows agree%s.**",
            algo->summary, notes[0] ? " Notes on the CUDA variants: [NOTES.md](../../" : "", notes,
            notes[0] ? ")." : "", provenance, algo->contract, rows->count - fails, rows->count,
            fails ? "; the others are marked FAIL" : "");
    if (few)
        fprintf(md, " %d rows took at least the time budget per run and were measured once or twice (marked †).",
                few);
    fprintf(md, "\n\n");
    if (fails) {
        fprintf(md, "| stage | variant | threads | image | what failed |\n|---|---|---:|---|---|\n");
        for (int i = 0; i < rows->count; i++)
            if (strcmp(rows->row[i].agreement, "FAIL") == 0)
                fprintf(md, "| %s | %s | %d | %s | %s |\n", rows->row[i].stage, rows->row[i].variant,
                        rows->row[i].threads, report_md(REPORT_TEXT, rows->row[i].image), report_md(REPORT_TEXT, rows->row[i].metric));
        fprintf(md, "\n");
    }
    sb_status st = SB_OK;
    if (is_pipeline(algo))
        st = report_pipeline_bars(pc, results_dir, algo, md, err);
    for (int s = 0; s < algo->stage_count && !st; s++) {
        stage_view sv;
        view_build(&sv, rows, algo->name, algo->stages[s]);
        if (sv.nimg == 0)
            continue;
        fprintf(md, "## Stage %s\n\n", algo->stages[s]);
        stage_limit lim;
        stage_limit_of(rows, algo, s, pc->device_peak, profile, &lim);
        if (lim.top && lim.x > 0)
            fprintf(md, "**Limit.** `%s` runs at **%.2fx** the stage's limit (%.4g ms: the %s floor; memory %.4g ms, "
                        "issue %s). What bounds it: %s.\n\n",
                    lim.top->variant, lim.x, lim.limit_ms, lim.floor, lim.mem_ms,
                    lim.prof ? "as profiled" : "not profiled", lim.bound);
        if ((st = report_ladder(pc, &sv, algo->name, md, err)))
            break;
        fprintf(md, "#### Every variant at the largest image, %s (%.2f Mpx)\n\nThreaded variants at their fastest "
                    "thread count.\n\n",
                sv.img[sv.largest], sv.img_px[sv.largest] / 1e6);
        report_largest_table(md, &sv);
        fprintf(md, "\nKernel time by image size, ms (geometric mean over the images of each size; threaded "
                    "variants at their best thread count):\n\n");
        report_time_table(md, &sv);
        fprintf(md, "\nSpeedup of kernel time over the serial `cpu` reference (geometric mean over the images of "
                    "each size; host-dependent: the serial reference is one core of this host):\n\n");
        report_speedup_table(md, &sv, 0);
        fprintf(md, "\nSpeedup over the best CPU variant on each image (any of cpu, pthread, openmp at any thread "
                    "count):\n\n");
        report_speedup_table(md, &sv, 1);
        report_thread_table(md, &sv);
        report_kernels(md, results_dir, algo->name, algo->stages[s]);
        st = report_plots_for_stage(pc, &sv, algo->name, md, err);
    }
    if (!st && algo->sweep)
        st = report_sweep(pc, rows, algo, md, err);
    if (!st)
        st = report_roofline(pc, algo->name, rows, profile, pc->sm_count, md, err);
    report_quality(md, results_dir, algo);
    fclose(md);
    snprintf(path, sizeof path, "%s/%s.md", out_dir, algo->name);
    if (!st)
        st = sb_atomic_write_text(path, text, err);
    free(text);
    return st;
}

/* How to read the numbers: the report's method in a paragraph. */
static const char HOW_TO_READ[] =
    "Kernel time is `run()` alone (CUDA events around the kernels, the L2 cache flushed before each run; "
    "the monotonic clock for CPU variants). *Per frame* is what a program streaming images pays for each: "
    "`upload` (from pinned memory into buffers that already exist) + `run` + `fetch` (download); "
    "*setup* is the one-time `prepare` (device allocation); end-to-end (e2e) is one whole cold run, "
    "setup and a frame. CPU variants move nothing: their frame is the kernel time plus `fetch`. Times "
    "are medians of repeated runs after "
    "warm-up, with the 25th-75th percentile range and the sample count n († marks rows measured once "
    "or twice). Memory-bound stages show GB/s (the stage's byte floor over the kernel median) and % "
    "of the measured copy bandwidth of the same processor; compute-bound stages show megapixels per "
    "second. Every row was checked against the serial reference on that image before it was timed.\n\n";

/* What env.json says of the run, as the report prints it. */
typedef struct report_env {
    char *text;                       /* env.json itself (NULL: none) */
    char id[128], gpu[256], cpu[256], date[64], commit[64], dirty[16], copy[32], set[64], cores[16], host[256],
        bus[3][32],                   /* to the device, to the host, both at once; "?" where not measured */
        run[64], measured[16], planned[16], seconds[24], sm_count[16], options[512];
    char tree[80];                    /* the tree the binary ran in, where it was another commit or had changes ("?": the same) */
    const char *host_json;            /* "host_copy_gbps": {...} inside text, or NULL */
    sb_catalogue catalogue;           /* the variants as they were when measured; the rows point at it */
} report_env;

static void report_env_read(const char *results_dir, report_env *e)
{
    char path[SB_PATH_MAX];
    sb_error too_long;
    e->text = sb_path(path, &too_long, "%s/env.json", results_dir) ? NULL : sb_read_text(path);
    const char *env = e->text;
    sb_json_get(env, "machine_id", e->id, sizeof e->id);
    sb_json_get(env, "gpu_name", e->gpu, sizeof e->gpu);
    if (strcmp(e->gpu, "?") == 0) {
        char why[200];
        sb_json_get(env, "gpu_absent_reason", why, sizeof why);
        snprintf(e->gpu, sizeof e->gpu, "none (%s)", why);
    }
    sb_json_get(env, "cpu_model", e->cpu, sizeof e->cpu);
    sb_json_get(env, "date", e->date, sizeof e->date);
    sb_json_get(env, "commit", e->commit, sizeof e->commit);
    sb_json_get(env, "dirty", e->dirty, sizeof e->dirty);
    sb_json_get(env, "tree_commit", e->tree, sizeof e->tree);
    sb_json_get(env, "device_copy_gbps", e->copy, sizeof e->copy);
    sb_json_get(env, "bus_to_device_gbps", e->bus[0], sizeof e->bus[0]);
    sb_json_get(env, "bus_to_host_gbps", e->bus[1], sizeof e->bus[1]);
    sb_json_get(env, "bus_both_gbps", e->bus[2], sizeof e->bus[2]);
    sb_json_get(env, "run_id", e->run, sizeof e->run);
    sb_json_get(env, "run_options", e->options, sizeof e->options);
    sb_json_get(env, "gpu_sm_count", e->sm_count, sizeof e->sm_count);
    sb_json_get(env, "rows_measured", e->measured, sizeof e->measured);
    sb_json_get(env, "rows_planned", e->planned, sizeof e->planned);
    sb_json_get(env, "run_seconds", e->seconds, sizeof e->seconds);
    if (strcmp(e->copy, "?") == 0 || atof(e->copy) <= 0)
        snprintf(e->copy, sizeof e->copy, "none");           /* no GPU measured: atof() reads 0 */
    sb_json_get(env, "dataset", e->set, sizeof e->set);
    sb_json_get(env, "cpu_logical_cores", e->cores, sizeof e->cores);
    /* {"1": 22.7, "2": 28.2} -> 1: 22.7, 2: 28.2 */
    e->host_json = env ? strstr(env, "\"host_copy_gbps\": {") : NULL;
    size_t hn = 0;
    for (const char *p = e->host_json ? e->host_json + 19 : "?"; *p && *p != '}' && *p != '\n' && hn + 1 < sizeof e->host;
         p++)
        if (*p != '"')
            e->host[hn++] = *p;
    e->host[hn] = '\0';
}

/* The host copy peak at the most threads, from env.json's host_copy_gbps. */
static void report_host_peak(const report_env *e, plot_ctx *pc)
{
    pc->host_peak = sb_json_host_copy(e->text, 0, &pc->host_threads);
}

/* The result set's algorithms, each one's rows read once and its profile:
 * arrays of sb_algo_count() entries (malloc'd); *nalgo of them used. */
typedef struct report_sets {
    sb_rows *rows;
    const sb_algo **algos;
    profile_set *profile;
    stream_set *streams;       /* each algorithm's stream rows (report_streams.c) */
    int nalgo;
} report_sets;

static sb_status report_sets_read(const char *results_dir, report_sets *rs, sb_error *err)
{
    int n = sb_algo_count();
    rs->nalgo = 0;
    rs->rows = calloc((size_t)n, sizeof *rs->rows);
    rs->algos = calloc((size_t)n, sizeof *rs->algos);
    rs->profile = calloc((size_t)n, sizeof *rs->profile);
    rs->streams = calloc((size_t)n, sizeof *rs->streams);
    if (!rs->rows || !rs->algos || !rs->profile || !rs->streams)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = SB_OK;
    for (int a = 0; a < n && !st; a++) {
        char path[SB_PATH_MAX];
        struct stat sbuf;
        if ((st = sb_path(path, err, "%s/%s.csv", results_dir, sb_algo_at(a)->name)))
            break;
        if (stat(path, &sbuf) != 0)
            continue;
        if (!(st = sb_rows_read_ladders(path, &rs->rows[rs->nalgo], NULL, err))) {
            lesson_rows_samples(results_dir, sb_algo_at(a)->name, &rs->rows[rs->nalgo]);   /* edges judged by test */
            rs->algos[rs->nalgo++] = sb_algo_at(a);
        }
    }
    for (int a = 0; a < rs->nalgo; a++) {
        profile_read(results_dir, rs->algos[a]->name, &rs->profile[a]);
        stream_set_read(results_dir, rs->algos[a]->name, &rs->streams[a]);
    }
    return st;
}

static void report_sets_free(report_sets *rs)
{
    for (int a = 0; a < rs->nalgo; a++) {
        sb_rows_free(&rs->rows[a]);
        profile_free(&rs->profile[a]);
        stream_set_free(&rs->streams[a]);
    }
    free(rs->streams);
    free(rs->rows);
    free(rs->algos);
    free(rs->profile);
}

/* How far this run's numbers can be trusted to repeat: what the run
 * measured of itself at its end (run/repeat.c), and how many rows it
 * flagged unstable (their rounds disagreed, or steal). */
static void report_repeatability(FILE *md, const char *results_dir, const report_env *e, const report_sets *rs)
{
    char repeat[400];
    sb_json_get(e->text, "repeatability", repeat, sizeof repeat);
    int rows[2] = { 0, 0 }, unstable[2] = { 0, 0 }, in_rounds = 0;    /* CPU, GPU */
    for (int a = 0; a < rs->nalgo; a++)
        for (int i = 0; i < rs->rows[a].count; i++) {
            const sb_row *r = &rs->rows[a].row[i];
            int gpu = !view_is_cpu_backend(r->backend);
            rows[gpu]++;
            unstable[gpu] += sb_row_unstable(r);
            in_rounds += !gpu && r->rounds > 0;
        }
    if (report_repeat_csv(md, results_dir))
        ;                                     /* every run's re-measures the set keeps, and of which algorithms */
    else if (strcmp(repeat, "?") != 0)
        fprintf(md, "**Repeatability on this machine:** %s.", repeat);
    else
        fprintf(md, "**Repeatability on this machine:** not measured by this run (`segbench bench --repeat on` "
                    "measures it).");
    if (rows[0] > 0 && in_rounds == 0)        /* a set from before rounds and the flag */
        fprintf(md, " Its CPU rows were measured one at a time, before CPU rows took turns in rounds and could "
                    "be flagged unstable: two runs of them may differ by more than 10 %% unflagged "
                    "([how a variant is measured](../../docs/measuring.md)).\n\n");
    else if (rows[1] > 0)
        fprintf(md, " Flagged unstable (\xc2\xa7): %d of %d CPU rows, %d of %d GPU rows ([how a variant is "
                    "measured](../../docs/measuring.md)).\n\n",
                unstable[0], rows[0], unstable[1], rows[1]);
    else                                      /* a machine without a GPU */
        fprintf(md, " Flagged unstable (\xc2\xa7): %d of %d CPU rows ([how a variant is "
                    "measured](../../docs/measuring.md)).\n\n",
                unstable[0], rows[0]);
}

/* The machine's A/A (its noise.csv, segbench noise): how far two processes
 * of one build are apart on most rows -- the headline of how far a
 * difference in these tables means anything; each compare says the same
 * per row (docs/measuring.md, Verdicts). */
static void report_noise_floor(FILE *md, const char *results_dir)
{
    char path[SB_PATH_MAX];
    sb_noise_floor f;
    sb_error ignored;
    if (snprintf(path, sizeof path, "%s/noise.csv", results_dir) >= (int)sizeof path ||
        sb_floor_read(path, &f, &ignored) != SB_OK) {
        fprintf(md, "**Noise floor:** no A/A on this machine yet (`segbench noise`): a difference in these tables "
                    "is not yet one its noise can be told from ([verdicts](../../docs/measuring.md)).\n\n");
        return;
    }
    int gpu_rows, cpu_rows;
    double gpu = sb_floor_rows_quantile(&f, 1, 0.95, &gpu_rows), cpu = sb_floor_rows_quantile(&f, 0, 0.95, &cpu_rows);
    char g[32], c[32];                 /* "12.6 %", or for a floor of 100 % and more "25.6x" */
    snprintf(g, sizeof g, gpu < 1.0 ? "%.1f %%" : "%.1fx", gpu < 1.0 ? 100.0 * gpu : 1.0 + gpu);
    snprintf(c, sizeof c, cpu < 1.0 ? "%.1f %%" : "%.1fx", cpu < 1.0 ? 100.0 * cpu : 1.0 + cpu);
    fprintf(md, "**Noise floor:** two processes of one build agree within ");
    if (gpu_rows)
        fprintf(md, "%s on 95 %% of %d GPU rows%s", g, gpu_rows, cpu_rows ? " and within " : "");
    if (cpu_rows)
        fprintf(md, "%s on 95 %% of %d CPU rows", c, cpu_rows);
    fprintf(md, " (the A/A of %.10s, commit %.12s, `noise.csv`); a row is called faster or slower only beyond its "
                "own floor ([verdicts](../../docs/measuring.md)).\n\n", f.date, f.commit);
    sb_floor_free(&f);
}

/* "commit 30b5a75e124a", and where the code that ran and the tree it ran
 * in were not that commit's alone, said: a binary built from a tree with
 * changes, or run in a tree at another commit or with changes of its own
 * (env.json's tree_commit; the results it wrote are such changes). */
static const char *commit_words(const report_env *e, char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "commit %.12s%s", e->commit,
                                strcmp(e->dirty, "true") == 0 ? " (built from a tree with local changes)" : "");
    const char *dirty = strstr(e->tree, "-dirty");
    if (strcmp(e->tree, "?") != 0 && e->tree[0] && n < size)
        snprintf(out + n, size - n, ", run in a tree at %.12s%s", e->tree,
                 dirty ? " with local changes" : "");
    return out;
}

/* REPORT.md's first screen: the title, notes on the set, the summary, how
 * far each stage is from its limit, the ladders in a line each, peers. */
static void report_first_screen(FILE *md, const char *results_dir, const report_env *e, const report_sets *rs)
{
    char commit[300];
    fprintf(md, "# segbench report: %s\n\n%s, %s; dataset %s; %s; run %s. Generated by `segbench "
                "report` from `%s/` (`make report` rewrites it).\n\n",
            e->id, e->gpu, e->cpu, e->set, commit_words(e, commit, sizeof commit), e->run, results_dir);
    sb_result_set survey;
    sb_result_set_survey(results_dir, &survey);
    if (survey.nnotes) {
        fprintf(md, "> **Note on these results.**\n");
        for (int i = 0; i < survey.nnotes; i++)
            fprintf(md, "> %s%s\n", survey.notes[i][0] == ' ' ? "- " : "",
                    survey.notes[i][0] == ' ' ? survey.notes[i] + 2 : survey.notes[i]);
        fprintf(md, "\n");
        for (int i = 0; i < survey.nnotes; i++)
            fprintf(stderr, "segbench report: %s: %s\n", results_dir, survey.notes[i]);
    }
    report_noise_floor(md, results_dir);
    report_repeatability(md, results_dir, e, rs);
    const char *limit = strstr(e->options, "host_limit=");
    if (limit && atof(limit + 11) > 0)
        fprintf(md, "**CPU rows left out.** This run left to the run of record (`make bench RECORD=1`) every "
                    "CPU row one run of which was predicted to take over %g s (`--host-limit`, what `make bench` "
                    "does): the threaded variants at the largest sizes of the slowest stages have no row here, "
                    "and a table shows `-` for them ([how a variant is measured](../../docs/measuring.md)).\n\n",
                atof(limit + 11));
    double copy_gbps = atof(e->copy);
    fprintf(md, "## Summary\n\nEach stage at the largest image it was measured on; medians.\n\n");
    report_summary_header(md);
    for (int a = 0; a < rs->nalgo; a++)
        report_summary_rows(md, &rs->rows[a], rs->algos[a], copy_gbps, &rs->profile[a], &rs->streams[a]);
    report_summary_legend(md);
    report_streams_table(md, rs->streams, rs->algos, rs->nalgo);
    int gpu = 0;
    for (int a = 0; a < rs->nalgo; a++)
        gpu += view_rows_have_gpu(&rs->rows[a]);
    fprintf(md, "\n## How far from the limit\n\n");
    if (!gpu)
        fprintf(md, "No GPU rows on this machine: the limit table weighs the fastest CUDA rung of each stage "
                    "against its floors. The CPU rows of memory-bound stages are weighed against the host's "
                    "memcpy peak on their algorithm's page (GB/s and %% of the peak).\n\n");
    else {
        fprintf(md, "Each stage's fastest CUDA rung at the summary image against the larger of its two floors, "
                    "and what holds it back.\n\n");
        report_limits_header(md);
        for (int a = 0; a < rs->nalgo; a++)
            for (int s = 0; s < rs->algos[a]->stage_count; s++) {
                stage_limit lim;
                stage_limit_of(&rs->rows[a], rs->algos[a], s, copy_gbps, &rs->profile[a], &lim);
                report_limits_row(md, rs->algos[a]->name, &lim);
            }
        report_limits_legend(md);
    }
    fprintf(md, "\n## The ladders\n\nEach algorithm's variants in teaching order, first stage, kernel ms (the "
                "steps, their speed-ups and what each changes are on the algorithm's page; the CUDA rungs as a "
                "tree of lessons, each edge's idea, gain and census change, on its lessons page):\n\n");
    for (int a = 0; a < rs->nalgo; a++)
        report_ladder_line(md, &rs->rows[a], rs->algos[a]);
    report_peers(md, results_dir, rs->rows, rs->algos, rs->nalgo);
}

/* gallery.md, when the set has pictures; *gallery says whether. */
static sb_status report_gallery_page(const char *results_dir, const char *out_dir, int *gallery, sb_error *err)
{
    char *gallery_text = NULL, path[SB_PATH_MAX];
    size_t gallery_len = 0;
    *gallery = 0;
    sb_status st = SB_OK;
    FILE *gmd = open_memstream(&gallery_text, &gallery_len);
    if (gmd)
        st = report_gallery(results_dir, out_dir, gmd, gallery, err);
    if (gmd)
        fclose(gmd);
    if (!st && *gallery && !(st = sb_path(path, err, "%s/gallery.md", out_dir)))
        st = sb_atomic_write_text(path, gallery_text, err);
    free(gallery_text);
    return st;
}

/* REPORT.md's last part: the contents, whole processes, the machine and
 * how to read the numbers, and the plots that could not be drawn. */
static void report_last_part(FILE *md, const char *results_dir, const report_env *e, const report_sets *rs,
                             const plot_ctx *pc, int gnuplot, int gallery, const char *machines)
{
    char commit[300];
    fprintf(md, "\n## Contents\n\n");
    for (int a = 0; a < rs->nalgo; a++)
        fprintf(md, "%s[%s](%s.md)", a ? " · " : "", rs->algos[a]->name, rs->algos[a]->name);
    fprintf(md, "\n\n%s", gallery ? "[Gallery](gallery.md): the reference's pictures. " : "");
    if (machines)
        fprintf(md, "[MACHINES.md](%s): this machine beside the others. ", machines);
    char history[SB_PATH_MAX + 16];
    snprintf(history, sizeof history, "%s/../history.md", pc->dir);   /* segbench history writes it beside */
    if (access(history, F_OK) == 0)
        fprintf(md, "[History](history.md): each stage's fastest variant over the runs of record, its steps put "
                    "down to the code or the machine (`segbench history`). ");
    fprintf(md, "%s",
            "Why each CUDA variant is built as it is: `impl_cuda/<algo>/NOTES.md`; the method: "
            "[docs/measuring.md](../../docs/measuring.md).\n\n");
    sb_report_cli(md, results_dir);
    fprintf(md, "## The machine and how to read the numbers\n\n| | |\n|---|---|\n| GPU | %s |\n"
                "| device copy bandwidth (measured, read + write) | %s%s |\n",
            e->gpu, e->copy, atof(e->copy) > 0 ? " GB/s" : " (no GPU)");
    if (strcmp(e->bus[0], "?") != 0)
        fprintf(md, "| host <-> device bus (measured, pinned copies of 256 MiB) | %s GB/s to the device, %s to the host, "
                    "%s both at once |\n",
                e->bus[0], e->bus[1], e->bus[2]);
    fprintf(md, "| CPU | %s (%s logical cores) |\n"
                "| host memcpy bandwidth by threads (best of 5, GB/s) | %s |\n| dataset | %s |\n| commit | %s%s |\n"
                "| run | %s: %s of %s planned rows, bench %s s |\n| date | %s |\n\n",
            e->cpu, e->cores, e->host, e->set, commit_words(e, commit, sizeof commit) + strlen("commit "), "",
            e->run, e->measured, e->planned, e->seconds, e->date);
    fputs(HOW_TO_READ, md);
    int listed = 0;                   /* names in missing_list, which keeps whole names only */
    for (const char *p = pc->missing_list; *p; p++)
        listed += *p == ',';
    listed += pc->missing_list[0] != '\0';
    if (pc->kept)
        fprintf(md, "## Plots not redrawn\n\ngnuplot was not found: %d plots in `plots/` are from an earlier "
                    "report and may not match these tables. Install gnuplot (`apt-get install gnuplot-nox`) and run "
                    "`make report`.\n\n",
                pc->kept);
    if (pc->missing)
        fprintf(md, "## Missing plots\n\n%s: %s%s. The data files and gnuplot scripts are in `plots/`; install "
                    "gnuplot (`apt-get install gnuplot-nox`) and run `make report`.\n",
                gnuplot ? "gnuplot failed on" : "gnuplot was not found, so these plots were not drawn",
                pc->missing_list, listed < pc->missing ? ", ..." : "");
}

/* REPORT.md written, and one line saying what was drawn. */
static sb_status report_write(const char *out_dir, const char *md_text, const plot_ctx *pc, int nalgo,
                              sb_error *err)
{
    char path[SB_PATH_MAX];
    sb_status st = sb_path(path, err, "%s/REPORT.md", out_dir);
    if (!st)
        st = sb_atomic_write_text(path, md_text, err);
    if (st)
        return st;
    char plots_said[96];
    int n = snprintf(plots_said, sizeof plots_said, "%d plots drawn", pc->made);
    if (pc->kept)
        n += snprintf(plots_said + n, sizeof plots_said - (size_t)n, ", %d older ones kept", pc->kept);
    if (pc->missing)
        snprintf(plots_said + n, sizeof plots_said - (size_t)n, ", %d missing", pc->missing);
    printf("wrote %s and %d algorithm pages (%s)\n", path, nalgo, plots_said);
    return SB_OK;
}

static sb_status report_one_with(report_env *e, const char *results_dir, const char *out_dir, int gnuplot,
                                 const char *machines, sb_error *err)
{
    char plots[SB_PATH_MAX], gallery_dir[SB_PATH_MAX];
    sb_status st;
    if ((st = sb_path(plots, err, "%s/plots", out_dir)) || (st = sb_path(gallery_dir, err, "%s/gallery", out_dir)) ||
        (st = sb_mkdirs(plots, err)))
        return st;
    sb_temp_sweep(out_dir, time(NULL));      /* what a killed report left half-written */
    sb_temp_sweep(plots, time(NULL));
    sb_temp_sweep(gallery_dir, time(NULL));
    report_env_read(results_dir, e);
    sb_catalogue_load(&e->catalogue, results_dir);
    char *md_text = NULL;
    size_t md_len = 0;
    FILE *md = open_memstream(&md_text, &md_len);
    if (!md) {
        free(e->text);
        sb_catalogue_free(&e->catalogue);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    report_sets rs = { 0 };
    st = report_sets_read(results_dir, &rs, err);
    for (int a = 0; a < rs.nalgo; a++)
        rs.rows[a].catalogue = &e->catalogue;
    if (!st)
        report_first_screen(md, results_dir, e, &rs);
    plot_ctx pc = { .dir = plots, .gnuplot = gnuplot, .device_peak = atof(e->copy) };
    report_host_peak(e, &pc);
    pc.sm_count = atoi(e->sm_count);
    for (int a = 0; a < rs.nalgo && !st; a++) {
        st = algo_page(&pc, results_dir, out_dir, rs.algos[a], &rs.rows[a], &rs.profile[a], err);
        if (!st && view_rows_have_gpu(&rs.rows[a]))       /* lessons are CUDA rungs: none measured, no page */
            st = report_lessons_page(results_dir, out_dir, rs.algos[a], &rs.rows[a], atof(e->copy), &rs.profile[a],
                                     &rs.streams[a], err);
    }
    report_plots_draw(&pc);
    int gallery = 0;
    if (!st)
        st = report_gallery_page(results_dir, out_dir, &gallery, err);
    report_last_part(md, results_dir, e, &rs, &pc, gnuplot, gallery, machines);
    fclose(md);
    if (!st)
        st = report_write(out_dir, md_text, &pc, rs.nalgo, err);
    report_sets_free(&rs);
    free(md_text);
    free(e->text);
    sb_catalogue_free(&e->catalogue);
    return st;
}

static sb_status report_one(const char *results_dir, const char *out_dir, int gnuplot, const char *machines,
                            sb_error *err)
{
    report_env *e = calloc(1, sizeof *e);     /* large: the heap, not a static */
    if (!e)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = report_one_with(e, results_dir, out_dir, gnuplot, machines, err);
    free(e);
    return st;
}

/* The result sets under root (folders with an env.json), sorted so that
 * MACHINES.md is the same every time: *dirs (malloc'd, SB_PATH_MAX a
 * name), their count, or -1 when root cannot be opened. */
static int result_sets(const char *root, char (**dirs)[SB_PATH_MAX], sb_error *err)
{
    *dirs = NULL;
    DIR *d = opendir(root);
    if (!d)
        return -1;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char (*grown)[SB_PATH_MAX] = realloc(*dirs, (size_t)cap * SB_PATH_MAX);
            if (!grown) {
                closedir(d);
                sb_fail(err, SB_ERR_NOMEM, "out of memory listing %s", root);
                return -2;
            }
            *dirs = grown;
        }
        char env[SB_PATH_MAX];
        struct stat sbuf;
        if (sb_path((*dirs)[n], err, "%s/%s", root, e->d_name) || sb_path(env, err, "%s/env.json", (*dirs)[n])) {
            closedir(d);
            return -2;
        }
        if (stat(env, &sbuf) == 0)
            n++;
    }
    closedir(d);
    if (n)
        qsort(*dirs, (size_t)n, SB_PATH_MAX, (int (*)(const void *, const void *))strcmp);
    return n;
}

/* Does root's published.txt list any set?  Then MACHINES.md compares the
 * sets it lists, and no other run can change that page. */
static int has_published(const char *root)
{
    char reference[128];
    sb_published_reference(root, reference, sizeof reference);
    return reference[0] != '\0';
}

static int is_published(const char *root, const char *dir)
{
    const char *name = strrchr(dir, '/');
    return !has_published(root) || sb_published_index(root, name ? name + 1 : dir) >= 0;
}

/* The sets among dirs[0..n) that root publishes (all of them where it
 * publishes none), moved to the front; returns how many. */
static int keep_published(const char *root, char (*dirs)[SB_PATH_MAX], int n)
{
    if (!has_published(root))
        return n > 0 ? n : 0;
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (sb_published_index(root, strrchr(dirs[i], '/') + 1) >= 0)
            memmove(dirs[kept++], dirs[i], SB_PATH_MAX);
    return kept;
}

/* report_root/MACHINES.md, from the published result sets under root. */
static sb_status machines_page(const char *root, const char *report_root, const char *baseline, sb_error *err)
{
    char (*dirs)[SB_PATH_MAX];
    int n = result_sets(root, &dirs, err);
    if (n == -2)
        return err->status;
    n = keep_published(root, dirs, n);
    char tasks[SB_PATH_MAX], machines[SB_PATH_MAX];
    sb_status st = sb_path(tasks, err, "%s/slurm-tasks.tsv", root);
    if (!st)
        st = sb_path(machines, err, "%s/MACHINES.md", report_root);
    struct stat sbuf;
    int have_tasks = !st && stat(tasks, &sbuf) == 0;
    if (!st && (n > 1 || (n > 0 && have_tasks)))
        st = sb_report_machines(dirs, n, root, baseline, machines, have_tasks ? tasks : NULL, err);
    free(dirs);
    return st;
}

/* out_dir/MACHINES.md: a set that is not published (a local machine's, or
 * one outside the repository) beside the sets published under
 * published_root, in its own report's folder -- the repository's
 * MACHINES.md stays as its published sets make it. */
static sb_status machines_beside(const char *set, const char *published_root, const char *out_dir,
                                 const char *baseline, sb_error *err)
{
    char (*dirs)[SB_PATH_MAX] = NULL;
    int n = has_published(published_root) ? result_sets(published_root, &dirs, err) : 0;
    if (n == -2) {
        free(dirs);
        return err->status;
    }
    n = n > 0 ? keep_published(published_root, dirs, n) : 0;
    char (*grown)[SB_PATH_MAX] = realloc(dirs, (size_t)(n + 1) * SB_PATH_MAX);
    if (!grown) {
        free(dirs);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory listing %s", published_root);
    }
    dirs = grown;
    char path[SB_PATH_MAX];
    sb_status st = sb_path(dirs[n], err, "%s", set);
    if (!st)
        st = sb_path(path, err, "%s/MACHINES.md", out_dir);
    if (!st && n > 0)
        st = sb_report_machines(dirs, n + 1, published_root, baseline, path, NULL, err);
    free(dirs);
    return st;
}

/* Is dir the working folder's results/?  A working folder whose results/
 * publishes sets is a segbench repository, whose tracked report/ a run
 * elsewhere must not touch. */
static int is_working_results(const char *dir)
{
    char a[SB_PATH_MAX], b[SB_PATH_MAX];
    return realpath(dir, a) && realpath("results", b) && strcmp(a, b) == 0;
}

/* How many of root's result sets it publishes (0 where it names none). */
static int published_sets(const char *root)
{
    char (*dirs)[SB_PATH_MAX] = NULL;
    sb_error ignored;
    int n = has_published(root) ? result_sets(root, &dirs, &ignored) : 0;
    int kept = n > 0 ? keep_published(root, dirs, n) : 0;
    free(dirs);
    return kept;
}

sb_status sb_report_result_set(const char *results, const char *out, const char *baseline, sb_error *err)
{
    int csvs = 0;
    struct stat sbuf;
    for (int i = 0; i < sb_algo_count(); i++) {
        char csv[SB_PATH_MAX];
        snprintf(csv, sizeof csv, "%s/%s.csv", results, sb_algo_at(i)->name);
        csvs += stat(csv, &sbuf) == 0;
    }
    if (stat(results, &sbuf) != 0 || !S_ISDIR(sbuf.st_mode))
        return sb_fail(err, SB_ERR_IO, "%s: no such results directory", results);
    if (!csvs)
        return sb_fail(err, SB_ERR_IO, "%s holds no results (no <algo>.csv); run 'segbench bench' first", results);
    char out_dir[SB_PATH_MAX], root[SB_PATH_MAX];
    size_t len = strlen(results);
    while (len > 1 && results[len - 1] == '/')
        len--;
    const char *base = results + len;
    while (base > results && base[-1] != '/')
        base--;
    snprintf(root, sizeof root, "%.*s", base > results ? (int)(base - results - 1) : 1, base > results ? results : ".");
    /* where the report goes: report/<set>, except for a set outside a
     * repository's results/ (bench --results /tmp/x in a clone): beside
     * the set, in <set>/report, so that nothing tracked changes */
    int in_report = is_working_results(root) || !has_published("results");
    if (out)
        snprintf(out_dir, sizeof out_dir, "%s", out);
    else if (in_report)
        snprintf(out_dir, sizeof out_dir, "report/%.*s", (int)(results + len - base), base);
    else if (sb_path(out_dir, err, "%.*s/report", (int)len, results))
        return err->status;
    int gnuplot = report_gnuplot();
    /* a published set is in MACHINES.md; another has its own page beside
     * its report: itself beside the published sets */
    const char *published_root = in_report ? root : "results";
    int published = in_report && is_published(root, results);
    int beside = !out && !published && published_sets(published_root) > 0;
    sb_status st = report_one(results, out_dir, gnuplot, beside ? "MACHINES.md" : NULL, err);
    if (st || out)
        return st;
    if (published)        /* this machine beside the others; their own reports stay as they are */
        return machines_page(root, "report", baseline, err);
    return beside ? machines_beside(results, published_root, out_dir, baseline, err) : SB_OK;
}

sb_status sb_report_all(const char *root, const char *out, const char *baseline, sb_error *err)
{
    char (*dirs)[SB_PATH_MAX];
    int ndirs = result_sets(root, &dirs, err);
    if (ndirs == -2)
        return err->status;
    if (ndirs < 0)
        return sb_fail(err, SB_ERR_IO, "%s/: cannot open (%s); run 'make bench' first", root, strerror(errno));
    if (!ndirs) {
        free(dirs);
        return sb_fail(err, SB_ERR_IO, "%s/ holds no result sets; run 'make bench' first", root);
    }
    const char *report_root = out ? out : "report";
    int gnuplot = report_gnuplot();
    int published = 0;
    for (int i = 0; i < ndirs; i++)
        published += is_published(root, dirs[i]);
    sb_status st = SB_OK;
    for (int i = 0; i < ndirs && !st; i++) {
        char out_dir[SB_PATH_MAX];
        int shown = is_published(root, dirs[i]);     /* in MACHINES.md, or beside it in its own */
        if (!(st = sb_path(out_dir, err, "%s/%s", report_root, strrchr(dirs[i], '/') + 1)))
            st = report_one(dirs[i], out_dir, gnuplot,
                            shown ? (published > 1 ? "../MACHINES.md" : NULL) : published ? "MACHINES.md" : NULL,
                            err);
        if (!st && !shown && published)
            st = machines_beside(dirs[i], root, out_dir, baseline, err);
    }
    free(dirs);
    if (!st)
        st = machines_page(root, report_root, baseline, err);
    return st;
}
