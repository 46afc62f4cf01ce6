/* report_lessons.c - lessons-<algo>.md: an algorithm's CUDA ladder as the
 * tree its SB_RUNG lines declare, and for each edge its idea, what it
 * bought (kernel and per-frame medians at the stage's summary image), what
 * changed in the kernel census, whether it is on the main line, and the
 * steps that lost (see report_parts.h, lessons.h). */
#include "pages/report_parts.h"

#include "course/lessons.h"
#include "course/lesson_share.h"
#include "pages/report_limits.h"
#include "segbench/atomic_file.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_RUNGS = 32 };

/* The stage's limit (the report's: the larger of its memory floor and the
 * issue floor of its fastest rung's profile) over a rung's kernel median:
 * 100 % is the limit itself. */
static void of_limit(const stage_limit *lim, double kernel_ms, char *out, size_t size)
{
    if (lim->limit_ms > 0 && kernel_ms > 0)
        snprintf(out, size, "%.0f %%", 100.0 * lim->limit_ms / kernel_ms);
    else
        snprintf(out, size, "-");
}

static void edges_table(FILE *md, const sb_algo *algo, const sb_rows *rows, const char *results_dir, int stage_index,
                        double copy_gbps, const profile_set *p)
{
    const char *stage = algo->stages[stage_index];
    const sb_variant *list[MAX_RUNGS];
    int n = lesson_rungs(algo->name, list, MAX_RUNGS), lost = 0;
    stage_limit lim;
    stage_limit_of(rows, algo, stage_index, copy_gbps, p, &lim);
    fprintf(md, "| parent → rung | the idea | kernel ms | gain | %% of limit | per frame ms | gain | census: what "
                "changed | line | idea | source |\n|---|---|---:|---:|---:|---:|---:|---|---|---:|---|\n");
    for (int i = 0; i < n; i++) {
        lesson_edge e;
        lesson_edge_measure(&e, list[i], rows, results_dir, stage);
        char g[32], gf[32], census[240], src[300], t[32] = "-", tf[32] = "-", pct[32];
        of_limit(&lim, e.kernel_ms, pct, sizeof pct);
        lesson_gain_judged(&e, g, sizeof g);
        lesson_frame_gain(&e, gf, sizeof gf);
        lesson_census_text(&e, census, sizeof census);
        report_variant_source(list[i], src, sizeof src);
        if (e.kernel_ms > 0)
            snprintf(t, sizeof t, "%.4g", e.kernel_ms);
        if (e.frame_ms > 0)
            snprintf(tf, sizeof tf, "%.4g", e.frame_ms);
        int main_line = lesson_on_main_line(list[i], rows, stage);
        char idea[16] = "-";
        lesson_share share;
        sb_error ignored;
        if (lesson_edge_share(list[i], &share, &ignored) > 0 && share.changed)
            snprintf(idea, sizeof idea, "%.0f %%", 100.0 * share.idea / share.changed);
        fprintf(md, "| %s%s%s`%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s%s%s |\n",
                e.parent ? "`" : "*root* ", e.parent ? e.parent->name : "", e.parent ? "` → " : "",
                list[i]->name, report_md(REPORT_TEXT, list[i]->idea), t, e.parent ? g : "", pct, tf,
                e.parent ? gf : "", census, !e.parent ? "root" : main_line ? "main" : "branch", idea,
                src[0] ? "[" : "", src, src[0] ? "](../../" : "", src, src[0] ? ")" : "");
        lost += lesson_edge_lost(&e);
    }
    if (!lost)
        return;
    fprintf(md, "\n**Tried and lost** (called slower than the rung they grow from as `compare` calls it -- the "
                "whole 95 %% interval of their rounds' ratio beyond 1 and the machine's noise floor -- kept because "
                "a course learns from them too):\n\n");
    for (int i = 0; i < n; i++) {
        lesson_edge e;
        lesson_edge_measure(&e, list[i], rows, results_dir, stage);
        if (lesson_edge_lost(&e))
            fprintf(md, "- `%s` from `%s`: %.2fx slower (%.4g against %.4g ms): %s\n", list[i]->name, e.parent->name,
                    e.kernel_ms / e.parent_kernel_ms, e.kernel_ms, e.parent_kernel_ms, report_md(REPORT_TEXT, list[i]->idea));
    }
}

/* The runs whose rows the page quotes, each with its commit and date: the
 * rung files hold no numbers, so this page is where an edge's gain is
 * found with the run that measured it. */
