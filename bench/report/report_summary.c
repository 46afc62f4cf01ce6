/* report_summary.c - what a reader wants on the first screen: each stage's
 * serial, best CPU and best GPU time with the speed-ups and the distance to
 * the floor; each algorithm's optimisation ladder; and the pipelines as
 * stacked bars (see report_parts.h). */
#include "report/report_parts.h"

#include "io/catalogue.h"

#include "cli/commands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "12.3", "0.0244": enough digits to read, no more */
static const char *ms_text(double ms, char *buf, size_t size)
{
    snprintf(buf, size, ms >= 100 ? "%.0f" : ms >= 1 ? "%.2f" : ms >= 0.01 ? "%.4f" : "%.5f", ms);
    return buf;
}

/* The fastest agreeing row at `image` among the variants `pick` accepts. */
static const sb_row *fastest(const stage_view *sv, const char *image, int (*pick)(const sb_variant *))
{
    const sb_row *best = NULL;
    for (int v = 0; v < sv->nvar; v++) {
        int failed;
        const sb_row *r = pick(sv->var[v]) ? view_best_row(sv, sv->var[v]->name, image, &failed) : NULL;
        if (r && (!best || r->kernel.median < best->kernel.median))
            best = r;
    }
    return best;
}

static int pick_cpu(const sb_variant *v) { return view_is_cpu_backend(v->backend); }
static int pick_gpu(const sb_variant *v) { return !view_is_cpu_backend(v->backend) && !view_is_floor(v); }
static int pick_floor(const sb_variant *v) { return view_is_floor(v); }

/* "openmp@16 1.23 ms" */
static void variant_cell(const sb_row *r, char *out, size_t size)
{
    char t[32];
    if (!r)
        snprintf(out, size, "-");
    else if (r->threads > 1)
        snprintf(out, size, "%s@%d %s ms", r->variant, r->threads, ms_text(r->kernel.median, t, sizeof t));
    else
        snprintf(out, size, "%s %s ms", r->variant, ms_text(r->kernel.median, t, sizeof t));
}

static void ratio_cell(double num, double den, char *out, size_t size)
{
    if (num > 0 && den > 0)
        snprintf(out, size, "%.*fx", num / den < 10 ? 2 : num / den < 100 ? 1 : 0, num / den);
    else
        snprintf(out, size, "-");
}

/* The best GPU row's per-frame time and its one-time setup: "0.61 + 85.2" */
static void frame_cell(const sb_row *r, char *out, size_t size)
{
    char a[32], b[32];
    if (!r || r->frame.n == 0)
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%s + %s", ms_text(r->frame.median, a, sizeof a), ms_text(r->setup.median, b, sizeof b));
}

void report_summary_header(FILE *fp)
{
    fprintf(fp, "| algorithm | stage | at | serial `cpu` | best CPU | best GPU | its frame + setup ms | GPU vs serial "
                "| GPU vs best CPU | GPU / floor |\n|---|---|---|---:|---|---|---:|---:|---:|---:|\n");
}

void report_summary_rows(FILE *fp, const sb_rows *rows, const sb_algo *algo)
{
    for (int s = 0; s < algo->stage_count; s++) {
        stage_view sv;
        view_build(&sv, rows, algo->name, algo->stages[s]);
        if (sv.nimg == 0)
            continue;
        const char *image = sv.img[sv.largest];
        double serial = view_baseline_ms(&sv, image, 0);
        const sb_row *cpu = fastest(&sv, image, pick_cpu), *gpu = fastest(&sv, image, pick_gpu),
                     *floor = fastest(&sv, image, pick_floor);
        char a[96], b[96], c[32], d[32], e[32], f[32], g[80], t[32];
        variant_cell(cpu, a, sizeof a);
        variant_cell(gpu, b, sizeof b);
        frame_cell(gpu, g, sizeof g);
        ratio_cell(serial, gpu ? gpu->kernel.median : 0, c, sizeof c);
        ratio_cell(cpu ? cpu->kernel.median : 0, gpu ? gpu->kernel.median : 0, d, sizeof d);
        ratio_cell(gpu ? gpu->kernel.median : 0, floor ? floor->kernel.median : 0, e, sizeof e);
        snprintf(f, sizeof f, "%s", serial > 0 ? ms_text(serial, t, sizeof t) : "-");
        fprintf(fp, "| [%s](%s.md) | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", algo->name, algo->name,
                algo->stages[s], report_md(image), f, a, b, g, c, d, e);
    }
}

/* ---- the ladder ---- */

