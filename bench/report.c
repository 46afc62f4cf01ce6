/* report.c - `segbench report`: results/<machine>/ -> report/<machine>/.
 *
 * REPORT.md gets, per algorithm and stage: the table at the largest image
 * (kernel and end-to-end medians with spread, GB/s, fraction of the
 * measured peak, agreement), speedup tables over image sizes against the
 * serial reference and against the best CPU variant (geometric means over
 * the images of each size), thread scaling, and the gallery.  Plots are
 * generated gnuplot scripts over generated data files, so a reader can
 * rerun them; without gnuplot the report says which plots are missing.
 */
#include "commands.h"

#include "options.h"
#include "quality.h"

#include "args.h"
#include "env.h"
#include "result_set.h"

#include "segbench/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_GROUPS = 16, MAX_VARIANTS = 32, MAX_IMAGES = 64 };

/* ---- what one stage's rows contain ---- */

typedef struct stage_view {
    const sb_rows *rows;
    const char *stage;
    int nvar;
    const sb_variant *var[MAX_VARIANTS];  /* registry order */
    int nimg;
    char img[MAX_IMAGES][128];
    double img_px[MAX_IMAGES];
    char img_gname[MAX_IMAGES][32];       /* "WxH" for synthetic images, "photos" */
    int img_group[MAX_IMAGES];
    int ngroup;
    char group[MAX_GROUPS][32];
    double group_px[MAX_GROUPS];
    int largest;                          /* image index */
    int sweep;                            /* image with the most thread counts (where bench swept) */
} stage_view;

static int is_synthetic(const char *image) { return strncmp(image, "synth-", 6) == 0; }

static int view_group(const stage_view *sv, const char *name)
{
    for (int k = 0; k < sv->ngroup; k++)
        if (strcmp(sv->group[k], name) == 0)
            return k;
    return -1;
}

static int view_image(stage_view *sv, const sb_row *r)
{
    for (int i = 0; i < sv->nimg; i++)
        if (strcmp(sv->img[i], r->image) == 0)
            return i;
    if (sv->nimg == MAX_IMAGES)
        return -1;
    int i = sv->nimg++;
    snprintf(sv->img[i], sizeof sv->img[i], "%s", r->image);
    sv->img_px[i] = (double)r->width * r->height;
    char *g = sv->img_gname[i];
    if (is_synthetic(r->image))
        snprintf(g, sizeof sv->img_gname[i], "%dx%d", r->width, r->height);
    else
        snprintf(g, sizeof sv->img_gname[i], "photos");
    if (view_group(sv, g) < 0 && sv->ngroup < MAX_GROUPS) {
        memcpy(sv->group[sv->ngroup], g, sizeof sv->group[0]);   /* both 32 bytes */
        sv->group_px[sv->ngroup++] = is_synthetic(r->image) ? sv->img_px[i] : 1e18;   /* photos last */
    }
    return i;
}

/* How many distinct thread counts the stage's threaded rows have at image i. */
static int thread_counts_at(const stage_view *sv, int i)
{
    int counts[64], n = 0;
    for (int k = 0; k < sv->rows->count; k++) {
        const sb_row *r = &sv->rows->row[k];
        const sb_variant *v = sb_variant_find(r->algo, r->variant);
        if (strcmp(r->stage, sv->stage) != 0 || strcmp(r->image, sv->img[i]) != 0 || !v ||
            !(v->flags & SB_THREADED))
            continue;
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= counts[j] == r->threads;
        if (!seen && n < 64)
            counts[n++] = r->threads;
    }
    return n;
}

