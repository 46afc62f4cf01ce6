/* report_plots.c - the report's gnuplot plots (see report_parts.h): the
 * scripts and data files are written beside the PNGs, so a reader can
 * rerun or restyle them.  Each variant keeps one colour in every plot
 * (report_colour). */
#include "pages/report_parts.h"

#include "base/files.h"

#include "io/catalogue.h"

#include "segbench/atomic_file.h"

#include "segbench/spawn.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int report_gnuplot(void)
{
    const char *plots = getenv("SB_PLOTS");
    if (plots && strcmp(plots, "scripts") == 0)
        return 0;             /* asked for: scripts and data only (the test suite's reports) */
    if (sb_find_program("gnuplot", NULL, 0))
        return 1;
    fputs("segbench report: gnuplot not found: tables only; plots not redrawn (install with: apt-get install "
          "gnuplot-nox)\n", stderr);
    return 0;
}

/* gnuplot on plots/<name>.gp alone: drawn, or counted missing. */
static void plot_draw_one(plot_ctx *pc, const char *name)
{
    char gp[300], log[1400];
    snprintf(gp, sizeof gp, "%s.gp", name);
    snprintf(log, sizeof log, "%s/%s.log", pc->dir, name);
    char *const argv[] = { "gnuplot", gp, NULL };     /* no shell: folder names may hold anything */
    if (sb_spawn(argv, pc->dir, log) == 0) {
        pc->made++;
        remove(log);
        return;
    }
    pc->missing++;
    size_t len = strlen(pc->missing_list);
    if (len + strlen(name) + 32 < sizeof pc->missing_list)
        snprintf(pc->missing_list + len, sizeof pc->missing_list - len, "%s%s.png", len ? ", " : "", name);
}

static const char *const BATCH = ".batch.gp";

sb_status report_plot_run(plot_ctx *pc, const char *name, const char *script, sb_error *err)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s.gp", pc->dir, name);
    sb_status st = sb_atomic_write_text(path, script, err);
    if (st)
        return st;
    if (pc->gnuplot) {
        if (!pc->batch) {
            snprintf(path, sizeof path, "%s/%s", pc->dir, BATCH);
            pc->batch = fopen(path, "w");
        }
        if (pc->batch && !strpbrk(name, "'\n")) {
            fprintf(pc->batch, "reset\nload '%s.gp'\n", name);    /* each script sets its own terminal and output */
            pc->pending++;
        } else {
            plot_draw_one(pc, name);
        }
        return SB_OK;
    }
    char png[1400];
    struct stat sbuf;
    snprintf(png, sizeof png, "%s/%s.png", pc->dir, name);
    if (stat(png, &sbuf) == 0) {
        pc->kept++;                   /* an earlier report's picture: kept, and said to be older */
        return SB_OK;
    }
    pc->missing++;
    size_t len = strlen(pc->missing_list);
    if (len + strlen(name) + 32 < sizeof pc->missing_list)
        snprintf(pc->missing_list + len, sizeof pc->missing_list - len, "%s%s.png", len ? ", " : "", name);
    return SB_OK;
}

void report_plots_draw(plot_ctx *pc)
{
    if (!pc->batch)
        return;
    fclose(pc->batch);
    pc->batch = NULL;
    char path[1400], log[1400];
    snprintf(path, sizeof path, "%s/%s", pc->dir, BATCH);
    snprintf(log, sizeof log, "%s/.batch.log", pc->dir);
    char *const argv[] = { "gnuplot", (char *)BATCH, NULL };
    if (sb_spawn(argv, pc->dir, log) == 0) {
        pc->made += pc->pending;
    } else {                          /* one of them failed: each alone, to know which */
        FILE *fp = fopen(path, "r");
        char line[400];
        while (fp && fgets(line, sizeof line, fp)) {
            size_t n = strlen(line);
            if (strncmp(line, "load '", 6) == 0 && n > 11 && strcmp(line + n - 5, ".gp'\n") == 0) {
                line[n - 5] = '\0';
                plot_draw_one(pc, line + 6);
            }
        }
        if (fp)
            fclose(fp);
    }
    pc->pending = 0;
    remove(log);
    remove(path);
}

/* plots/<name>.dat, for writing */
sb_status report_plot_data_open(const plot_ctx *pc, const char *name, FILE **fp, sb_error *err)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s.dat", pc->dir, name);
    if (!(*fp = fopen(path, "w")))
        return sb_fail(err, SB_ERR_IO, "%s: cannot write (%s)", path, strerror(errno));
    return SB_OK;
}

