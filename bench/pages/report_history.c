/* report_history.c - report/<machine>/history.md: each stage's fastest
 * variant over a machine's runs of record, a plot a stage, and the steps
 * compare/history.c found, each put down to the code or the machine. */
#include "pages/report.h"
#include "pages/report_parts.h"

#include "base/files.h"

#include "segbench/atomic_file.h"

#include <stdlib.h>
#include <string.h>

static const char *cause_word(sb_step_cause c)
{
    return c == SB_STEP_CODE ? "code" : c == SB_STEP_MACHINE ? "machine" : "unknown";
}

/* A series' steps, counted by cause into n[3]; returns their sum. */
static int steps_of(const sb_history *h, int series, int n[3])
{
    int all = 0;
    n[0] = n[1] = n[2] = 0;
    for (int k = 0; k < h->nstep; k++)
        if (h->step[k].series == series) {
            n[h->step[k].cause]++;
            all++;
        }
    return all;
}

/* The plot of one stage: each image's fastest variant over the snapshots. */
static sb_status stage_plot(const sb_history *h, const char *algo, const char *stage, plot_ctx *pc, FILE *md,
                            sb_error *err)
{
    enum { PLOTS_MAX = 8192, TICS_MAX = 8192 };
    char name[160];
    snprintf(name, sizeof name, "history-%s-%s", algo, stage);
    char *plots = malloc(PLOTS_MAX), *tics = malloc(TICS_MAX), *script = malloc(PLOTS_MAX + TICS_MAX + 1024);
    char *used = calloc((size_t)h->nsnap + 1, 1);
    FILE *fp = NULL;
    sb_status st = plots && tics && script && used ? report_plot_data_open(pc, name, &fp, err)
                                                  : sb_fail(err, SB_ERR_NOMEM, "out of memory");
    int blocks = 0;
    size_t pl = 0, xl = 0;
    /* x: the runs this stage has points at, evenly spaced, in commit order */
    int *rank = st ? NULL : calloc((size_t)h->nsnap + 1, sizeof *rank);
    if (!st && !rank)
        st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
    for (int i = 0; i < h->ns && !st; i++)
        if (h->s[i].best && !strcmp(h->s[i].algo, algo) && !strcmp(h->s[i].stage, stage))
            for (int k = 0; k < h->s[i].n; k++)
                used[h->s[i].pt[k].snap] = 1;
    for (int k = 0, r = 0; !st && k < h->nsnap; k++)
        rank[k] = used[k] ? r++ : -1;
    for (int i = 0; i < h->ns && !st; i++) {
        const sb_history_series *s = &h->s[i];
        if (!s->best || strcmp(s->algo, algo) || strcmp(s->stage, stage) || pl > PLOTS_MAX - 600)
            continue;
        fprintf(fp, "%s# %s\n", blocks ? "\n\n" : "", s->image);
        for (int k = 0; k < s->n; k++)
            fprintf(fp, "%d %g %g %g\n", rank[s->pt[k].snap], s->pt[k].median, s->pt[k].p25, s->pt[k].p75);
        pl += (size_t)snprintf(plots + pl, PLOTS_MAX - pl, "%s'%s.dat' index %d using 1:2:3:4 with yerrorlines "
                               "title '%s'", blocks ? ", " : "", name, blocks, report_gp(REPORT_TEXT, s->image));
        blocks++;
    }
    if (fp)
        fclose(fp);
    for (int k = 0; !st && k < h->nsnap && xl < TICS_MAX - 64; k++)
        if (used[k])
            xl += (size_t)snprintf(tics + xl, TICS_MAX - xl, "%s'%.5s %.7s' %d", xl ? ", " : "", strlen(h->snap[k].date) >= 10 ? h->snap[k].date + 5 : h->snap[k].date,
                                   report_gp(REPORT_TEXT, h->snap[k].label), rank[k]);
    if (!st) {
        snprintf(script, PLOTS_MAX + TICS_MAX + 1024,
                 "%sset output '%s.png'\nset title '%s %s: the fastest variant at each run of record (median and "
                 "quartiles, log scale)'\nset logscale y\nset ylabel 'kernel time (ms)'\n"
                 "set xtics rotate by -60 (%s)\nplot %s\n",
                 REPORT_PLOT_HEAD, name, algo, stage, tics, plots);
        st = report_plot_run(pc, name, script, err);
    }
    if (!st)
        fprintf(md, "![%s %s over the runs](plots/%s.png)\n\n", algo, stage, name);
    free(plots);
    free(tics);
    free(script);
    free(used);
    free(rank);
    return st;
}

/* A point as "0.2480 (`32054a0c0bd2`)". */
static const char *point_text(const sb_history *h, const sb_history_point *p, char *out, size_t size)
{
    snprintf(out, size, "%.4f (%s, `%.12s`)", p->median, p->variant, h->snap[p->snap].label);
    return out;
}

