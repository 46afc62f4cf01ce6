/* report_tables.c - the report's tables for one stage (see report_parts.h). */
#include "pages/report_parts.h"

#include "pages/report.h"

#include <stdio.h>
#include <string.h>

/* Speedups by image-size group.  A floor (the speed-of-light copy) is not a
 * competitor: it is left out of the ranking and named under the table. */
void report_speedup_table(FILE *fp, const stage_view *sv, int best_cpu)
{
    fprintf(fp, "| variant | backend |");
    for (int g = 0; g < sv->ngroup; g++)
        fprintf(fp, " %s |", sv->group[g]);
    fprintf(fp, "\n|---|---|");
    for (int g = 0; g < sv->ngroup; g++)
        fprintf(fp, "---:|");
    fprintf(fp, "\n");
    int floors = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int v = 0; v < sv->nvar; v++) {
            if (view_is_floor(sv->var[v]) != pass)
                continue;
            if (pass)
                fprintf(fp, "%s*floor, not ranked:* `%s` (%s)", floors++ ? "; " : "\n", sv->var[v]->name,
                        sv->var[v]->summary);
            else
                fprintf(fp, "| %s | %s |", sv->var[v]->name, sv->var[v]->backend);
            for (int g = 0; g < sv->ngroup; g++) {
                int failed;
                double s = view_group_speedup(sv, sv->var[v]->name, g, best_cpu, &failed);
                const char *cell = pass ? (g ? ", %s %.*fx%s" : ": %s %.*fx%s") : " %s%.*fx%s |";
                const char *mark = view_group_unstable(sv, sv->var[v]->name, g, best_cpu) ? " \xc2\xa7" : "";
                if (failed || s <= 0)
                    fprintf(fp, pass ? "" : failed ? " FAIL |" : " - |");
                else
                    fprintf(fp, cell, pass ? sv->group[g] : "", s < 10 ? 2 : s < 100 ? 1 : 0, s, mark);
            }
            if (!pass)
                fprintf(fp, "\n");
        }
    if (floors)
        fprintf(fp, ".\n");
}

/* Kernel time by image-size group: what each variant costs as images
 * grow (a floor listed like the others: it is a time too). */
void report_time_table(FILE *fp, const stage_view *sv)
{
    fprintf(fp, "| variant | backend |");
    for (int g = 0; g < sv->ngroup; g++)
        fprintf(fp, " %s |", sv->group[g]);
    fprintf(fp, "\n|---|---|");
    for (int g = 0; g < sv->ngroup; g++)
        fprintf(fp, "---:|");
    fprintf(fp, "\n");
    for (int v = 0; v < sv->nvar; v++) {
        fprintf(fp, "| %s%s | %s |", sv->var[v]->name, view_is_floor(sv->var[v]) ? " (floor)" : "",
                sv->var[v]->backend);
        for (int g = 0; g < sv->ngroup; g++) {
            int failed;
            double ms = view_group_ms(sv, sv->var[v]->name, g, &failed);
            if (failed)
                fprintf(fp, " FAIL |");
            else if (ms <= 0)
                fprintf(fp, " - |");
            else
                fprintf(fp, ms >= 100 ? " %.0f%s |" : ms >= 1 ? " %.2f%s |" : " %.4f%s |", ms,
                        view_group_unstable(sv, sv->var[v]->name, g, -1) ? " \xc2\xa7" : "");
        }
        fprintf(fp, "\n");
    }
}

/* Every variant at the largest image, best thread count.  Memory-bound
 * stages (sv->memory_bound) show GB/s and the fraction of the measured
 * copy peak; compute-bound ones show megapixels per second.  A row measured
 * fewer than 3 times shows its value and a mark, not a range. */
