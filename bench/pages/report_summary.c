/* report_summary.c - what a reader wants on the first screen: each stage's
 * serial, best CPU and best GPU time with the speed-ups and the distance to
 * the floor; each algorithm's optimisation ladder; and the pipelines as
 * stacked bars (see report_parts.h). */
#include "pages/report_parts.h"
#include "pages/report_limits.h"

#include "io/catalogue.h"

#include "pages/report.h"
#include "measure/evidence.h"

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

static const sb_row *fastest_by(const stage_view *sv, const char *image, int (*pick)(const sb_variant *), int by_frame)
{
    return view_fastest(sv, image, pick, by_frame);
}

static const sb_row *fastest(const stage_view *sv, const char *image, int (*pick)(const sb_variant *))
{
    return view_fastest(sv, image, pick, 0);
}

static int pick_cpu(const sb_variant *v) { return view_is_cpu_backend(v->backend); }
static int pick_gpu(const sb_variant *v) { return !view_is_cpu_backend(v->backend) && !view_is_floor(v); }
static int pick_rung(const sb_variant *v) { return view_is_gpu_rung(v); }

static const char *marks(const sb_row *r) { return sb_row_marks(r); }

/* "openmp@16 1.23 ms" (kernel) or, by_frame, its per-frame time */
static void variant_cell(const sb_row *r, int by_frame, char *out, size_t size)
{
    char t[32];
    if (!r) {
        snprintf(out, size, "-");
        return;
    }
    double ms = by_frame ? r->frame.median : r->kernel.median;
    if (r->threads > 1)
        snprintf(out, size, "%s@%d %s ms%s", r->variant, r->threads, ms_text(ms, t, sizeof t), marks(r));
    else
        snprintf(out, size, "%s %s ms%s", r->variant, ms_text(ms, t, sizeof t), marks(r));
}

/* A kernel speed-up slow/fast, marked (sb_ratio_mark), with the
 * half-width of its rounds' 95 % interval: "12.3x \u00b12 %" */
static void kernel_ratio_cell(const sb_row *slow, const sb_row *fast, char *out, size_t size)
{
    sb_speedup_text(slow ? slow->kernel.median : 0.0, fast ? fast->kernel.median : 0.0,
                        report_speedup_spread(slow, fast), sb_ratio_mark(slow, fast), out, size);
}

/* "openmp@16" */
static void name_cell(const sb_row *r, char *out, size_t size)
{
    if (r && r->threads > 1)
        snprintf(out, size, "%s@%d", r->variant, r->threads);
    else
        snprintf(out, size, "%s", r ? r->variant : "-");
}

enum { TIES_NAMED = 3 };

/* The kernel pick: best, and every other variant at the image (at its best
 * thread count) whose rounds cannot put it behind best, fastest first --
 * "cuda-a", "cuda-a or cuda-b", "a, b or c", "a, b, c or 2 more"; the CPU
 * variants only where all of them were measured (cpu_known). */
static void ties_cell(const stage_view *sv, const char *image, const sb_row *best, int cpu_known, char *out,
                      size_t size)
{
    const sb_row *tie[MAX_VARIANTS];
    int n = 0;
    tie[n++] = best;
    for (int v = 0; v < sv->nvar; v++) {
        int failed, cpu = view_is_cpu_backend(sv->var[v]->backend);
        const sb_row *r = view_best_row(sv, sv->var[v]->name, image, &failed);
        if (r && r != best && !view_is_floor(sv->var[v]) && (cpu_known || !cpu) && report_ties_best(best, r)) {
            int at = n++;
            while (at > 1 && tie[at - 1]->kernel.median > r->kernel.median) {
                tie[at] = tie[at - 1];
                at--;
            }
            tie[at] = r;
        }
    }
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && i < TIES_NAMED && len < size; i++) {
        char name[96];
        name_cell(tie[i], name, sizeof name);
        int last = i == n - 1 || (i == TIES_NAMED - 1 && n == TIES_NAMED);
        int k = snprintf(out + len, size - len, "%s%s", i == 0 ? "" : last ? " or " : ", ", name);
        len += k > 0 ? (size_t)k : 0;
    }
    if (n > TIES_NAMED && len < size)
        snprintf(out + len, size - len, " or %d more", n - TIES_NAMED);
}

