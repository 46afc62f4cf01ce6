/* report_limits.c - the report's pages of the limits (profile/limits.h
 * computes them): REPORT.md's table of how far each stage is from its
 * limit, and each algorithm's roofline. */
#include "pages/report_limits.h"

#include "base/files.h"
#include "pages/report_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_limit_cell(const stage_limit *lim, char *out, size_t size)
{
    if (!lim->top || lim->x <= 0)
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%.2fx (%s)", lim->x, lim->kind);
}

/* ---- REPORT.md: every stage's limit ---- */

void report_limits_header(FILE *md)
{
    fprintf(md, "| algorithm | stage | fastest GPU rung | kernel ms | memory floor ms | issue floor ms | x limit | "
                "what bounds it |\n|---|---|---|---:|---:|---:|---:|---|\n");
}

void report_limits_row(FILE *md, const char *algo, const stage_limit *lim)
{
    if (!lim->top)
        return;
    char issue[32];
    snprintf(issue, sizeof issue, lim->prof ? "%.4g" : "-", lim->issue_ms);
    fprintf(md, "| [%s](%s.md) | %s | %s | %.4g | %.4g | %s | %.2fx | %s |\n", algo, algo, lim->top->stage,
            lim->top->variant, lim->top->kernel.median, lim->mem_ms, issue, lim->x, report_md(REPORT_TEXT, lim->bound));
}

void report_limits_legend(FILE *md)
{
    fprintf(md, "\n*Memory floor*: the bytes the stage must move (inputs read once, outputs written once) over the "
                "device copy bandwidth measured on this GPU. *Issue floor*: the warp instructions the rung executed "
                "(Nsight Compute, `make profile`) at the SMs' full issue rate of 4 a cycle at the clock the profile "
                "saw: a floor for this code, not for the algorithm. *x limit*: kernel median over the larger floor "
                "(1.00x: at the limit for this code on this machine; the speed of light only where the memory "
                "floor is the larger). *What bounds it* is read from the same profile: the share of the run "
                "the kernels fill (the rest is launch gaps and host waits), DRAM throughput against the copy, "
                "issue-slot use, and the stall reason most waiting warps give. Profiles are of one checked run "
                "with each kernel replayed by ncu (`segbench profile`), at the same commit as the timings unless its "
                "cell names another (a machine whose runtime hides the counters keeps an older run's profiles; "
                "bench/profile/README.md).\n");
}

/* ---- the roofline of one algorithm ---- */

/* The timed kernel median of a profiled run (0: no row). */
static double timed_ms(const sb_rows *rows, const profile_line *l)
{
    for (int i = 0; i < rows->count; i++) {
        const sb_row *r = &rows->row[i];
        if (!strcmp(r->stage, l->stage) && !strcmp(r->variant, l->variant) && !strcmp(r->image, l->image) &&
            strcmp(r->agreement, "FAIL"))
            return r->kernel.median;
    }
    return 0.0;
}

sb_status report_roofline(plot_ctx *pc, const char *algo, const sb_rows *rows, const profile_set *p,
                          int sm_count, FILE *md, sb_error *err)
{

    int points = 0, stages = 0;
    char first_stage[32] = "";
    double mhz = 0.0;
    for (int i = 0; i < p->count; i++) {
        const profile_line *l = &p->line[i];
        if (strcmp(l->kernel, "(all)") || l->dram_bytes <= 0 || l->warp_insts <= 0 || timed_ms(rows, l) <= 0)
            continue;
        if (!points++)
            snprintf(first_stage, sizeof first_stage, "%s", l->stage);
        stages |= strcmp(l->stage, first_stage) != 0;
        if (l->sm_mhz > mhz)
            mhz = l->sm_mhz;
    }
    if (points == 0 || pc->device_peak <= 0 || sm_count <= 0)
        return SB_OK;
    char name[200];
    snprintf(name, sizeof name, "%s-roofline", algo);
    FILE *fp;
    sb_status st = report_plot_data_open(pc, name, &fp, err);
    if (st)
        return st;
    double xmin = 1e30, xmax = 0;
    for (int i = 0; i < p->count; i++) {
        const profile_line *l = &p->line[i];
        double ms = timed_ms(rows, l);
        if (strcmp(l->kernel, "(all)") || l->dram_bytes <= 0 || l->warp_insts <= 0 || ms <= 0)
            continue;
        double x = l->warp_insts / l->dram_bytes, y = l->warp_insts / (ms * 1e6);   /* G/s over the timed run */
        xmin = x < xmin ? x : xmin;
        xmax = x > xmax ? x : xmax;
        fprintf(fp, "%g %g \"%s%s%s\"\n", x, y, report_gp(REPORT_TEXT, l->variant), stages ? " " : "",
                stages ? report_gp(REPORT_TEXT, l->stage) : "");
    }
    fclose(fp);
    double roof = 4.0 * sm_count * mhz * 1e-3;      /* G warp instructions a second */
    double ridge = roof / pc->device_peak;           /* where the two roofs meet: both always drawn */
    xmin = ridge < xmin ? ridge : xmin;
    xmax = ridge > xmax ? ridge : xmax;
    char script[2048];
    snprintf(script, sizeof script,
             "%sset output '%s.png'\nset title '%s: instruction roofline (counts: Nsight Compute; time: the timed runs)'\n"
             "set logscale xy\nset xlabel 'warp instructions per DRAM byte'\n"
             "set ylabel 'G warp instructions per second'\nset xrange [%g:%g]\nset yrange [*:%g]\n"
             "set key inside top left\nset grid\n"
             "plot (x*%g < %g ? x*%g : 1/0) with lines dt 2 lw 2 lc rgb '%s' title 'memory roof: copy, %.0f GB/s', "
             "(x*%g >= %g ? %g : 1/0) with lines lw 2 lc rgb '%s' title 'issue roof: 4/cycle x %d SMs at %.0f MHz', "
             "'%s.dat' using 1:2 with points pt 7 ps 1.5 lc rgb '#c0392b' notitle, "
             "'%s.dat' using 1:2:3 with labels offset 1,0.6 left font ',9' notitle\n",
             REPORT_PLOT_HEAD, name, report_gp(REPORT_TEXT, algo), xmin / 4, xmax * 4, roof * 3, pc->device_peak, roof,
             pc->device_peak, REPORT_FLOOR_COLOUR, pc->device_peak, pc->device_peak, roof, roof, REPORT_FLOOR_COLOUR,
             sm_count, mhz, name, name);
    fprintf(md, "## Roofline\n\n![roofline](plots/%s.png)\n\nEach point is one profiled rung (`make profile`: "
                "each stage's fastest and the rung before it, at the summary image): its warp instructions per "
                "byte of DRAM traffic (Nsight Compute's counts of one run) against those instructions over its "
                "timed kernel median. A point under the dashed "
                "roof is held by memory bandwidth when it is near it; under the flat roof, by instruction issue "
                "when near; a point far below both waits on latency or launches (the limits table says which).\n\n",
            name);
    return report_plot_run(pc, name, script, err);
}