sb_status report_ladder(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err)
{
    const char *image = sv->img[sv->largest];
    double serial = view_baseline_ms(sv, image, 0), prev = 0.0;
    char notes[300], name[200], t[32];
    report_notes_path(algo, notes, sizeof notes);
    fprintf(md, "#### The ladder, stage %s, at %s\n\nThe variants in teaching order (`segbench list`: the files' order), each "
                "at its best thread count; a step's speed-up is over the step before it.%s%s%s\n\n"
                "| step | variant | kernel ms | vs step before | vs serial | what it changes | source |\n"
                "|---:|---|---:|---:|---:|---|---|\n",
            sv->stage, image, notes[0] ? " Why each step helps, and what did not: [NOTES.md](../../" : "", notes,
            notes[0] ? ")." : "");
    snprintf(name, sizeof name, "%s-%s-ladder", algo, sv->stage);
    FILE *fp;
    sb_status st = report_plot_data_open(pc, name, &fp, err);
    if (st)
        return st;
    fprintf(fp, "step variant ms colour\n");
    int step = 0;
    const sb_row *floor = NULL;
    for (int v = 0; v < sv->nvar; v++) {
        int failed;
        const sb_row *r = view_best_row(sv, sv->var[v]->name, image, &failed);
        if (view_is_floor(sv->var[v])) {
            floor = r;
            continue;
        }
        char src[300], vs_prev[32], vs_serial[32], variant[80];
        report_variant_source(sv->var[v], src, sizeof src);
        snprintf(variant, sizeof variant, r && r->threads > 1 ? "%s@%d" : "%s", sv->var[v]->name,
                 r ? r->threads : 1);
        if (!r) {
            fprintf(md, "| %d | %s | %s | | | %s | |\n", ++step, variant, failed ? "FAIL" : "-",
                    sv->var[v]->summary);
            continue;
        }
        ratio_cell(prev, r->kernel.median, vs_prev, sizeof vs_prev);
        ratio_cell(serial, r->kernel.median, vs_serial, sizeof vs_serial);
        step++;
        fprintf(md, "| %d | %s | %s | %s | %s | %s | %s%s%s%s%s |\n", step, variant,
                ms_text(r->kernel.median, t, sizeof t), step > 1 ? vs_prev : "", vs_serial, sv->var[v]->summary,
                src[0] ? "[" : "", src, src[0] ? "](../../" : "", src, src[0] ? ")" : "");
        fprintf(fp, "%d %s %g %ld\n", step, variant, r->kernel.median, strtol(report_colour(sv->var[v]) + 1, NULL, 16));
        prev = r->kernel.median;
    }
    fclose(fp);
    if (floor)
        fprintf(md, "\nFloor (not a step): `%s`, %s ms, the speed of light for these bytes.\n", floor->variant,
                ms_text(floor->kernel.median, t, sizeof t));
    char floor_line[200] = "", script[2048];
    if (floor)
        snprintf(floor_line, sizeof floor_line, ", %g with lines dt 2 lw 2 lc rgb '%s' title 'floor: %s'",
                 floor->kernel.median, REPORT_FLOOR_COLOUR, floor->variant);
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s %s at %s: the ladder, kernel time per step (log scale)'\n"
             "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset logscale y\nset key top right\n"
             "set ylabel 'kernel time, median (ms)'\nset xtics rotate by -30\n"
             "plot '%s.dat' using 1:3:4:xtic(2) with boxes lc rgb variable notitle%s\n",
             REPORT_PLOT_HEAD, name, algo, sv->stage, report_gp(image), name, floor_line);
    if ((st = report_plot_run(pc, name, script, err)))
        return st;
    fprintf(md, "\n![ladder](plots/%s.png)\n\n", name);
    return SB_OK;
}

void report_ladder_line(FILE *fp, const sb_rows *rows, const sb_algo *algo)
{
    stage_view sv;
    view_build(&sv, rows, algo->name, algo->stages[0]);
    if (sv.nimg == 0)
        return;
    const char *image = sv.img[sv.largest];
    fprintf(fp, "- [%s](%s.md), %s at %s:", algo->name, algo->name, algo->stages[0], image);
    int n = 0;
    for (int v = 0; v < sv.nvar; v++) {
        int failed;
        const sb_row *r = view_best_row(&sv, sv.var[v]->name, image, &failed);
        if (!r || view_is_floor(sv.var[v]))
            continue;
        char t[32];
        fprintf(fp, "%s %s %s", n++ ? " →" : "", sv.var[v]->name, ms_text(r->kernel.median, t, sizeof t));
    }
    fprintf(fp, " ms\n");
}

/* ---- pipelines ---- */