const char *const REPORT_PLOT_HEAD = "set terminal pngcairo size 960,540 noenhanced font ',10'\n"
                               "set key outside right top\nset grid ytics\n";

/* Plot 1: speedup bars over the serial reference, by image size; a floor
 * is a line, not a bar. */
static sb_status plot_speedup(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err)
{
    char name[200], script[8192];
    FILE *fp;
    sb_status st;
    snprintf(name, sizeof name, "%s-%s-speedup", algo, sv->stage);
    if ((st = report_plot_data_open(pc, name, &fp, err)))
        return st;
    char colours[SB_PATH_MAX] = "";
    int nbars = 0, floor_col = 0;
    fprintf(fp, "size");
    for (int v = 0; v < sv->nvar; v++) {
        fprintf(fp, " %s", sv->var[v]->name);
        if (view_is_floor(sv->var[v])) {
            floor_col = v + 2;
            continue;
        }
        size_t len = strlen(colours);
        snprintf(colours + len, sizeof colours - len, "%s%s", nbars++ ? " " : "", report_colour(sv->rows->catalogue, sv->var[v]));
    }
    fprintf(fp, "\n");
    for (int g = 0; g < sv->ngroup; g++) {
        fprintf(fp, "%s", sv->group[g]);
        for (int v = 0; v < sv->nvar; v++) {
            int failed;
            double s = view_group_speedup(sv, sv->var[v]->name, g, 0, &failed);
            fprintf(fp, " %g", s > 0 && !failed ? s : NAN);
        }
        fprintf(fp, "\n");
    }
    fclose(fp);
    char columns[256] = "", floor_plot[512] = "";
    for (int v = 0, n = 0; v < sv->nvar; v++)
        if (!view_is_floor(sv->var[v])) {
            size_t len = strlen(columns);
            snprintf(columns + len, sizeof columns - len, "%s%d", n++ ? " " : "", v + 2);
        }
    if (floor_col) {                   /* its own file: x = the group's index, where its bars stand */
        char floor_name[256];
        snprintf(floor_name, sizeof floor_name, "%s-floor", name);
        if ((st = report_plot_data_open(pc, floor_name, &fp, err)))
            return st;
        for (int g = 0; g < sv->ngroup; g++) {
            int failed;
            double s = view_group_speedup(sv, sv->var[floor_col - 2]->name, g, 0, &failed);
            if (s > 0 && !failed)
                fprintf(fp, "%d %g\n", g, s);
        }
        fclose(fp);
        snprintf(floor_plot, sizeof floor_plot, ", '%s.dat' using 1:2 with linespoints dt 2 lw 2 lc rgb '%s' "
                 "title 'floor: %s'", floor_name, REPORT_FLOOR_COLOUR, sv->var[floor_col - 2]->name);
    }
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s %s: speedup of kernel time over serial cpu (log scale)'\n"
             "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
             "set logscale y\nset ylabel 'speedup (x)'\nset xlabel 'image size (photos: geometric mean)'\n"
             "cols = '%s'\ncolours = '%s'\n"
             "plot for [k=1:%d] '%s.dat' using int(word(cols, k)):xtic(1) title columnheader(int(word(cols, k))) "
             "lc rgb word(colours, k)%s\n",
             REPORT_PLOT_HEAD, name, algo, sv->stage, columns, colours, nbars, name, floor_plot);
    if ((st = report_plot_run(pc, name, script, err)))
        return st;
    fprintf(md, "![speedup](plots/%s.png)\n\n", name);
    return SB_OK;
}