void report_summary_header(FILE *fp)
{
    fprintf(fp, "| algorithm | stage | at | best CPU | best GPU | GPU vs best CPU | per frame: best CPU | per frame: "
                "best GPU (+ setup) | GPU vs best CPU | use | x limit | serial `cpu`\xc2\xb9 | GPU vs "
                "serial\xc2\xb9 |\n|---|---|---|---|---|---:|---|---|---:|---|---:|---:|---:|\n");
}

void report_summary_legend(FILE *fp)
{
    fprintf(fp, "\n*Best CPU*, *best GPU*: the fastest agreeing variant by kernel time (`run()` alone, the image "
                "already where it is processed); *per frame*: by the time a program streaming images pays for "
                "each (upload, run, download into existing buffers; a CPU variant's kernel time plus its fetch), "
                "with the GPU's one-time setup after the +. A kernel speed-up carries the half-width of its 95 %% "
                "interval (\xc2\xb1), from the two rows' rounds as `compare` takes them (docs/measuring.md, "
                "\"Verdicts\"); none where a row has one round. *Use*: the fastest when the image is already "
                "where it is processed (kernel time), naming with *or* every variant whose rounds cannot put it "
                "behind the fastest (its interval against it reaches 1), and when frames stream from the host (the "
                "streaming table's fastest where the stage was streamed, else per frame, one frame at a time). *x limit*: the fastest CUDA rung's "
                "kernel time over the stage's limit, and what bounds it (the limits table below says how each is "
                "derived; 1.00x: at the limit for this code on this machine, which is the speed of light only "
                "where the memory floor is the larger). \xe2\x80\xa0 measured once or twice (each run took "
                "at least the time budget); \xe2\x80\xa1 flagged noisy (its flags column: spread, over the host "
                "peak, or a whole cold run below a frame); \xc2\xa7 unstable: its interleaved rounds disagreed by "
                "more than 10 %%, other tenants took its CPUs (steal), its CPUs or (a slow row) the host's memory "
                "ran slower than their best in the run, so another run may differ by more than "
                "10 %% -- and so may a speed-up marked \xc2\xa7.\n\n\xc2\xb9 Host-dependent: the serial reference is "
                "one core of this machine's CPU, and the same serial code runs at different speeds on the hosts "
                "of different GPUs (MACHINES.md), so a speed-up over it says as much about the host as about the "
                "GPU. Compare the GPU with the best CPU of the same host first.\n");
}