static void view_build(stage_view *sv, const sb_rows *rows, const char *algo, const char *stage)
{
    memset(sv, 0, sizeof *sv);
    sv->rows = rows;
    sv->stage = stage;
    for (int v = 0; v < sb_variant_count(); v++) {
        const sb_variant *var = sb_variant_at(v);
        if (strcmp(var->algo, algo) != 0)
            continue;
        for (int i = 0; i < rows->count; i++)
            if (strcmp(rows->row[i].stage, stage) == 0 && strcmp(rows->row[i].variant, var->name) == 0) {
                if (sv->nvar < MAX_VARIANTS)
                    sv->var[sv->nvar++] = var;
                break;
            }
    }
    for (int i = 0; i < rows->count; i++)
        if (strcmp(rows->row[i].stage, stage) == 0)
            view_image(sv, &rows->row[i]);
    /* groups in size order (insertion sort keeps it short) */
    for (int a = 1; a < sv->ngroup; a++)
        for (int b = a; b > 0 && sv->group_px[b] < sv->group_px[b - 1]; b--) {
            char tmp[32];
            double px = sv->group_px[b];
            memcpy(tmp, sv->group[b], sizeof tmp);
            memcpy(sv->group[b], sv->group[b - 1], sizeof tmp);
            memcpy(sv->group[b - 1], tmp, sizeof tmp);
            sv->group_px[b] = sv->group_px[b - 1];
            sv->group_px[b - 1] = px;
        }
    for (int i = 0; i < sv->nimg; i++) {
        int k = view_group(sv, sv->img_gname[i]);
        sv->img_group[i] = k < 0 ? 0 : k;
    }
    sv->largest = 0;
    for (int i = 1; i < sv->nimg; i++) {
        int better_kind = is_synthetic(sv->img[i]) > is_synthetic(sv->img[sv->largest]);
        int same_kind = is_synthetic(sv->img[i]) == is_synthetic(sv->img[sv->largest]);
        if (better_kind || (same_kind && sv->img_px[i] > sv->img_px[sv->largest]))
            sv->largest = i;
    }
    sv->sweep = sv->largest;
    int most = thread_counts_at(sv, sv->largest);
    for (int i = 0; i < sv->nimg; i++)
        if (thread_counts_at(sv, i) > most) {
            most = thread_counts_at(sv, i);
            sv->sweep = i;
        }
}

/* Does row r belong to this stage, variant and image (NULL: any)? */
static int row_is(const sb_row *r, const char *stage, const char *variant, const char *image)
{
    return !strcmp(r->stage, stage) && (!variant || !strcmp(r->variant, variant)) &&
           (!image || !strcmp(r->image, image));
}

/* The first row of (variant, image) at `threads` (0: any count), or NULL. */
static const sb_row *find_row(const stage_view *sv, const char *variant, const char *image, int threads)
{
    for (int i = 0; i < sv->rows->count; i++) {
        const sb_row *r = &sv->rows->row[i];
        if (row_is(r, sv->stage, variant, image) && (!threads || r->threads == threads))
            return r;
    }
    return NULL;
}

/* The row of (variant, image) with the smallest kernel median among its
 * thread counts; *failed when every such row broke its contract. */
static const sb_row *best_row(const stage_view *sv, const char *variant, const char *image, int *failed)
{
    const sb_row *best = NULL;
    int any = 0;
    *failed = 0;
    for (int i = 0; i < sv->rows->count; i++) {
        const sb_row *r = &sv->rows->row[i];
        if (!row_is(r, sv->stage, variant, image))
            continue;
        any = 1;
        if (strcmp(r->agreement, "FAIL") == 0)
            continue;
        if (!best || r->kernel.median < best->kernel.median)
            best = r;
    }
    *failed = any && !best;
    return best;
}

static int is_cpu_backend(const char *backend)
{
    return strcmp(backend, "cpu") == 0 || strcmp(backend, "pthread") == 0 || strcmp(backend, "openmp") == 0;
}

/* Kernel time of the serial reference, or of the best CPU variant. */
static double baseline_ms(const stage_view *sv, const char *image, int best_cpu)
{
    double t = 0.0;
    for (int v = 0; v < sv->nvar; v++) {
        const sb_variant *var = sv->var[v];
        if (best_cpu ? !is_cpu_backend(var->backend) : strcmp(var->backend, "cpu") != 0)
            continue;
        int failed;
        const sb_row *r = best_row(sv, var->name, image, &failed);
        if (r && (t == 0.0 || r->kernel.median < t))
            t = r->kernel.median;
        if (!best_cpu)
            break;
    }
    return t;
}

/* Geometric mean speedup of a variant over the images of one group. */
static double group_speedup(const stage_view *sv, const char *variant, int group, int best_cpu, int *failed)
{
    double log_sum = 0.0;
    int n = 0;
    *failed = 0;
    for (int i = 0; i < sv->nimg; i++) {
        if (sv->img_group[i] != group)
            continue;
        int f;
        const sb_row *r = best_row(sv, variant, sv->img[i], &f);
        double base = baseline_ms(sv, sv->img[i], best_cpu);
        if (f)
            *failed = 1;
        if (r && base > 0 && r->kernel.median > 0) {
            log_sum += log(base / r->kernel.median);
            n++;
        }
    }
    return n ? exp(log_sum / n) : 0.0;
}