/* Plot 2: time against megapixels, synthetic images, log-log. */
static sb_status plot_time(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err)
{
    char name[200], script[8192];
    FILE *fp;
    sb_status st;
    snprintf(name, sizeof name, "%s-%s-time", algo, sv->stage);
    if ((st = report_plot_data_open(pc, name, &fp, err)))
        return st;
    char titles[2048] = "";
    char colours[SB_PATH_MAX] = "";
    int points = 0, few = 0;
    for (int v = 0; v < sv->nvar; v++) {
        fprintf(fp, "# %s: megapixels, kernel median (ms), runs\n", sv->var[v]->name);
        int unstable = 0;
        for (int g = 0; g < sv->ngroup; g++)
            for (int i = 0; i < sv->nimg; i++) {
                int failed;
                const sb_row *r;
                if (sv->img_group[i] != g || !view_is_synthetic(sv->img[i]) ||
                    !(r = view_best_row(sv, sv->var[v]->name, sv->img[i], &failed)))
                    continue;
                fprintf(fp, "%g %g %d\n", sv->img_px[i] / 1e6, r->kernel.median, r->kernel.n);
                unstable |= sb_row_unstable(r);
                few += r->kernel.n < 3;
                points++;
            }
        fprintf(fp, "\n\n");
        size_t len = strlen(titles);            /* \u00a7: a point of the line is unstable */
        snprintf(titles + len, sizeof titles - len, "%s%s%s", v ? " " : "", sv->var[v]->name,
                 unstable ? "\xc2\xa7" : "");
        len = strlen(colours);
        snprintf(colours + len, sizeof colours - len, "%s%s", v ? " " : "", report_colour(sv->rows->catalogue, sv->var[v]));
    }
    fclose(fp);
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s %s: kernel time against image size (synthetic set)'\n"
             "set logscale xy\nset xlabel 'megapixels'\nset ylabel 'kernel time, median (ms)'\n"
             "names = '%s'\ncolours = '%s'\nplot for [i=0:%d] '%s.dat' index i using 1:2 with linespoints "
             "lc rgb word(colours, i+1) title word(names, i+1), \\\n"
             "     for [i=0:%d] '%s.dat' index i using 1:($3 < 3 ? $2 : 1/0) with points pt 6 ps 2.2 "
             "lc rgb '#000000' title (i == 0 ? 'ringed: a median of 1 or 2 runs' : '')\n",
             REPORT_PLOT_HEAD, name, algo, sv->stage, titles, colours, sv->nvar - 1, name, sv->nvar - 1, name);
    if (points) {                        /* no synthetic image measured (--image files): no plot to draw */
        if ((st = report_plot_run(pc, name, script, err)))
            return st;
        fprintf(md, "![time against size](plots/%s.png)\n\n", name);
        if (few)
            fprintf(md, "Ringed points (%d) are medians of one or two runs: rows whose runs each took the time "
                        "budget, so they have no spread to judge them by.\n\n", few);
    }
    return SB_OK;
}

const char *report_log_base(double least, char *out)
{
    double base = least > 0 ? pow(10.0, floor(log10(least))) : 1.0;
    snprintf(out, REPORT_TEXT_MAX, "base = %g\nset yrange [base:*]\nset offsets 0.3, 0.3, 0, 0\n", base);
    return out;
}

/* counts[0..*n) in increasing order, with `value` in it once. */
static void add_count(int *counts, int *n, int max, int value)
{
    int at = 0;
    while (at < *n && counts[at] < value)
        at++;
    if ((at < *n && counts[at] == value) || *n == max)
        return;
    memmove(counts + at + 1, counts + at, sizeof *counts * (size_t)(*n - at));
    counts[at] = value;
    (*n)++;
}

/* Plot 3: thread scaling at the image where the threads were swept
 * (none: no plot). */