void report_summary_rows(FILE *fp, const sb_rows *rows, const sb_algo *algo, double copy_gbps, const profile_set *p,
                         const stream_set *streams)
{
    for (int s = 0; s < algo->stage_count; s++) {
        stage_view sv;
        view_build(&sv, rows, algo->name, algo->stages[s]);
        if (sv.nimg == 0)
            continue;
        const char *image = sv.img[sv.largest];
        const sb_row *serial_row = view_baseline_row(&sv, image, 0);
        double serial = serial_row ? serial_row->kernel.median : 0.0;
        /* the best CPU is not known where a CPU variant was not measured (--host-limit) */
        int cpu_known = view_cpu_complete(&sv, image);
        const sb_row *cpu = cpu_known ? fastest(&sv, image, pick_cpu) : NULL, *gpu = fastest(&sv, image, pick_gpu),
                     *cpu_f = cpu_known ? fastest_by(&sv, image, pick_cpu, 1) : NULL,
                     *gpu_f = fastest_by(&sv, image, pick_gpu, 1);
        char cpu_k[96], gpu_k[96], x_k[48], cpu_fr[96], gpu_fr[128], x_f[32], use[400], fl[32], ser[48], x_s[48],
            t[32], on[300], stream[64];
        variant_cell(cpu, 0, cpu_k, sizeof cpu_k);
        variant_cell(gpu, 0, gpu_k, sizeof gpu_k);
        kernel_ratio_cell(cpu, gpu, x_k, sizeof x_k);
        variant_cell(cpu_f, 1, cpu_fr, sizeof cpu_fr);
        variant_cell(gpu_f, 1, gpu_fr, sizeof gpu_fr);
        if (gpu_f) {
            size_t n = strlen(gpu_fr);
            snprintf(gpu_fr + n, sizeof gpu_fr - n, " + %s", ms_text(gpu_f->setup.median, t, sizeof t));
        }
        sb_speedup_text(cpu_f ? cpu_f->frame.median : 0, gpu_f ? gpu_f->frame.median : 0, 0.0,
                        sb_ratio_mark(cpu_f, gpu_f), x_f, sizeof x_f);
        /* which to use: the image already where it is processed (kernel time, every variant the rounds
         * cannot tell from the fastest), and frames streaming from the host */
        const sb_row *in_place = gpu && (!cpu || gpu->kernel.median < cpu->kernel.median) ? gpu : cpu;
        const sb_row *streaming = gpu_f && (!cpu_f || gpu_f->frame.median < cpu_f->frame.median) ? gpu_f : cpu_f;
        if (in_place)
            ties_cell(&sv, image, in_place, cpu_known, on, sizeof on);
        else
            snprintf(on, sizeof on, "-");
        char first[96];
        name_cell(in_place, first, sizeof first);
        name_cell(streaming, stream, sizeof stream);
        report_stream_use(streams, algo->stages[s], stream, sizeof stream);   /* a stream measured: its fastest */
        if (!strcmp(first, stream) || !strcmp(on, "-"))     /* one pick both ways (and its ties) */
            snprintf(use, sizeof use, "%s", strcmp(on, "-") ? on : stream);
        else
            snprintf(use, sizeof use, "%s %s; **%s** streaming", on,
                     gpu ? "with the image on the GPU" : "one image at a time", stream);
        stage_limit lim;
        stage_limit_compute(fastest(&sv, image, pick_rung), copy_gbps, p, &lim);
        report_limit_cell(&lim, fl, sizeof fl);
        snprintf(ser, sizeof ser, "%s%s", serial > 0 ? ms_text(serial, t, sizeof t) : "-", marks(serial_row));
        kernel_ratio_cell(serial_row, gpu, x_s, sizeof x_s);
        fprintf(fp, "| [%s](%s.md) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", algo->name,
                algo->name, algo->stages[s], report_md(REPORT_TEXT, image), cpu_k, gpu_k, x_k, cpu_fr, gpu_fr, x_f, use, fl, ser,
                x_s);
    }
}

/* ---- the ladder ---- */