void report_largest_table(FILE *fp, const stage_view *sv)
{
    const char *image = sv->img[sv->largest];
    const sb_row *ref_row = view_baseline_row(sv, image, 0);
    double ref = ref_row ? ref_row->kernel.median : 0.0;
    int bw = sv->memory_bound, few = 0, unstable = 0, noisy = 0;
    fprintf(fp, "| variant | backend | threads | kernel ms (median) | p25-p75 | n | per frame ms | setup ms | "
                "e2e ms | %s | vs cpu | agreement |\n|---|---|---:|---:|---:|---:|---:|---:|---:|%s---:|---|\n",
            bw ? "GB/s | % of peak" : "Mpx/s", bw ? "---:|---:|" : "---:|");
    for (int v = 0; v < sv->nvar; v++) {
        int failed;
        const sb_row *r = view_best_row(sv, sv->var[v]->name, image, &failed);
        if (!r && failed)
            r = view_find_row(sv, sv->var[v]->name, image, 0);   /* show the failed row itself */
        if (!r)
            continue;
        int floor = view_is_floor(sv->var[v]);
        char spread[64], rate[64], speed[32];
        if (r->kernel.n < 3) {
            snprintf(spread, sizeof spread, "n < 3");
            few = 1;
        } else {
            snprintf(spread, sizeof spread, "%.4f-%.4f", r->kernel.p25, r->kernel.p75);
        }
        if (bw)
            snprintf(rate, sizeof rate, "%.1f | %.1f%%", r->gbps, 100.0 * r->peak_fraction);
        else
            snprintf(rate, sizeof rate, "%.1f", r->kernel.median > 0 ? r->width * (double)r->height / 1e3 /
                                                                       r->kernel.median : 0.0);
        snprintf(speed, sizeof speed, "%.2fx%s", ref > 0 && r->kernel.median > 0 ? ref / r->kernel.median : 0.0,
                 sb_ratio_mark(ref_row, r));
        unstable |= sb_row_unstable(r);
        noisy |= strstr(sb_row_marks(r), "\xe2\x80\xa1") != NULL;
        char frame[32] = "-", setup[32] = "-";
        if (r->frame.n > 0) {
            snprintf(frame, sizeof frame, "%.3f", r->frame.median);
            snprintf(setup, sizeof setup, "%.3f", r->setup.median);
        }
        fprintf(fp, "| %s%s | %s | %d | %.4f%s | %s | %d | %s | %s | %.3f | %s | %s | %s |\n", r->variant,
                floor ? " (floor: speed of light)" : "", r->backend, r->threads, r->kernel.median, sb_row_marks(r),
                spread,
                r->kernel.n, frame, setup, r->e2e.median, rate, floor ? "-" : speed, r->agreement);
    }
    if (few)
        fprintf(fp, "\n† measured once or twice: each run took at least the time budget, so there is no spread "
                    "to show.\n");
    if (noisy)
        fprintf(fp, "\n\xe2\x80\xa1 flagged noisy (its flags column: spread, over the host peak, or a whole cold "
                    "run below a frame).\n");
    if (unstable)
        fprintf(fp, "\n\xc2\xa7 unstable: the row's interleaved rounds disagreed by more than 10 %%, or other "
                    "tenants took its CPUs (steal), or its CPUs or (a slow row) the host's memory ran slower than "
                    "their best in the run; another run may differ by more (its CSV's round_spread, steal, "
                    "cpu_slowdown and mem_slowdown columns).\n");
}

/* Kernel time and GB/s of each threaded variant at each thread count, at
 * the largest image. */
void report_thread_table(FILE *fp, const stage_view *sv)
{
    const char *image = sv->img[sv->sweep];
    if (view_thread_counts_at(sv, sv->sweep) < 2)
        return;                        /* no sweep at this stage */
    int counts[64], ncounts = 0;
    for (int i = 0; i < sv->rows->count; i++) {
        const sb_row *r = &sv->rows->row[i];
        int seen = 0;
        for (int k = 0; k < ncounts; k++)
            seen |= counts[k] == r->threads;
        if (view_row_is(r, sv->stage, NULL, image) && r->threads > 0 && !seen && ncounts < 64)
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
            const sb_row *cell = view_find_row(sv, sv->var[v]->name, image, counts[k]);
            if (cell)
                fprintf(fp, " %.3f ms%s, %.1f GB/s |", cell->kernel.median, sb_row_marks(cell), cell->gbps);
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
        report_largest_table(fp, &sv);
        fprintf(fp, "\nSpeedup of kernel time over the serial cpu reference (geometric mean over images of each size):\n\n");
        report_speedup_table(fp, &sv, 0);
        fprintf(fp, "\n");
    }
}