static sb_status plot_threads(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err)
{
    char name[200], script[8192];
    FILE *fp;
    sb_status st;
    if (view_thread_counts_at(sv, sv->sweep) >= 2) {
        snprintf(name, sizeof name, "%s-%s-threads", algo, sv->stage);
        if ((st = report_plot_data_open(pc, name, &fp, err)))
            return st;
        char titles[2048] = "", colours[SB_PATH_MAX] = "";
        int nthreaded = 0, max_threads = 1;
        int counts[32], ncounts = 0;         /* the thread counts measured: the x axis's ticks */
        for (int v = 0; v < sv->nvar; v++) {
            if (!(sv->var[v]->flags & SB_THREADED))
                continue;
            double t1 = 0.0;
            int unstable = 0;
            fprintf(fp, "# %s\n", sv->var[v]->name);
            for (int i = 0; i < sv->rows->count; i++) {
                const sb_row *r = &sv->rows->row[i];
                if (!view_row_is(r, sv->stage, sv->var[v]->name, sv->img[sv->sweep]))
                    continue;
                unstable |= sb_row_unstable(r);
                if (r->threads == 1)
                    t1 = r->kernel.median;
                if (t1 > 0 && r->kernel.median > 0)
                    fprintf(fp, "%d %g\n", r->threads, t1 / r->kernel.median);
                if (r->threads > max_threads)
                    max_threads = r->threads;
                add_count(counts, &ncounts, 32, r->threads);
            }
            fprintf(fp, "\n\n");
            size_t len = strlen(titles);
            snprintf(titles + len, sizeof titles - len, "%s%s%s", nthreaded ? " " : "", sv->var[v]->name,
                     unstable ? "\xc2\xa7" : "");
            len = strlen(colours);
            snprintf(colours + len, sizeof colours - len, "%s%s", nthreaded ? " " : "", report_colour(sv->rows->catalogue, sv->var[v]));
            nthreaded++;
        }
        fclose(fp);
        if (nthreaded) {
            char tics[256] = "";             /* "(1, 2, 4, 8, 16)", not gnuplot's powers of 2 */
            for (int i = 0, used = 0; i < ncounts && used < (int)sizeof tics; i++)
                used += snprintf(tics + used, sizeof tics - (size_t)used, "%s%d%s", i ? ", " : "(", counts[i],
                                 i + 1 == ncounts ? ")" : "");
            snprintf(script, sizeof script,
                     "%sset output '%s.png'\nset title '%s %s: thread scaling at %s (log-log)'\nset logscale x 2\n"
                     "set logscale y 10\nset format y '%%g'\nset xtics %s\n"
                     "set xrange [1:%d]\nset xlabel 'threads'\nset ylabel 'speedup over 1 thread'\n"
                     "names = '%s'\ncolours = '%s'\nplot x title 'ideal (speed-up = threads)' with lines dashtype 2 "
                     "lc rgb '%s', "
                     "for [i=0:%d] '%s.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) "
                     "title word(names, i+1)\n",
                     REPORT_PLOT_HEAD, name, algo, sv->stage, report_gp(REPORT_TEXT, sv->img[sv->sweep]),
                     ncounts ? tics : "autofreq", max_threads, titles, colours,
                     REPORT_FLOOR_COLOUR, nthreaded - 1, name);
            if ((st = report_plot_run(pc, name, script, err)))
                return st;
            fprintf(md, "![thread scaling](plots/%s.png)\n\n", name);
        }
    }
    return SB_OK;
}

/* Plot 4, at the largest image: GB/s where the stage has a floor (memory-
 * bound), with the two measured peaks drawn as lines (device copy for
 * GPU rows, host memcpy for CPU rows: on one axis, each against its
 * own ceiling) and the floor's own rate; else megapixels per second
 * (compute-bound: bytes per second would read ~0). */