sb_status report_ladder(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err)
{
    const char *image = sv->img[sv->largest];
    const sb_row *serial_row = view_baseline_row(sv, image, 0), *best_cpu_row = view_baseline_row(sv, image, 1);
    double serial = serial_row ? serial_row->kernel.median : 0.0;
    double best_cpu = best_cpu_row ? best_cpu_row->kernel.median : 0.0;
    char notes[300], name[200], t[32];
    report_notes_path(algo, notes, sizeof notes);
    char lessons[160] = "";        /* the CUDA rungs' tree is a lessons page only where they ran */
    if (view_rows_have_gpu(sv->rows))
        snprintf(lessons, sizeof lessons, "; the tree is on the [lessons page](lessons-%s.md)", algo);
    fprintf(md, "#### The ladder, stage %s, at %s\n\nThe variants in teaching order (`segbench list`: the files' "
                "order), each at its best thread count: the CPU variants, then the CUDA rungs, each part a ladder "
                "of its own: a CPU step's speed-up is over the step before it, a CUDA rung's over the rung it grows from "
                "(its parent%s).%s%s%s\n\n"
                "| step | variant | kernel ms | vs step before / parent | vs best CPU | vs serial\xc2\xb9 | what it changes | source |\n"
                "|---:|---|---:|---:|---:|---:|---|---|\n",
            sv->stage, image, lessons, notes[0] ? " Why each step helps, and what did not: [NOTES.md](../../" : "",
            notes, notes[0] ? ")." : "");
    snprintf(name, sizeof name, "%s-%s-ladder", algo, sv->stage);
    FILE *fp;
    sb_status st = report_plot_data_open(pc, name, &fp, err);
    if (st)
        return st;
    fprintf(fp, "step variant ms colour\n");
    const sb_row *floor = NULL;
    int plotted = 0, any_gpu = 0;
    double least = 0.0;                       /* the shortest bar: the plot's decade starts below it */
    for (int v = 0; v < sv->nvar; v++) {
        int failed;
        any_gpu |= !view_is_cpu_backend(sv->var[v]->backend) && !view_is_floor(sv->var[v]) &&
                   view_best_row(sv, sv->var[v]->name, image, &failed);
    }
    for (int part = 0; part < 2; part++) {        /* 0: CPU variants, 1: CUDA rungs and libraries */
        int step = 0;
        double prev = 0.0;
        const sb_row *prev_row = NULL;
        for (int v = 0; v < sv->nvar; v++) {
            if (view_is_cpu_backend(sv->var[v]->backend) == part)
                continue;
            int failed;
            const sb_row *r = view_best_row(sv, sv->var[v]->name, image, &failed);
            if (view_is_floor(sv->var[v])) {
                floor = r;
                continue;
            }
            char src[300], vs_prev[48], vs_cpu[48], vs_serial[48], variant[80];
            report_variant_source(sv->var[v], src, sizeof src);
            snprintf(variant, sizeof variant, r && r->threads > 1 ? "%s@%d" : "%s", sv->var[v]->name,
                     r ? r->threads : 1);
            if (!step && part)
                fprintf(md, "| | *CUDA* | | | | | | |\n");
            if (!r) {
                fprintf(md, "| %d | %s | %s | | | | %s | |\n", ++step, variant, failed ? "FAIL" : "-",
                        sv->var[v]->summary);
                continue;
            }
            if (part && sv->var[v]->idea[0]) {        /* a CUDA rung: over its parent, not its neighbour */
                prev_row = sv->var[v]->parent ? view_best_row(sv, sv->var[v]->parent, image, &failed) : NULL;
                prev = prev_row ? prev_row->kernel.median : 0.0;
            }
            kernel_ratio_cell(prev > 0 ? prev_row : NULL, r, vs_prev, sizeof vs_prev);
            kernel_ratio_cell(best_cpu > 0 ? best_cpu_row : NULL, r, vs_cpu, sizeof vs_cpu);
            kernel_ratio_cell(serial > 0 ? serial_row : NULL, r, vs_serial, sizeof vs_serial);
            step++;
            fprintf(md, "| %d | %s | %s%s | %s | %s | %s | %s | %s%s%s%s%s |\n", step, variant,
                    ms_text(r->kernel.median, t, sizeof t), marks(r), step > 1 || prev > 0 ? vs_prev : "", vs_cpu,
                    vs_serial,
                    sv->var[v]->summary, src[0] ? "[" : "", src, src[0] ? "](../../" : "", src, src[0] ? ")" : "");
            if (part == any_gpu) {           /* the plot: the CUDA rungs, or the CPU ones where there are none */
                fprintf(fp, "%d %s %g %ld\n", ++plotted, variant, r->kernel.median,
                        strtol(report_colour(sv->rows->catalogue, sv->var[v]) + 1, NULL, 16));
                if (r->kernel.median > 0 && (least == 0 || r->kernel.median < least))
                    least = r->kernel.median;
            }
            prev = r->kernel.median;
            prev_row = r;
        }
    }
    fclose(fp);
    fprintf(md, "\n\xc2\xb9 Host-dependent: one core of this machine's CPU.\n");
    if (floor)
        fprintf(md, "\nFloor (not a step): `%s`, %s ms, the speed of light for these bytes.\n", floor->variant,
                ms_text(floor->kernel.median, t, sizeof t));
    char floor_line[200] = "", script[2048];
    if (floor && any_gpu)
        snprintf(floor_line, sizeof floor_line, ", %g with lines dt 2 lw 2 lc rgb '%s' title 'floor: %s'",
                 floor->kernel.median, REPORT_FLOOR_COLOUR, report_gp(REPORT_TEXT, floor->variant));
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s %s at %s: the %s ladder, kernel time per step (log scale)'\n"
             "set style fill solid 0.8 border -1\nset logscale y\nset key top right\n"
             "set ylabel 'kernel time, median (ms)'\nset xtics rotate by -30\n%s"
             "plot '%s.dat' using 1:3:($1-0.35):($1+0.35):(base):3:4:xtic(2) with boxxyerror lc rgb variable "
             "notitle%s\n",
             REPORT_PLOT_HEAD, name, algo, sv->stage, report_gp(REPORT_TEXT, image), any_gpu ? "CUDA" : "CPU",
             report_log_base(least, REPORT_TEXT), name, floor_line);
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
    fprintf(fp, "- [%s](%s.md)", algo->name, algo->name);
    if (view_rows_have_gpu(rows))             /* a lessons page exists only where CUDA rungs ran */
        fprintf(fp, " ([lessons](lessons-%s.md))", algo->name);
    fprintf(fp, ", %s at %s:", algo->stages[0], report_md(REPORT_TEXT, image));
    for (int part = 0; part < 2; part++) {
        int n = 0;
        for (int v = 0; v < sv.nvar; v++) {
            int failed;
            const sb_row *r = view_best_row(&sv, sv.var[v]->name, image, &failed);
            if (!r || view_is_floor(sv.var[v]) || view_is_cpu_backend(sv.var[v]->backend) == part)
                continue;
            char t[32];
            fprintf(fp, "%s%s %s%s", n++ ? " → " : part ? "; CUDA: " : " CPU: ", sv.var[v]->name,
                    ms_text(r->kernel.median, t, sizeof t), marks(r));
        }
    }
    fprintf(fp, " ms\n");
}