static void runs_line(FILE *md, const char *results_dir, const char *algo, const sb_rows *rows)
{
    enum { MOST = 4 };
    const sb_row *seen[MOST];
    int n = 0, more = 0;
    for (int i = 0; i < rows->count; i++) {
        const sb_row *r = &rows->row[i];
        int known = 0;
        for (int k = 0; k < n && !known; k++)
            known = strcmp(seen[k]->run_id, r->run_id) == 0;
        if (known)
            continue;
        if (n < MOST)
            seen[n++] = r;
        else
            more++;
    }
    if (!n)
        return;
    fprintf(md, "The numbers: `%s/%s.csv`, run%s ", results_dir, algo, n + more > 1 ? "s" : "");
    for (int k = 0; k < n; k++)
        fprintf(md, "%s`%s` (commit %.7s, %.10s)", k ? ", " : "", seen[k]->run_id, seen[k]->commit, seen[k]->date);
    if (more)
        fprintf(md, " and %d more", more);
    fprintf(md, ".\n\n");
}

sb_status report_lessons_page(const char *results_dir, const char *out_dir, const sb_algo *algo, const sb_rows *rows,
                              double copy_gbps, const profile_set *p, const stream_set *streams, sb_error *err)
{
    const sb_variant *list[MAX_RUNGS];
    if (lesson_rungs(algo->name, list, MAX_RUNGS) == 0)
        return SB_OK;
    char *text = NULL, notes[300];
    size_t len = 0;
    FILE *md = open_memstream(&text, &len);
    if (!md)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    report_notes_path(algo->name, notes, sizeof notes);
    fprintf(md, "# %s: the lessons\n\n[Back to the report](REPORT.md) · [%s's page](%s.md)%s%s%s\n\n"
                "The CUDA rungs as a tree: each rung under the rung it grows from (the `SB_RUNG` line in its file), "
                "with the one idea of that edge.  A gain is the parent's median over the rung's at the stage's "
                "summary image: kernel time, and per frame (upload + run + fetch).  The kernel gain is judged as "
                "`compare` judges two rows (docs/measuring.md, \"Verdicts\"): *1.18x \xc2\xb1" "2 %%* where the rounds "
                "call the two apart (the half-width of the 95 %% interval), *same (1.01x)* where the interval lies "
                "inside the machine's noise floor, *(undetermined)* where the interval crosses the floor, *(one "
                "round)* where a side has a single round (a result set from before rounds were kept, or a slow "
                "row): no interval, so no call, whatever the ratio.  A per-frame gain reads "
                "*- (outlier)* where either side's upload and download took far longer than the stage's other "
                "rungs' there (over 1.5x their median, and over 5 %% of its frame): a disturbed time, not a gain.  "
                "The census compares the "
                "rungs' kernels: the most registers a thread and shared memory a block, the lowest theoretical "
                "occupancy.  *%% of limit* is the stage's limit (the report's: the larger of its memory floor at this "
                "machine's copy rate and the issue floor of its fastest rung's profile) over the rung's kernel "
                "median: 100 %% would be the limit itself.  *Main* edges lead from the root to the rung the tree declares its top (`SB_LADDER_TOP`: the "
                "lesson plan's last step, whatever a run's near-ties say); *branches* vary a rung without leading "
                "there.  *Idea* is the share of the lines the edge's lesson shows changed in this tree (its diff and the headers "
                "its file lends) that is code rather than opening comment, includes or registration "
                "(`segbench lesson --share`; issue 78's goal: 70 %%).  `segbench lesson %s/RUNG` prints one edge with "
                "`diff -u` of the two files.\n\n",
            algo->name, algo->name, algo->name, notes[0] ? " · what was tried: [NOTES.md](../../" : "", notes,
            notes[0] ? ")" : "", algo->name);
    runs_line(md, results_dir, algo->name, rows);
    for (int s = 0; s < algo->stage_count; s++) {
        stage_view sv;
        view_build(&sv, rows, algo->name, algo->stages[s]);
        if (sv.nimg == 0)
            continue;
        fprintf(md, "## Stage %s, at %s\n\n```text\n", algo->stages[s], report_md(REPORT_TEXT, sv.img[sv.largest]));
        lesson_tree_print(md, algo->name, rows, results_dir, algo->stages[s]);
        fprintf(md, "```\n\n");
        edges_table(md, algo, rows, results_dir, s, copy_gbps, p);
        fprintf(md, "\n");
    }
    report_streams_in_flight(md, streams);
    fclose(md);
    char path[1400];
    snprintf(path, sizeof path, "%s/lessons-%s.md", out_dir, algo->name);
    sb_status st = sb_atomic_write_text(path, text, err);
    free(text);
    return st;
}