static void speedup_table(FILE *fp, const stage_view *sv, int best_cpu)
{
    fprintf(fp, "| variant | backend |");
    for (int g = 0; g < sv->ngroup; g++)
        fprintf(fp, " %s |", sv->group[g]);
    fprintf(fp, "\n|---|---|");
    for (int g = 0; g < sv->ngroup; g++)
        fprintf(fp, "---:|");
    fprintf(fp, "\n");
    for (int v = 0; v < sv->nvar; v++) {
        fprintf(fp, "| %s | %s |", sv->var[v]->name, sv->var[v]->backend);
        for (int g = 0; g < sv->ngroup; g++) {
            int failed;
            double s = group_speedup(sv, sv->var[v]->name, g, best_cpu, &failed);
            if (failed)
                fprintf(fp, " FAIL |");
            else if (s > 0)
                fprintf(fp, " %.*fx |", s < 10 ? 2 : s < 100 ? 1 : 0, s);
            else
                fprintf(fp, " - |");
        }
        fprintf(fp, "\n");
    }
}

static void largest_table(FILE *fp, const stage_view *sv)
{
    const char *image = sv->img[sv->largest];
    double ref = baseline_ms(sv, image, 0);
    fprintf(fp, "| variant | backend | threads | kernel ms (median) | p25-p75 | n | e2e ms (median) | GB/s | %% of peak | "
                "vs cpu | agreement |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (int v = 0; v < sv->nvar; v++) {
        int failed;
        const sb_row *r = best_row(sv, sv->var[v]->name, image, &failed);
        if (!r && failed)
            r = find_row(sv, sv->var[v]->name, image, 0);   /* show the failed row itself */
        if (!r)
            continue;
        fprintf(fp, "| %s | %s | %d | %.4f | %.4f-%.4f | %d | %.3f | %.1f | %.1f%% | %.2fx | %s |\n", r->variant,
                r->backend, r->threads, r->kernel.median, r->kernel.p25, r->kernel.p75, r->kernel.n, r->e2e.median,
                r->gbps, 100.0 * r->peak_fraction, ref > 0 && r->kernel.median > 0 ? ref / r->kernel.median : 0.0,
                r->agreement);
    }
}

/* Kernel time and GB/s of each threaded variant at each thread count, at
 * the largest image. */
static void thread_table(FILE *fp, const stage_view *sv)
{
    const char *image = sv->img[sv->sweep];
    if (thread_counts_at(sv, sv->sweep) < 2)
        return;                        /* no sweep at this stage */
    int counts[64], ncounts = 0;
    for (int i = 0; i < sv->rows->count; i++) {
        const sb_row *r = &sv->rows->row[i];
        int seen = 0;
        for (int k = 0; k < ncounts; k++)
            seen |= counts[k] == r->threads;
        if (row_is(r, sv->stage, NULL, image) && r->threads > 0 && !seen && ncounts < 64)
            counts[ncounts++] = r->threads;
    }
    for (int a = 1; a < ncounts; a++)          /* ascending */
        for (int b = a; b > 0 && counts[b] < counts[b - 1]; b--) {
            int t = counts[b];
            counts[b] = counts[b - 1];
            counts[b - 1] = t;
        }
    fprintf(fp, "\nThread scaling at %s (kernel ms, GB/s):\n\n| variant |", image);
    for (int k = 0; k < ncounts; k++)
        fprintf(fp, " %d |", counts[k]);
    fprintf(fp, "\n|---|");
    for (int k = 0; k < ncounts; k++)
        fprintf(fp, "---:|");
    fprintf(fp, "\n");
    for (int v = 0; v < sv->nvar; v++) {
        if (!(sv->var[v]->flags & SB_THREADED))
            continue;
        fprintf(fp, "| %s |", sv->var[v]->name);
        for (int k = 0; k < ncounts; k++) {
            const sb_row *cell = find_row(sv, sv->var[v]->name, image, counts[k]);
            if (cell)
                fprintf(fp, " %.3f ms, %.1f GB/s |", cell->kernel.median, cell->gbps);
            else
                fprintf(fp, " - |");
        }
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n");
}

void sb_report_speedup_tables(const sb_rows *rows, const sb_algo *algo, FILE *fp)
{
    for (int s = 0; s < algo->stage_count; s++) {
        stage_view sv;
        view_build(&sv, rows, algo->name, algo->stages[s]);
        if (sv.nimg == 0)
            continue;
        fprintf(fp, "%s, stage %s, at %s (%.2f Mpx), best thread count per variant:\n\n", algo->name,
                algo->stages[s], sv.img[sv.largest], sv.img_px[sv.largest] / 1e6);
        largest_table(fp, &sv);
        fprintf(fp, "\nSpeedup of kernel time over the serial cpu reference (geometric mean over images of each size):\n\n");
        speedup_table(fp, &sv, 0);
        fprintf(fp, "\n");
    }
}

/* ---- plots ---- */

typedef struct plot_ctx {
    const char *dir;          /* report/<machine>/plots */
    int gnuplot;              /* gnuplot found */
    int made, missing;
    char missing_list[2048];
} plot_ctx;

static sb_status plot_run(plot_ctx *pc, const char *name, const char *script, sb_error *err)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s.gp", pc->dir, name);
    sb_status st = sb_atomic_write_text(path, script, err);
    if (st)
        return st;
    if (pc->gnuplot) {
        char cmd[3000];
        snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot '%s.gp' 2>'%s.log'", pc->dir, name, name);
        if (system(cmd) == 0) {
            pc->made++;
            char log[1400];
            snprintf(log, sizeof log, "%s/%s.log", pc->dir, name);
            remove(log);
            return SB_OK;
        }
    }
    pc->missing++;
    size_t len = strlen(pc->missing_list);
    snprintf(pc->missing_list + len, sizeof pc->missing_list - len, "%s%s.png", len ? ", " : "", name);
    return SB_OK;
}