/* ---- pipelines ---- */

enum { PIPELINE_PARTS_MAX = 8 };

/* The largest synthetic image every part measured at its first stage
 * (one of sv0's names, sv0 the first part's view), or NULL. */
static const char *pipeline_image(stage_view *sv0, sb_rows *rows, const sb_algo *const *part, int nparts)
{
    view_build(sv0, &rows[0], part[0]->name, part[0]->stages[0]);
    const char *image = NULL;
    double px = 0.0;
    for (int i = 0; i < sv0->nimg; i++) {
        int everywhere = view_is_synthetic(sv0->img[i]);
        for (int k = 1; k < nparts && everywhere; k++) {
            everywhere = 0;
            for (int r = 0; r < rows[k].count && !everywhere; r++)
                everywhere = !strcmp(rows[k].row[r].image, sv0->img[i]) && !strcmp(rows[k].row[r].stage, part[k]->stages[0]);
        }
        if (everywhere && sv0->img_px[i] > px) {
            px = sv0->img_px[i];
            image = sv0->img[i];
        }
    }
    return image;
}

/* Each part's kernel time for a variant of the pipeline at the image: its
 * own row, or where the part has no variant of that name its fastest of
 * the same side (CPU or GPU), marked; 0 when a part has neither or none
 * is the variant's own. */