/* One stage: its plot, a line an image, its steps. */
static sb_status stage_part(const sb_history *h, const char *algo, const char *stage, plot_ctx *pc, FILE *md,
                            sb_error *err)
{
    fprintf(md, "### %s, stage %s\n\n", algo, stage);
    sb_status st = stage_plot(h, algo, stage, pc, md, err);
    fprintf(md, "| image | runs | first ms (fastest, at) | last ms (fastest, at) | last / first | steps: code, machine, "
                "unknown |\n|---|---:|---|---|---:|---|\n");
    for (int i = 0; i < h->ns; i++) {
        const sb_history_series *s = &h->s[i];
        if (!s->best || strcmp(s->algo, algo) || strcmp(s->stage, stage))
            continue;
        int n[3];
        int all = steps_of(h, i, n);
        char a[160], b[160], c[64] = "none";
        if (all)
            snprintf(c, sizeof c, "%d, %d, %d", n[0], n[1], n[2]);
        fprintf(md, "| %s | %d | %s | %s | %.3f | %s |\n", report_md(REPORT_TEXT, s->image), s->n,
                point_text(h, &s->pt[0], a, sizeof a), point_text(h, &s->pt[s->n - 1], b, sizeof b),
                s->pt[s->n - 1].median / s->pt[0].median, c);
    }
    int listed = 0;
    for (int k = 0; k < h->nstep; k++) {
        const sb_history_step *step = &h->step[k];
        const sb_history_series *s = &h->s[step->series];
        if (!s->best || strcmp(s->algo, algo) || strcmp(s->stage, stage))
            continue;
        const sb_history_point *a = &s->pt[step->at - 1], *b = &s->pt[step->at];
        const sb_history_snap *at = &h->snap[b->snap];
        fprintf(md, "%s- %.10s `%.12s` %s: %.4f -> %.4f ms (x%.3f, floor %.1f %%): **%s**: %s\n",
                listed++ ? "" : "\nSteps:\n\n", at->date, at->label, report_md(REPORT_TEXT, s->image), a->median,
                b->median, step->ratio, 100.0 * step->floor, cause_word(step->cause), report_md(REPORT_TEXT, step->why));
    }
    fputs("\n", md);
    return st;
}

static void page_head(const sb_history *h, const char *title, const char *source, const char *floors, FILE *md)
{
    sb_history_tally t;
    char words[160];
    sb_history_count(h, NULL, &t);
    fprintf(md, "# History: %s\n\n[Back to the report](REPORT.md).\n\n", title);
    char span[120];
    fprintf(md, "Written by `segbench history` (`make report`) from %s: %s, %.10s (`%.12s`) to %.10s (`%.12s`). "
                "Each stage and image's fastest variant at each of them; a point where a run measured it anew.\n\n",
            source, sb_history_span(h, span, sizeof span), h->snap[0].date, h->snap[0].label,
            h->snap[h->nsnap - 1].date, h->snap[h->nsnap - 1].label);
    fprintf(md, "**A step** is a move between two points of one series beyond the noise floor (%s) with their "
                "samples' quartiles apart. It is put down to the **code** when the fastest variant or its code "
                "identity changed, to the **machine** (its GPU, driver, state, or the protocol) when the same code "
                "ran, and **unknown** where the code's identity cannot be found. Points of two machines are not "
                "judged against each other",
            floors);
    if (h->unjudged)
        fprintf(md, " (%d such moves here)", h->unjudged);
    fprintf(md, ".\n\n**Found:** %s.\n\n", sb_history_tally_words(&t, words, sizeof words));
}

/* Each (algorithm, stage) of the fastest-variant series, once, in order. */
static sb_status page_body(const sb_history *h, plot_ctx *pc, FILE *md, sb_error *err)
{
    sb_status st = SB_OK;
    for (int i = 0; i < h->ns && !st; i++) {
        const sb_history_series *s = &h->s[i];
        int first = s->best;
        for (int j = 0; j < i && first; j++)
            first = !(h->s[j].best && !strcmp(h->s[j].algo, s->algo) && !strcmp(h->s[j].stage, s->stage));
        if (first)
            st = stage_part(h, s->algo, s->stage, pc, md, err);
    }
    return st;
}

sb_status sb_report_history(const sb_history *h, const char *title, const char *source, const char *floors,
                            const char *out_dir, sb_error *err)
{
    char plots[SB_PATH_MAX], path[SB_PATH_MAX];
    sb_status st = sb_path(plots, err, "%s/plots", out_dir);
    if (!st)
        st = sb_path(path, err, "%s/history.md", out_dir);
    if (!st)
        st = sb_mkdirs(plots, err);
    if (st || !h->nsnap)
        return st;
    plot_ctx pc = { .dir = plots, .gnuplot = report_gnuplot() };
    sb_atomic_file af;
    if ((st = sb_atomic_open(&af, path, err)))
        return st;
    page_head(h, title, source, floors, af.fp);
    st = page_body(h, &pc, af.fp, err);
    report_plots_draw(&pc);
    if (!st && pc.missing)
        fprintf(af.fp, "%d plots not drawn (gnuplot %s): their data and scripts are in `plots/`.\n", pc.missing,
                pc.gnuplot ? "failed" : "was not found");
    if (st) {
        sb_atomic_abort(&af);
        return st;
    }
    return sb_atomic_commit(&af, err);
}