/* plots/<name>.dat, for writing */
static sb_status plot_data_open(const plot_ctx *pc, const char *name, FILE **fp, sb_error *err)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s.dat", pc->dir, name);
    if (!(*fp = fopen(path, "w")))
        return sb_fail(err, SB_ERR_IO, "%s: cannot write (%s)", path, strerror(errno));
    return SB_OK;
}

static const char *PLOT_HEAD = "set terminal pngcairo size 960,540 noenhanced font ',10'\n"
                               "set key outside right top\nset grid ytics\n";

static sb_status plots_for_stage(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err)
{
    char name[200], script[8192];
    FILE *fp;
    sb_status st;

    /* 1. speedup bars over the serial reference, by image size */
    snprintf(name, sizeof name, "%s-%s-speedup", algo, sv->stage);
    if ((st = plot_data_open(pc, name, &fp, err)))
        return st;
    fprintf(fp, "size");
    for (int v = 0; v < sv->nvar; v++)
        fprintf(fp, " %s", sv->var[v]->name);
    fprintf(fp, "\n");
    for (int g = 0; g < sv->ngroup; g++) {
        fprintf(fp, "%s", sv->group[g]);
        for (int v = 0; v < sv->nvar; v++) {
            int failed;
            double s = group_speedup(sv, sv->var[v]->name, g, 0, &failed);
            fprintf(fp, " %g", s > 0 && !failed ? s : NAN);
        }
        fprintf(fp, "\n");
    }
    fclose(fp);
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s %s: speedup of kernel time over serial cpu (log scale)'\n"
             "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
             "set logscale y\nset ylabel 'speedup (x)'\nset xlabel 'image size (photos: geometric mean)'\n"
             "plot for [i=2:%d] '%s.dat' using i:xtic(1) title columnheader(i)\n",
             PLOT_HEAD, name, algo, sv->stage, sv->nvar + 1, name);
    if ((st = plot_run(pc, name, script, err)))
        return st;
    fprintf(md, "![speedup](plots/%s.png)\n\n", name);

    /* 2. time against megapixels, synthetic images, log-log */
    snprintf(name, sizeof name, "%s-%s-time", algo, sv->stage);
    if ((st = plot_data_open(pc, name, &fp, err)))
        return st;
    char titles[2048] = "";
    for (int v = 0; v < sv->nvar; v++) {
        fprintf(fp, "# %s\n", sv->var[v]->name);
        for (int g = 0; g < sv->ngroup; g++)
            for (int i = 0; i < sv->nimg; i++) {
                int failed;
                const sb_row *r;
                if (sv->img_group[i] != g || !is_synthetic(sv->img[i]) ||
                    !(r = best_row(sv, sv->var[v]->name, sv->img[i], &failed)))
                    continue;
                fprintf(fp, "%g %g\n", sv->img_px[i] / 1e6, r->kernel.median);
            }
        fprintf(fp, "\n\n");
        size_t len = strlen(titles);
        snprintf(titles + len, sizeof titles - len, "%s%s", v ? " " : "", sv->var[v]->name);
    }
    fclose(fp);
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s %s: kernel time against image size (synthetic set)'\n"
             "set logscale xy\nset xlabel 'megapixels'\nset ylabel 'kernel time, median (ms)'\n"
             "names = '%s'\nplot for [i=0:%d] '%s.dat' index i using 1:2 with linespoints title word(names, i+1)\n",
             PLOT_HEAD, name, algo, sv->stage, titles, sv->nvar - 1, name);
    if ((st = plot_run(pc, name, script, err)))
        return st;
    fprintf(md, "![time against size](plots/%s.png)\n\n", name);

    /* 3. thread scaling at the image where the threads were swept (none: no plot) */
    if (thread_counts_at(sv, sv->sweep) >= 2) {
        snprintf(name, sizeof name, "%s-%s-threads", algo, sv->stage);
        if ((st = plot_data_open(pc, name, &fp, err)))
            return st;
        titles[0] = '\0';
        int nthreaded = 0, max_threads = 1;
        for (int v = 0; v < sv->nvar; v++) {
            if (!(sv->var[v]->flags & SB_THREADED))
                continue;
            double t1 = 0.0;
            fprintf(fp, "# %s\n", sv->var[v]->name);
            for (int i = 0; i < sv->rows->count; i++) {
                const sb_row *r = &sv->rows->row[i];
                if (!row_is(r, sv->stage, sv->var[v]->name, sv->img[sv->sweep]))
                    continue;
                if (r->threads == 1)
                    t1 = r->kernel.median;
                if (t1 > 0 && r->kernel.median > 0)
                    fprintf(fp, "%d %g\n", r->threads, t1 / r->kernel.median);
                if (r->threads > max_threads)
                    max_threads = r->threads;
            }
            fprintf(fp, "\n\n");
            size_t len = strlen(titles);
            snprintf(titles + len, sizeof titles - len, "%s%s", nthreaded ? " " : "", sv->var[v]->name);
            nthreaded++;
        }
        fclose(fp);
        if (nthreaded) {
            snprintf(script, sizeof script,
                     "%sset output '%s.png'\nset title '%s %s: thread scaling at %s'\nset logscale x 2\n"
                     "set xrange [1:%d]\nset yrange [0:*]\nset xlabel 'threads'\nset ylabel 'speedup over 1 thread'\n"
                     "names = '%s'\nplot x title 'ideal' with lines dashtype 2, "
                     "for [i=0:%d] '%s.dat' index i using 1:2 with linespoints title word(names, i+1)\n",
                     PLOT_HEAD, name, algo, sv->stage, sv->img[sv->sweep], max_threads, titles, nthreaded - 1,
                     name);
            if ((st = plot_run(pc, name, script, err)))
                return st;
            fprintf(md, "![thread scaling](plots/%s.png)\n\n", name);
        }
    }

    /* 4. fraction of the measured peak bandwidth at the largest image */
    snprintf(name, sizeof name, "%s-%s-bandwidth", algo, sv->stage);
    if ((st = plot_data_open(pc, name, &fp, err)))
        return st;
    fprintf(fp, "variant percent\n");
    for (int v = 0; v < sv->nvar; v++) {
        int failed;
        const sb_row *r = best_row(sv, sv->var[v]->name, sv->img[sv->largest], &failed);
        if (r)
            fprintf(fp, "%s %g\n", r->variant, 100.0 * r->peak_fraction);
    }
    fclose(fp);
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s %s: %% of measured peak bandwidth at %s'\n"
             "set style data histograms\nset style fill solid 0.8 border -1\nset yrange [0:*]\nset key off\n"
             "set ylabel '%% of peak'\nset xtics rotate by -30\nplot '%s.dat' using 2:xtic(1)\n",
             PLOT_HEAD, name, algo, sv->stage, sv->img[sv->largest], name);
    if ((st = plot_run(pc, name, script, err)))
        return st;
    fprintf(md, "![bandwidth](plots/%s.png)\n\nPeak: the device-to-device copy for GPU rows, host memcpy at "
                "the same thread count for CPU rows.\n\n", name);
    return SB_OK;
}

