/* report_class.c - a class's leaderboard page (report.h): the rows of one
 * exercise and seed from the class CSV (`segbench grade --class`), best
 * first, as a Markdown table and a bar plot of each student's speed over
 * the reference solution's. */
#include "pages/report.h"

#include "course/grade_class.h"
#include "pages/report_parts.h"

#include "segbench/atomic_file.h"
#include "segbench/spawn.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Passes first, then correct but slow, then wrong, then what was not
 * graded; within each, faster over the reference first. */
static int standing(const grade_class_row *r)
{
    return r->exit_code == 0 ? 0 : r->exit_code == 3 ? 1 : r->exit_code == 1 ? 2 : 3;
}

static int best_first(const void *pa, const void *pb)
{
    const grade_class_row *a = pa, *b = pb;
    if (standing(a) != standing(b))
        return standing(a) - standing(b);
    if (a->vs_reference != b->vs_reference)
        return a->vs_reference < b->vs_reference ? 1 : -1;
    return strcmp(a->student, b->student);
}

static void cell_speed(FILE *md, double x) { x > 0 ? fprintf(md, " %.2fx |", x) : fprintf(md, " - |"); }

static sb_status leaderboard_plot(const grade_class_row *rows, int n, const char *variant, const char *dir,
                                  const char *name, FILE *md, sb_error *err)
{
    plot_ctx pc = { .dir = dir, .gnuplot = report_gnuplot() };
    FILE *fp;
    sb_status st = report_plot_data_open(&pc, name, &fp, err);
    if (st)
        return st;
    size_t cap = 4096 + (size_t)n * 600;
    char *tics = malloc(cap), *script = malloc(cap + 2048);
    if (!tics || !script) {
        fclose(fp);
        free(tics);
        free(script);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    size_t len = 0;
    tics[0] = '\0';
    for (int i = 0; i < n; i++) {          /* x: the rank; y: x the reference; colour: passed or not */
        fprintf(fp, "%d %g %d\n", i, rows[i].vs_reference > 0 ? rows[i].vs_reference : 0.0, rows[i].exit_code == 0);
        len += (size_t)snprintf(tics + len, cap - len, "%s'%s' %d", i ? ", " : "", report_gp(REPORT_TEXT, rows[i].student), i);
    }
    fclose(fp);
    snprintf(script, cap + 2048,
             "%sset output '%s.png'\nset title '%s: each student against the reference solution'\n"
             "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset ylabel 'speed over the reference solution (x)'\n"
             "set yrange [0:*]\nset xtics rotate by -45 (%s)\nset key off\n"
             "plot '%s.dat' using 1:2:($3 > 0 ? 0x2e8b57 : 0xb22222) with boxes lc rgb variable, "
             "0.9 with lines dt 2 lc rgb '#000000', 1 with lines lc rgb '#555555'\n",
             REPORT_PLOT_HEAD, report_gp(REPORT_TEXT, name), report_gp(REPORT_TEXT, variant), tics,
             report_gp(REPORT_TEXT, name));
    st = report_plot_run(&pc, name, script, err);
    report_plots_draw(&pc);
    if (!st && pc.made)
        fprintf(md, "\n![each student's speed over the reference solution](%s.png)\n\nGreen passed; the dashed "
                "line is the pass bar (0.9x the reference), the grey one the reference itself.\n",
                report_md(REPORT_TEXT, name));
    else if (!st)
        fprintf(md, "\n(No plot: gnuplot is not installed; `%s.gp` and `%s.dat` are beside this page.)\n",
                report_md(REPORT_TEXT, name), report_md(REPORT_TEXT, name));
    free(tics);
    free(script);
    return st;
}

sb_status report_leaderboard(const char *csv, const char *variant, unsigned long long seed, const char *md_path,
                             sb_error *err)
{
    grade_class_row *rows;
    int n;
    char *buf;
    sb_status st = grade_class_read(csv, variant, seed, &rows, &n, &buf, err);
    if (st)
        return st;
    qsort(rows, (size_t)n, sizeof *rows, best_first);
    char dir[PATH_MAX], name[PATH_MAX];
    const char *slash = strrchr(md_path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - md_path) : 1, slash ? md_path : ".");
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : md_path);
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
    sb_atomic_file af;
    if ((st = sb_atomic_open(&af, md_path, err))) {
        free(rows);
        free(buf);
        return st;
    }
    FILE *md = af.fp;
    int counts[4] = { 0 };
    for (int i = 0; i < n; i++)
        counts[standing(&rows[i])]++;
    fprintf(md, "# Leaderboard: %s\n\n", report_md(REPORT_TEXT, variant));
    fprintf(md, "Seed %llu; %d student%s: **%d passed**, %d correct but not fast enough, %d wrong, %d not graded "
            "(did not build, crashed, or ran out of time).", seed, n, n == 1 ? "" : "s", counts[0], counts[1],
            counts[2], counts[3]);
    if (n)
        fprintf(md, " Graded on %s at %s. From `%s`, each student's last grade with this seed.\n\n",
                report_md(REPORT_TEXT, rows[0].machine[0] ? rows[0].machine : "this machine"),
                report_md(REPORT_TEXT, rows[0].commit), report_md(REPORT_TEXT, csv));
    fprintf(md, "Speeds are ratios measured interleaved on one machine (`x` = how many times as fast); *x limit* is "
            "the kernel's time over the stage's limit (1.00x would be the limit itself).\n\n");
    fprintf(md, "| # | student | verdict | exit | x its parent | x the reference | x limit | checks |\n"
                "|---:|---|---|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < n; i++) {
        fprintf(md, "| %d | %s | %s | %d |", i + 1, report_md(REPORT_TEXT, rows[i].student),
                report_md(REPORT_TEXT, rows[i].verdict), rows[i].exit_code);
        cell_speed(md, rows[i].vs_parent);
        cell_speed(md, rows[i].vs_reference);
        cell_speed(md, rows[i].x_limit);
        fprintf(md, " %d |\n", rows[i].checks);
    }
    st = leaderboard_plot(rows, n, variant, dir, name, md, err);
    if (!st)
        st = sb_atomic_commit(&af, err);
    else
        sb_atomic_abort(&af);
    free(rows);
    free(buf);
    return st;
}
