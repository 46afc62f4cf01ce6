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
#include "report/report.h"

#include "base/files.h"

#include "io/catalogue.h"
#include "report/report_parts.h"
#include "report/report_limits.h"

#include "io/env.h"
#include "io/result_set.h"

#include "segbench/atomic_file.h"

#include "segbench/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    fprintf(md, "# %s\n\n[Back to the report](REPORT.md) · [the lessons: its CUDA ladder as a tree](lessons-%s.md). "
                "%s.%s%s%s\n\nMeasured at %s. Agreement contract: %s. "
                "**%d of %d rows agree%s.**",
            algo->name, algo->name, algo->summary, notes[0] ? " Notes on the CUDA variants: [NOTES.md](../../" : "", notes,
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
                        rows->row[i].threads, report_md(rows->row[i].image), report_md(rows->row[i].metric));
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

static sb_status report_one(const char *results_dir, const char *out_dir, int gnuplot, int machines, sb_error *err)
{
    char path[1400], plots[1400];
    snprintf(plots, sizeof plots, "%s/plots", out_dir);
    sb_status st = sb_mkdirs(plots, err);
    if (st)
        return st;
    char gallery_dir[1400];              /* what a killed report left half-written */
    snprintf(gallery_dir, sizeof gallery_dir, "%s/gallery", out_dir);
    sb_temp_sweep(out_dir, time(NULL));
    sb_temp_sweep(plots, time(NULL));
    sb_temp_sweep(gallery_dir, time(NULL));
    snprintf(path, sizeof path, "%s/env.json", results_dir);
    char *env = sb_read_text(path);
    sb_catalogue_load(results_dir);     /* the variants as they were when measured */

    char *md_text = NULL;
    size_t md_len = 0;
    FILE *md = open_memstream(&md_text, &md_len);
    if (!md) {
        free(env);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    char id[128], gpu[256], cpu[256], date[64], commit[64], dirty[16], copy[32], set[64], cores[16], host[256],
        run[64];
    sb_json_get(env, "machine_id", id, sizeof id);
    sb_json_get(env, "gpu_name", gpu, sizeof gpu);
    if (strcmp(gpu, "?") == 0) {
        char why[200];
        sb_json_get(env, "gpu_absent_reason", why, sizeof why);
        snprintf(gpu, sizeof gpu, "none (%s)", why);
    }
    sb_json_get(env, "cpu_model", cpu, sizeof cpu);
    sb_json_get(env, "date", date, sizeof date);
    sb_json_get(env, "commit", commit, sizeof commit);
    sb_json_get(env, "dirty", dirty, sizeof dirty);
    sb_json_get(env, "device_copy_gbps", copy, sizeof copy);
    sb_json_get(env, "run_id", run, sizeof run);
    char measured[16], planned[16], seconds[24], sm_count[16];
    sb_json_get(env, "gpu_sm_count", sm_count, sizeof sm_count);
    sb_json_get(env, "rows_measured", measured, sizeof measured);
    sb_json_get(env, "rows_planned", planned, sizeof planned);
    sb_json_get(env, "run_seconds", seconds, sizeof seconds);
    if (strcmp(copy, "?") == 0)
        snprintf(copy, sizeof copy, "n/a");
    sb_json_get(env, "dataset", set, sizeof set);
    sb_json_get(env, "cpu_logical_cores", cores, sizeof cores);
    /* {"1": 22.7, "2": 28.2} -> 1: 22.7, 2: 28.2 */
    const char *h = env ? strstr(env, "\"host_copy_gbps\": {") : NULL;
    size_t hn = 0;
    for (const char *p = h ? h + 19 : "?"; *p && *p != '}' && *p != '\n' && hn + 1 < sizeof host; p++)
        if (*p != '"')
            host[hn++] = *p;
    host[hn] = '\0';

    fprintf(md, "# segbench report: %s\n\n%s, %s; dataset %s; commit %.12s%s, run %s. Generated by `segbench "
                "report` from `%s/` (`make report` rewrites it).\n\n",
            id, gpu, cpu, set, commit, strcmp(dirty, "true") == 0 ? " (tree had local changes)" : "", run,
            results_dir);

    sb_result_set rs;
    sb_result_set_survey(results_dir, &rs);
    if (rs.nnotes) {
        fprintf(md, "> **Note on these results.**\n");
        for (int i = 0; i < rs.nnotes; i++)
            fprintf(md, "> %s%s\n", rs.notes[i][0] == ' ' ? "- " : "", rs.notes[i][0] == ' ' ? rs.notes[i] + 2 : rs.notes[i]);
        fprintf(md, "\n");
        for (int i = 0; i < rs.nnotes; i++)
            fprintf(stderr, "segbench report: %s: %s\n", results_dir, rs.notes[i]);
    }

    /* the algorithms with results, their rows read once */
    static sb_rows rows[64];
    const sb_algo *algos[64];
    int nalgo = 0;
    for (int a = 0; a < sb_algo_count() && nalgo < 64 && !st; a++) {
        struct stat sbuf;
        snprintf(path, sizeof path, "%s/%s.csv", results_dir, sb_algo_at(a)->name);
        if (stat(path, &sbuf) != 0)
            continue;
        if (!(st = sb_rows_read_ladders(path, &rows[nalgo], NULL, err)))
            algos[nalgo++] = sb_algo_at(a);
    }

    static profile_set profile[64];
    for (int a = 0; a < nalgo; a++)
        profile_read(results_dir, algos[a]->name, &profile[a]);
    double copy_gbps = atof(copy);
    fprintf(md, "## Summary\n\nEach stage at the largest image it was measured on; medians.\n\n");
    report_summary_header(md);
    for (int a = 0; a < nalgo; a++)
        report_summary_rows(md, &rows[a], algos[a], copy_gbps, &profile[a]);
    report_summary_legend(md);
    fprintf(md, "\n## How far from the limit\n\nEach stage's fastest CUDA rung at the summary image against "
                "the larger of its two floors, and what holds it back.\n\n");
    report_limits_header(md);
    for (int a = 0; a < nalgo; a++)
        for (int s = 0; s < algos[a]->stage_count; s++) {
            stage_limit lim;
            stage_limit_of(&rows[a], algos[a], s, copy_gbps, &profile[a], &lim);
            report_limits_row(md, algos[a]->name, &lim);
        }
    report_limits_legend(md);
    fprintf(md, "\n## The ladders\n\nEach algorithm's variants in teaching order, first stage, kernel ms (the "
                "steps, their speed-ups and what each changes are on the algorithm's page; the CUDA rungs as a "
                "tree of lessons, each edge's idea, gain and census change, on its lessons page):\n\n");
    for (int a = 0; a < nalgo; a++)
        report_ladder_line(md, &rows[a], algos[a]);

    report_peers(md, results_dir, rows, algos, nalgo);

    plot_ctx pc = { plots, gnuplot, 0, 0, 0, "", atof(copy), 0.0, 0, 0 };
    for (const char *p = h ? h + 19 : ""; *p && *p != '}';) {      /* the host peak at the most threads */
        int threads = 0;
        double gbps = 0.0;
        if (sscanf(p, " \"%d\": %lf", &threads, &gbps) == 2 && threads > pc.host_threads) {
            pc.host_threads = threads;
            pc.host_peak = gbps;
        }
        p += strcspn(p, ",}");
        if (*p == ',')
            p++;
    }
    pc.sm_count = atoi(sm_count);
    for (int a = 0; a < nalgo && !st; a++) {
        st = algo_page(&pc, results_dir, out_dir, algos[a], &rows[a], &profile[a], err);
        if (!st)
            st = report_lessons_page(results_dir, out_dir, algos[a], &rows[a], err);
    }
    for (int a = 0; a < nalgo; a++)
        profile_free(&profile[a]);

    char *gallery_text = NULL;
    size_t gallery_len = 0;
    int gallery = 0;
    FILE *gmd = open_memstream(&gallery_text, &gallery_len);
    if (!st && gmd)
        st = report_gallery(results_dir, out_dir, gmd, &gallery, err);
    if (gmd)
        fclose(gmd);
    snprintf(path, sizeof path, "%s/gallery.md", out_dir);
    if (!st && gallery)
        st = sb_atomic_write_text(path, gallery_text, err);
    free(gallery_text);

    fprintf(md, "\n## Contents\n\n");
    for (int a = 0; a < nalgo; a++)
        fprintf(md, "%s[%s](%s.md)", a ? " · " : "", algos[a]->name, algos[a]->name);
    fprintf(md, "\n\n%s%s%s", gallery ? "[Gallery](gallery.md): the reference's pictures. " : "",
            machines > 1 ? "[MACHINES.md](../MACHINES.md): this machine beside the others. " : "",
            "Why each CUDA variant is built as it is: `impl_cuda/<algo>/NOTES.md`; the method: the README's "
            "\"How a variant is measured\".\n\n");
    sb_report_cli(md, results_dir);

    fprintf(md, "## The machine and how to read the numbers\n\n| | |\n|---|---|\n| GPU | %s |\n"
                "| device copy bandwidth (measured, read + write) | %s GB/s |\n| CPU | %s (%s logical cores) |\n"
                "| host memcpy bandwidth by threads (best of 5, GB/s) | %s |\n| dataset | %s |\n| commit | %s%s |\n"
                "| run | %s: %s of %s planned rows, bench %s s |\n| date | %s |\n\n",
            gpu, copy, cpu, cores, host, set, commit, strcmp(dirty, "true") == 0 ? " (tree had local changes)" : "",
            run, measured, planned, seconds, date);
    fprintf(md, "Kernel time is `run()` alone (CUDA events around the kernels, the L2 cache flushed before each run; "
                "the monotonic clock for CPU variants). *Per frame* is what a program streaming images pays for each: "
                "`upload` (from pinned memory into buffers that already exist) + `run` + `fetch` (download); "
                "*setup* is the one-time `prepare` (device allocation); end-to-end (e2e) is one whole cold run, "
                "setup and a frame. CPU variants move nothing: their frame is the kernel time plus `fetch`. Times "
                "are medians of repeated runs after "
                "warm-up, with the 25th-75th percentile range and the sample count n († marks rows measured once "
                "or twice). Memory-bound stages show GB/s (the stage's byte floor over the kernel median) and %% "
                "of the measured copy bandwidth of the same processor; compute-bound stages show megapixels per "
                "second. Every row was checked against the serial reference on that image before it was timed.\n\n");
    int listed = 0;                   /* names in missing_list, which keeps whole names only */
    for (const char *p = pc.missing_list; *p; p++)
        listed += *p == ',';
    listed += pc.missing_list[0] != '\0';
    if (pc.kept)
        fprintf(md, "## Plots not redrawn\n\ngnuplot was not found: %d plots in `plots/` are from an earlier "
                    "report and may not match these tables. Install gnuplot (`apt-get install gnuplot-nox`) and run "
                    "`make report`.\n\n",
                pc.kept);
    if (pc.missing)
        fprintf(md, "## Missing plots\n\n%s: %s%s. The data files and gnuplot scripts are in `plots/`; install "
                    "gnuplot (`apt-get install gnuplot-nox`) and run `make report`.\n",
                gnuplot ? "gnuplot failed on" : "gnuplot was not found, so these plots were not drawn",
                pc.missing_list, listed < pc.missing ? ", ..." : "");
    fclose(md);
    for (int a = 0; a < nalgo; a++)
        sb_rows_free(&rows[a]);
    if (!st) {
        snprintf(path, sizeof path, "%s/REPORT.md", out_dir);
        st = sb_atomic_write_text(path, md_text, err);
        if (!st) {
            char plots_said[96];
            int n = snprintf(plots_said, sizeof plots_said, "%d plots drawn", pc.made);
            if (pc.kept)
                n += snprintf(plots_said + n, sizeof plots_said - (size_t)n, ", %d older ones kept", pc.kept);
            if (pc.missing)
                snprintf(plots_said + n, sizeof plots_said - (size_t)n, ", %d missing", pc.missing);
            printf("wrote %s and %d algorithm pages (%s)\n", path, nalgo, plots_said);
        }
    }
    free(md_text);
    free(env);
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

/* MACHINES.md in report_root, from every result set under root. */
static sb_status machines_page(const char *root, const char *report_root, const char *baseline, sb_error *err)
{
    char (*dirs)[SB_PATH_MAX];
    int n = result_sets(root, &dirs, err);
    if (n == -2)
        return err->status;
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

static const char *const NO_GNUPLOT = "segbench report: gnuplot not found: tables only; plots not redrawn "
                                      "(install with: apt-get install gnuplot-nox)\n";

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
    snprintf(out_dir, sizeof out_dir, "%s", out ? out : "");
    if (!out)
        snprintf(out_dir, sizeof out_dir, "report/%.*s", (int)(results + len - base), base);
    int gnuplot = sb_find_program("gnuplot", NULL, 0);
    if (!gnuplot)
        fputs(NO_GNUPLOT, stderr);
    sb_status st = report_one(results, out_dir, gnuplot, 1, err);
    if (!st && !out)                  /* this machine beside the others; their own reports stay as they are */
        st = machines_page(root, "report", baseline, err);
    return st;
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
    int gnuplot = sb_find_program("gnuplot", NULL, 0);
    if (!gnuplot)
        fputs(NO_GNUPLOT, stderr);
    sb_status st = SB_OK;
    for (int i = 0; i < ndirs && !st; i++) {
        char out_dir[SB_PATH_MAX];
        if (!(st = sb_path(out_dir, err, "%s/%s", report_root, strrchr(dirs[i], '/') + 1)))
            st = report_one(dirs[i], out_dir, gnuplot, ndirs, err);
    }
    free(dirs);
    if (!st)
        st = machines_page(root, report_root, baseline, err);
    return st;
}