sb_status report_pipeline_bars(plot_ctx *pc, const char *results_dir, const sb_algo *pipeline, FILE *md,
                               sb_error *err)
{
    enum { MAX_PARTS = 8 };
    const sb_algo *part[MAX_PARTS];
    sb_rows rows[MAX_PARTS];
    int nparts = 0;
    size_t plen = strlen(pipeline->name);
    for (int a = 0; a < sb_algo_count() && nparts < MAX_PARTS; a++) {
        const sb_algo *algo = sb_algo_at(a);
        char path[1400];
        snprintf(path, sizeof path, "%s/%s.csv", results_dir, algo->name);
        sb_error ignored;
        if (strncmp(algo->name, pipeline->name, plen) || algo->name[plen] != '-' ||
            sb_rows_read_csv(path, &rows[nparts], &ignored) != SB_OK)
            continue;
        part[nparts++] = algo;
    }
    sb_status st = SB_OK;
    if (nparts < 2)
        goto out;
    /* the largest synthetic image every part measured at its first stage */
    stage_view sv0;
    view_build(&sv0, &rows[0], part[0]->name, part[0]->stages[0]);
    const char *image = NULL;
    double px = 0.0;
    for (int i = 0; i < sv0.nimg; i++) {
        int everywhere = view_is_synthetic(sv0.img[i]);
        for (int k = 1; k < nparts && everywhere; k++) {
            everywhere = 0;
            for (int r = 0; r < rows[k].count && !everywhere; r++)
                everywhere = !strcmp(rows[k].row[r].image, sv0.img[i]) && !strcmp(rows[k].row[r].stage, part[k]->stages[0]);
        }
        if (everywhere && sv0.img_px[i] > px) {
            px = sv0.img_px[i];
            image = sv0.img[i];
        }
    }
    if (!image)
        goto out;
    char name[200], script[4096];
    snprintf(name, sizeof name, "%s-pipeline", pipeline->name);
    FILE *fp;
    if ((st = report_plot_data_open(pc, name, &fp, err)))
        goto out;
    fprintf(fp, "variant");
    for (int k = 0; k < nparts; k++)
        fprintf(fp, " %s", part[k]->name + plen + 1);
    fprintf(fp, "\n");
    fprintf(md, "### Where the time goes\n\nEach step of the pipeline once, at %s, per variant (kernel ms, best "
                "thread count; the pipeline itself repeats some steps).\n\n| variant |", image);
    for (int k = 0; k < nparts; k++)
        fprintf(md, " %s |", part[k]->name + plen + 1);
    fprintf(md, " sum |\n|---|");
    for (int k = 0; k <= nparts; k++)
        fprintf(md, "---:|");
    fprintf(md, "\n");
    int bars = 0;
    for (int v = 0; v < sb_catalogue_count(); v++) {
        const sb_variant *var = sb_catalogue_at(v);
        if (strcmp(var->algo, part[0]->name))
            continue;
        double ms[MAX_PARTS], sum = 0.0;
        int have = 1;
        for (int k = 0; k < nparts && have; k++) {
            stage_view sv;
            int failed;
            view_build(&sv, &rows[k], part[k]->name, part[k]->stages[0]);
            const sb_row *r = view_best_row(&sv, var->name, image, &failed);
            have = r != NULL;
            ms[k] = r ? r->kernel.median : 0.0;
            sum += ms[k];
        }
        if (!have)
            continue;
        char t[32];
        fprintf(fp, "%s", var->name);
        fprintf(md, "| %s |", var->name);
        for (int k = 0; k < nparts; k++) {
            fprintf(fp, " %g", sum > 0 ? 100.0 * ms[k] / sum : 0.0);   /* shares: CPU and GPU bars side by side */
            fprintf(md, " %s |", ms_text(ms[k], t, sizeof t));
        }
        fprintf(fp, "\n");
        fprintf(md, " %s |\n", ms_text(sum, t, sizeof t));
        bars++;
    }
    fclose(fp);
    if (!bars)
        goto out;
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s at %s: where the time goes (share of each step)'\n"
             "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
             "set boxwidth 0.7\nset yrange [0:100]\nset ylabel '%% of the sum of the steps'\n"
             "plot for [i=2:%d] '%s.dat' using i:xtic(1) title columnheader(i)\n",
             REPORT_PLOT_HEAD, name, pipeline->name, report_gp(image), nparts + 1, name);
    if (!(st = report_plot_run(pc, name, script, err)))
        fprintf(md, "\n![where the time goes](plots/%s.png)\n\n", name);
out:
    for (int k = 0; k < nparts; k++)
        sb_rows_free(&rows[k]);
    return st;
}