static sb_status plot_rate(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err)
{
    char name[200], script[8192];
    FILE *fp;
    sb_status st;
    int floor_v = -1;
    for (int v = 0; v < sv->nvar; v++)
        if (view_is_floor(sv->var[v]))
            floor_v = v;
    int memory_bound = sv->memory_bound;
    snprintf(name, sizeof name, "%s-%s-%s", algo, sv->stage, memory_bound ? "bandwidth" : "throughput");
    if ((st = report_plot_data_open(pc, name, &fp, err)))
        return st;
    fprintf(fp, "variant value colour\n");
    double floor_value = 0.0, least = 0.0;     /* least: the shortest bar, above the plot's base */
    for (int v = 0; v < sv->nvar; v++) {
        int failed;
        const sb_row *r = view_best_row(sv, sv->var[v]->name, sv->img[sv->largest], &failed);
        if (!r)
            continue;
        double value = memory_bound ? r->gbps
                                    : (r->kernel.median > 0 ? r->width * (double)r->height / 1e3 / r->kernel.median : 0);
        if (v == floor_v) {
            floor_value = value;
        } else {
            fprintf(fp, "%s%s %g %ld\n", r->variant, sb_row_unstable(r) ? "\xc2\xa7" : "", value,
                    strtol(report_colour(sv->rows->catalogue, sv->var[v]) + 1, NULL, 16));
            if (value > 0 && (least == 0 || value < least))
                least = value;
        }
    }
    fclose(fp);
    char lines[768] = "";
    if (memory_bound) {
        size_t n = 0;
        if (pc->device_peak > 0)
            n += (size_t)snprintf(lines + n, sizeof lines - n, ", %g with lines dt 1 lw 2 lc rgb '#d62728' title "
                                  "'device copy peak (%.0f GB/s)'", pc->device_peak, pc->device_peak);
        if (pc->host_peak > 0 && n < sizeof lines)
            n += (size_t)snprintf(lines + n, sizeof lines - n, ", %g with lines dt 1 lw 2 lc rgb '#1f77b4' title "
                                  "'host memcpy peak, %d threads (%.0f GB/s)'", pc->host_peak, pc->host_threads,
                                  pc->host_peak);
        if (floor_v >= 0 && floor_value > 0 && n < sizeof lines)
            snprintf(lines + n, sizeof lines - n, ", %g with lines dt 2 lw 2 lc rgb '%s' title 'floor: %s'",
                     floor_value, REPORT_FLOOR_COLOUR, report_gp(REPORT_TEXT, sv->var[floor_v]->name));
    }
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s %s: %s at %s'\n"
             "set style fill solid 0.8 border -1\nset logscale y\nset key %s\n"
             "set ylabel '%s'\nset xtics rotate by -30\n%s"
             "plot '%s.dat' using 0:2:($0-0.35):($0+0.35):(base):2:3:xtic(1) with boxxyerror lc rgb variable "
             "notitle%s\n",
             REPORT_PLOT_HEAD, name, algo, sv->stage,
             memory_bound ? "bandwidth, GB/s (log scale)" : "megapixels per second (log scale)",
             report_gp(REPORT_TEXT, sv->img[sv->largest]), memory_bound ? "inside top left" : "off",
             memory_bound ? "GB/s" : "Mpx/s", report_log_base(least, REPORT_TEXT), name,
             lines);
    if ((st = report_plot_run(pc, name, script, err)))
        return st;
    if (memory_bound && pc->device_peak > 0)
        fprintf(md, "![bandwidth](plots/%s.png)\n\nEach bar is the stage's byte floor over the kernel median; "
                    "the lines are the two measured peaks a bar answers to: the device-to-device copy for GPU "
                    "rows, host memcpy at the most threads for CPU rows.\n\n", name);
    else if (memory_bound)
        fprintf(md, "![bandwidth](plots/%s.png)\n\nA memory-bound stage: each bar is its byte floor over the "
                    "kernel median, against the host's measured memcpy peak at the most threads (no GPU here).\n\n",
                name);
    else
        fprintf(md, "![throughput](plots/%s.png)\n\nA compute-bound stage: megapixels per second, not a "
                    "fraction of memory bandwidth.\n\n", name);
    return SB_OK;
}

sb_status report_plots_for_stage(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err)
{
    sb_status st = plot_speedup(pc, sv, algo, md, err);
    if (!st)
        st = plot_time(pc, sv, algo, md, err);
    if (!st)
        st = plot_threads(pc, sv, algo, md, err);
    if (!st)
        st = plot_rate(pc, sv, algo, md, err);
    return st;
}

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

sb_status report_sweep(plot_ctx *pc, const sb_rows *rows, const sb_algo *algo, FILE *md, sb_error *err)
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
        for (int k = 0; k < sb_catalogue_count(rows->catalogue) && nvar < MAX_VARIANTS; k++) {
            const sb_variant *v = sb_catalogue_at(rows->catalogue, k);
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
        char name[256], titles[2048] = "", colours[1024] = "", script[4096];
        snprintf(name, sizeof name, "%s-sweep-%s", algo->name, images[im]);
        FILE *fp;
        if ((st = report_plot_data_open(pc, name, &fp, err)))
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
            len = strlen(colours);
            snprintf(colours + len, sizeof colours - len, "%s%s", v ? " " : "", report_colour(rows->catalogue, var[v]));
        }
        fclose(fp);
        snprintf(script, sizeof script,
                 "%sset output '%s.png'\nset title '%s on %s: kernel time against the %s'\n"
                 "set logscale xy 2\nset xlabel '%s'\nset ylabel 'kernel time, median (ms)'\n"
                 "names = '%s'\ncolours = '%s'\nplot for [i=0:%d] '%s.dat' index i using 1:2 with linespoints "
                 "lc rgb word(colours, i+1) title word(names, i+1)\n",
                 REPORT_PLOT_HEAD, name, algo->name, report_gp(REPORT_TEXT, images[im]), algo->sweep, algo->sweep, titles, colours,
                 nvar - 1, name);
        if ((st = report_plot_run(pc, name, script, err)))
            return st;
        fprintf(md, "\n![%s sweep](plots/%s.png)\n\n", algo->sweep, name);
    }
    return st;
}