static int pipeline_times(const sb_variant *var, sb_rows *rows, const sb_algo *const *part, int nparts,
                          const char *image, double *ms, int *mark, double *sum)
{
    int cpu_side = view_is_cpu_backend(var->backend), named = 0;
    *sum = 0.0;
    for (int k = 0; k < nparts; k++) {
        stage_view sv;
        int failed;
        view_build(&sv, &rows[k], part[k]->name, part[k]->stages[0]);
        const sb_row *r = view_best_row(&sv, var->name, image, &failed);
        mark[k] = !r;
        if (!r)
            r = fastest(&sv, image, cpu_side ? pick_cpu : pick_gpu);
        if (!r)
            return 0;
        named += !mark[k];
        ms[k] = r->kernel.median;
        *sum += ms[k];
    }
    return named > 0;
}

sb_status report_pipeline_bars(plot_ctx *pc, const char *results_dir, const sb_algo *pipeline, FILE *md,
                               sb_error *err)
{
    const sb_algo *part[PIPELINE_PARTS_MAX];
    sb_rows rows[PIPELINE_PARTS_MAX];
    int nparts = 0;
    size_t plen = strlen(pipeline->name);
    for (int a = 0; a < sb_algo_count() && nparts < PIPELINE_PARTS_MAX; a++) {
        const sb_algo *algo = sb_algo_at(a);
        char path[1400];
        snprintf(path, sizeof path, "%s/%s.csv", results_dir, algo->name);
        sb_error ignored;
        if (strncmp(algo->name, pipeline->name, plen) || algo->name[plen] != '-' ||
            sb_rows_read_ladders(path, &rows[nparts], NULL, &ignored) != SB_OK)
            continue;
        part[nparts++] = algo;
    }
    sb_status st = SB_OK;
    if (nparts < 2)
        goto out;
    stage_view sv0;               /* the image's name is one of its */
    const char *image = pipeline_image(&sv0, rows, part, nparts);
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
    /* a row per variant of the pipeline itself; a step without a variant of
     * that name takes its fastest of the same side (CPU or GPU), marked *:
     * the GPU rungs that change only the cut run the other steps as the
     * rung they grew from does */
    int bars = 0, substituted = 0;
    for (int v = 0; v < sb_catalogue_count(rows[0].catalogue); v++) {
        const sb_variant *var = sb_catalogue_at(rows[0].catalogue, v);
        if (strcmp(var->algo, pipeline->name) || view_is_floor(var))
            continue;
        double ms[PIPELINE_PARTS_MAX], sum;
        int mark[PIPELINE_PARTS_MAX];
        if (!pipeline_times(var, rows, part, nparts, image, ms, mark, &sum))
            continue;
        char t[32];
        fprintf(fp, "%s", var->name);
        fprintf(md, "| %s |", var->name);
        for (int k = 0; k < nparts; k++) {
            fprintf(fp, " %g", sum > 0 ? 100.0 * ms[k] / sum : 0.0);   /* shares: CPU and GPU bars side by side */
            fprintf(md, " %s%s |", ms_text(ms[k], t, sizeof t), mark[k] ? "*" : "");
            substituted |= mark[k];
        }
        fprintf(fp, "\n");
        fprintf(md, " %s |\n", ms_text(sum, t, sizeof t));
        bars++;
    }
    if (substituted)
        fprintf(md, "\n\\* the step has no variant of that name: its fastest variant on the same side (CPU or "
                    "GPU) stands in.\n");
    fclose(fp);
    if (!bars)
        goto out;
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s at %s: where the time goes (share of each step)'\n"
             "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
             "set boxwidth 0.7\nset yrange [0:100]\nset ylabel '%% of the sum of the steps'\n"
             "plot for [i=2:%d] '%s.dat' using i:xtic(1) title columnheader(i)\n",
             REPORT_PLOT_HEAD, name, pipeline->name, report_gp(REPORT_TEXT, image), nparts + 1, name);
    if (!(st = report_plot_run(pc, name, script, err)))
        fprintf(md, "\n![where the time goes](plots/%s.png)\n\n", name);
out:
    for (int k = 0; k < nparts; k++)
        sb_rows_free(&rows[k]);
    return st;
}