/* ---- env.json, read back (flat keys, written by env.c) ---- */

/* ---- a parameter sweep across stages (algo->sweep) ---- */

/* The best kernel median of a variant on an image at one stage (any thread count). */
static double sweep_ms(const sb_rows *rows, const char *stage, const char *variant, const char *image)
{
    double best = 0.0;
    for (int i = 0; i < rows->count; i++) {
        const sb_row *r = &rows->row[i];
        if (!strcmp(r->stage, stage) && !strcmp(r->variant, variant) && !strcmp(r->image, image) &&
            strcmp(r->agreement, "FAIL") && (best == 0.0 || r->kernel.median < best))
            best = r->kernel.median;
    }
    return best;
}

static sb_status sweep_report(plot_ctx *pc, const sb_rows *rows, const sb_algo *algo, FILE *md, sb_error *err)
{
    static const char *const images[] = { "synth-640x480", "synth-1920x1080" };
    int order[16], n = algo->stage_count < 16 ? algo->stage_count : 16;
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++)            /* by the swept value, ascending */
        for (int j = i; j > 0 && atoi(algo->stages[order[j]] + 1) < atoi(algo->stages[order[j - 1]] + 1); j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    sb_status st = SB_OK;
    for (int im = 0; im < 2 && !st; im++) {
        const sb_variant *var[MAX_VARIANTS];
        int nvar = 0;
        for (int k = 0; k < sb_variant_count() && nvar < MAX_VARIANTS; k++) {
            const sb_variant *v = sb_variant_at(k);
            if (!strcmp(v->algo, algo->name) && sweep_ms(rows, algo->stages[order[n - 1]], v->name, images[im]) > 0)
                var[nvar++] = v;
        }
        if (!nvar)
            continue;
        fprintf(md, "### %s: kernel time (ms) against the %s, %s\n\n| variant |", algo->name, algo->sweep,
                images[im]);
        for (int i = 0; i < n; i++)
            fprintf(md, " %s %s |", algo->sweep, algo->stages[order[i]] + 1);
        fprintf(md, "\n|---|");
        for (int i = 0; i < n; i++)
            fprintf(md, "---:|");
        fprintf(md, "\n");
        char name[256], titles[2048] = "", script[4096];
        snprintf(name, sizeof name, "%s-sweep-%s", algo->name, images[im]);
        FILE *fp;
        if ((st = plot_data_open(pc, name, &fp, err)))
            return st;
        for (int v = 0; v < nvar; v++) {
            fprintf(md, "| %s |", var[v]->name);
            fprintf(fp, "# %s\n", var[v]->name);
            for (int i = 0; i < n; i++) {
                double ms = sweep_ms(rows, algo->stages[order[i]], var[v]->name, images[im]);
                fprintf(md, ms > 0 ? " %.4g |" : " - |", ms);
                if (ms > 0)
                    fprintf(fp, "%d %g\n", atoi(algo->stages[order[i]] + 1), ms);
            }
            fprintf(md, "\n");
            fprintf(fp, "\n\n");
            size_t len = strlen(titles);
            snprintf(titles + len, sizeof titles - len, "%s%s", v ? " " : "", var[v]->name);
        }
        fclose(fp);
        snprintf(script, sizeof script,
                 "%sset output '%s.png'\nset title '%s on %s: kernel time against the %s'\n"
                 "set logscale xy 2\nset xlabel '%s'\nset ylabel 'kernel time, median (ms)'\n"
                 "names = '%s'\nplot for [i=0:%d] '%s.dat' index i using 1:2 with linespoints title word(names, i+1)\n",
                 PLOT_HEAD, name, algo->name, images[im], algo->sweep, algo->sweep, titles, nvar - 1, name);
        if ((st = plot_run(pc, name, script, err)))
            return st;
        fprintf(md, "\n![%s sweep](plots/%s.png)\n\n", algo->sweep, name);
    }
    return st;
}

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

static sb_status report_gallery(const char *results_dir, const char *out_dir, FILE *md, sb_error *err)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/gallery/index.tsv", results_dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return SB_OK;
    char gdir[1400];
    snprintf(gdir, sizeof gdir, "%s/gallery", out_dir);
    sb_status st = sb_mkdirs(gdir, err);
    char line[1024], last[300] = "";
    int header = 1;
    fprintf(md, "## Gallery\n\nThe serial reference's output (every variant's is identical where it agrees).\n\n");
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

static sb_status report_one(const char *results_dir, const char *out_dir, int gnuplot, int machines, sb_error *err)
{
    char path[1400], plots[1400];
    snprintf(plots, sizeof plots, "%s/plots", out_dir);
    sb_status st = sb_mkdirs(plots, err);
    if (st)
        return st;
    snprintf(path, sizeof path, "%s/env.json", results_dir);
    char *env = sb_read_text(path);

    char *md_text = NULL;
    size_t md_len = 0;
    FILE *md = open_memstream(&md_text, &md_len);
    if (!md) {
        free(env);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    char id[128], gpu[256], cpu[256], date[64], commit[64], dirty[16], copy[32], set[64], cores[16], host[256];
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

    fprintf(md, "# segbench report: %s\n\n", id);
    fprintf(md, "Generated by `segbench report` from `%s/`; do not edit by hand (`make report` rewrites it).\n\n",
            results_dir);
    if (machines > 1)
        fprintf(md, "This machine beside the other %d with results: [MACHINES.md](../MACHINES.md).\n\n", machines - 1);
    fprintf(md, "| | |\n|---|---|\n| GPU | %s |\n| device copy bandwidth (measured, read + write) | %s GB/s |\n"
                "| CPU | %s (%s logical cores) |\n| host memcpy bandwidth by threads (best of 5, GB/s) | %s |\n"
                "| dataset | %s |\n| commit | %s%s |\n| date | %s |\n\n",
            gpu, copy, cpu, cores, host, set, commit, strcmp(dirty, "true") == 0 ? " (tree had local changes)" : "",
            date);
    fprintf(md, "How to read this: kernel time is `run()` alone (CUDA events around the kernels, the L2 cache "
                "flushed before each run; the monotonic clock for CPU variants); end-to-end (e2e) adds `prepare` "
                "(device allocation and upload from pinned memory) and `fetch` (download). Times are medians of "
                "repeated runs after warm-up, with the 25th-75th percentile range and the sample count n. GB/s "
                "is the stage's byte floor (each input read once, each output written once) over the kernel "
                "median; %% of peak divides it by the measured copy bandwidth of the same processor. Every row "
                "was checked against the serial reference on that image before it was timed and again after.\n\n");

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

    plot_ctx pc = { plots, gnuplot, 0, 0, "" };
    for (int a = 0; a < sb_algo_count() && !st; a++) {
        const sb_algo *algo = sb_algo_at(a);
        snprintf(path, sizeof path, "%s/%s.csv", results_dir, algo->name);
        struct stat sbuf;
        if (stat(path, &sbuf) != 0)
            continue;
        sb_rows rows;
        if ((st = sb_rows_read_csv(path, &rows, err)))
            break;
        int fails = 0;
        for (int i = 0; i < rows.count; i++)
            fails += strcmp(rows.row[i].agreement, "FAIL") == 0;
        char provenance[600];
        sb_result_set_provenance(path, provenance, sizeof provenance);
        int few = 0;
        for (int i = 0; i < rows.count; i++)
            few += rows.row[i].kernel.n < 3;
        fprintf(md, "## %s\n\n%s.\n\nMeasured at %s. Agreement contract: %s. **%d of %d rows agree%s.**",
                algo->name, algo->summary, provenance, algo->contract, rows.count - fails, rows.count,
                fails ? "; the others are marked FAIL" : "");
        if (few)
            fprintf(md, " %d rows took at least the time budget per run and were measured once or twice (n < 3: "
                        "their p25-p75 range is not a spread).", few);
        fprintf(md, "\n\n");
        if (fails) {
            fprintf(md, "| stage | variant | threads | image | what failed |\n|---|---|---:|---|---|\n");
            for (int i = 0; i < rows.count; i++)
                if (strcmp(rows.row[i].agreement, "FAIL") == 0)
                    fprintf(md, "| %s | %s | %d | %s | %s |\n", rows.row[i].stage, rows.row[i].variant,
                            rows.row[i].threads, rows.row[i].image, rows.row[i].metric);
            fprintf(md, "\n");
        }
        for (int s = 0; s < algo->stage_count && !st; s++) {
            stage_view sv;
            view_build(&sv, &rows, algo->name, algo->stages[s]);
            if (sv.nimg == 0)
                continue;
            fprintf(md, "### %s, stage %s\n\nAt the largest image, %s (%.2f Mpx); threaded variants at their "
                        "fastest thread count:\n\n",
                    algo->name, algo->stages[s], sv.img[sv.largest], sv.img_px[sv.largest] / 1e6);
            largest_table(md, &sv);
            fprintf(md, "\nSpeedup of kernel time over the serial `cpu` reference (geometric mean over the "
                        "images of each size):\n\n");
            speedup_table(md, &sv, 0);
            fprintf(md, "\nSpeedup over the best CPU variant on each image (any of cpu, pthread, openmp at any "
                        "thread count):\n\n");
            speedup_table(md, &sv, 1);
            thread_table(md, &sv);
            st = plots_for_stage(&pc, &sv, algo->name, md, err);
        }
        if (!st && algo->sweep)
            st = sweep_report(&pc, &rows, algo, md, err);
        sb_report_quality(md, results_dir, algo);
        sb_rows_free(&rows);
    }
    sb_report_cli(md, results_dir);
    if (!st)
        st = report_gallery(results_dir, out_dir, md, err);
    if (pc.missing)
        fprintf(md, "## Missing plots\n\n%s: %s. The data files and gnuplot scripts are in `plots/`; install "
                    "gnuplot (`apt-get install gnuplot-nox`) and run `make report`.\n",
                gnuplot ? "gnuplot failed on" : "gnuplot was not found, so these plots were not drawn",
                pc.missing_list);
    fclose(md);
    if (!st) {
        snprintf(path, sizeof path, "%s/REPORT.md", out_dir);
        st = sb_atomic_write_text(path, md_text, err);
        if (!st)
            printf("wrote %s (%d plots%s%s)\n", path, pc.made, pc.missing ? ", missing: " : "",
                   pc.missing ? pc.missing_list : "");
    }
    free(md_text);
    free(env);
    return st;
}

enum { OPT_RESULTS, OPT_RESULTS_ROOT, OPT_OUT, OPT_COUNT };

static const sb_option REPORT_OPTIONS[OPT_COUNT] = {
    [OPT_RESULTS] = { "results", "DIR", NULL, "report on this one result set only" },
    [OPT_RESULTS_ROOT] = { "results-root", "DIR", "results", "report on every result set DIR/<machine>/" },
    [OPT_OUT] = { "out", "DIR", "report/<machine> with --results, else report",
                  "where the report goes (with --results-root: the folder of the machines' reports)" },
};

const sb_command sb_cmd_report = {
    "report", "[options]", "Write REPORT.md, tables and plots for every result set (report/<machine>/), "
                           "and report/MACHINES.md.",
    "MACHINES.md puts the machines side by side; when the results folder holds a\n"
    "slurm-tasks.tsv (written by 'make bench-slurm'), it also names every cluster task\n"
    "and whether it failed.\n",
    REPORT_OPTIONS, OPT_COUNT, 0, NULL, cmd_report,
};

sb_status cmd_report(int argc, char **argv, sb_error *err)
{
    const char *results = NULL, *root = "results", *out = NULL;
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_report, argc, argv, err);
    for (int opt; (opt = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (opt) {
        case OPT_RESULTS: results = p.value; break;
        case OPT_RESULTS_ROOT: root = p.value; break;
        case OPT_OUT: out = p.value; break;
        default: return sb_optparse_unexpected(&p);
        }
    if (p.status)
        return p.status;
    int gnuplot = system("command -v gnuplot >/dev/null 2>&1") == 0;
    if (!gnuplot)
        fprintf(stderr, "segbench report: gnuplot not found: tables only, plots listed as missing "
                        "(install with: apt-get install gnuplot-nox)\n");
    if (results) {
        int csvs = 0;
        struct stat sbuf;
        for (int i = 0; i < sb_algo_count(); i++) {
            char csv[1300];
            snprintf(csv, sizeof csv, "%s/%s.csv", results, sb_algo_at(i)->name);
            csvs += stat(csv, &sbuf) == 0;
        }
        if (stat(results, &sbuf) != 0 || !S_ISDIR(sbuf.st_mode))
            return sb_fail(err, SB_ERR_IO, "%s: no such results directory", results);
        if (!csvs)
            return sb_fail(err, SB_ERR_IO, "%s holds no results (no <algo>.csv); run 'segbench bench' first",
                           results);
        char out_dir[1200];
        const char *base = strrchr(results, '/');
        base = base && base[1] ? base + 1 : results;
        snprintf(out_dir, sizeof out_dir, "%s", out ? out : "");
        if (!out)
            snprintf(out_dir, sizeof out_dir, "report/%s", base);
        return report_one(results, out_dir, gnuplot, 1, err);
    }
    DIR *d = opendir(root);
    if (!d)
        return sb_fail(err, SB_ERR_IO, "%s/: cannot open (%s); run 'make bench' first", root, strerror(errno));
    static char dirs[64][1200];
    int ndirs = 0;
    struct dirent *e;
    while ((e = readdir(d)) && ndirs < 64) {
        if (e->d_name[0] == '.')
            continue;
        char env[1300];
        snprintf(dirs[ndirs], sizeof dirs[0], "%s/%s", root, e->d_name);
        snprintf(env, sizeof env, "%s/env.json", dirs[ndirs]);
        struct stat sbuf;
        if (stat(env, &sbuf) == 0)
            ndirs++;
    }
    closedir(d);
    if (!ndirs)
        return sb_fail(err, SB_ERR_IO, "%s/ holds no result sets; run 'make bench' first", root);
    /* readdir's order is the file system's: sort, so MACHINES.md is the same every time */
    qsort(dirs, (size_t)ndirs, sizeof dirs[0], (int (*)(const void *, const void *))strcmp);
    const char *report_root = out ? out : "report";
    sb_status st = SB_OK;
    for (int i = 0; i < ndirs && !st; i++) {
        char out_dir[1300];
        snprintf(out_dir, sizeof out_dir, "%s/%s", report_root, strrchr(dirs[i], '/') + 1);
        st = report_one(dirs[i], out_dir, gnuplot, ndirs, err);
    }
    char tasks[1200], machines[1200];
    snprintf(tasks, sizeof tasks, "%s/slurm-tasks.tsv", root);
    snprintf(machines, sizeof machines, "%s/MACHINES.md", report_root);
    struct stat sbuf;
    int have_tasks = stat(tasks, &sbuf) == 0;
    if (!st && (ndirs > 1 || have_tasks))
        st = sb_report_machines(dirs, ndirs, machines, have_tasks ? tasks : NULL, err);
    return st;
}
