/* compare_streams.c - two sets' stream rows side by side (compare_streams.h). */
#include "compare/compare_streams.h"

#include "base/files.h"
#include "base/patterns.h"
#include "variants/names.h"
#include "variants/registry.h"
#include "io/stream_rows.h"

#include <stdlib.h>
#include <string.h>

static int same_row(const sb_stream_row *a, const sb_stream_row *b)
{
    return !strcmp(a->algo, b->algo) && !strcmp(a->stage, b->stage) && !strcmp(a->variant, b->variant) &&
           a->threads == b->threads && a->in_flight == b->in_flight && !strcmp(a->runs, b->runs) &&
           !strcmp(a->sequence, b->sequence) && !strcmp(a->source, b->source);
}

static void read_set(const char *dir, const char *algo, sb_stream_row **rows, int *n)
{
    char path[SB_PATH_MAX];
    sb_error ignored;
    snprintf(path, sizeof path, "%s/%s.stream.csv", dir, algo);
    if (sb_stream_rows_read(path, rows, n, &ignored) != SB_OK) {
        *rows = NULL;
        *n = 0;
    }
}

/* One line: the two rates, their ratio and the verdict. */
static void print_line(FILE *fp, const sb_stream_row *a, const sb_stream_row *b)
{
    char who[320];
    snprintf(who, sizeof who, "%s %s %s%s%.0d K=%d%s %s%s", a->algo, a->stage, a->variant, a->threads > 1 ? "@" : "",
             a->threads > 1 ? a->threads : 0, a->in_flight, strcmp(a->runs, "in-turn") ? "" : " in turn", a->sequence,
             sb_stream_source_note(a));
    if (!b) {
        fprintf(fp, "  %-58s %12.1f %12s  only in the baseline\n", who, a->fps, "-");
        return;
    }
    double ratio = a->fps > 0 ? b->fps / a->fps : 0;
    int flagged = a->flags[0] || b->flags[0];
    const char *verdict = !strcmp(b->agreement, "FAIL")          ? "FAIL (the current row broke its contract)"
                          : flagged || (ratio > 1.0 - SB_STREAM_SAME && ratio < 1.0 + SB_STREAM_SAME) ? "same"
                          : ratio > 1.0                          ? "faster"
                                                                 : "slower";
    fprintf(fp, "  %-58s %12.1f %12.1f  %5.2fx  %s%s%s%s\n", who, a->fps, b->fps, ratio, verdict,
            flagged ? " (flagged: " : "", flagged ? (b->flags[0] ? b->flags : a->flags) : "", flagged ? ")" : "");
}

int sb_compare_stream_rows(const char *baseline, const char *current, const char *algos, const char *variants,
                           FILE *fp)
{
    int compared = 0, header = 0;
    for (int i = 0; i < sb_algo_count(); i++) {
        const char *algo = sb_algo_at(i)->name;
        if (!sb_pattern_match(algos, algo))
            continue;
        sb_stream_row *base, *cur;
        int nb, nc;
        read_set(baseline, algo, &base, &nb);
        read_set(current, algo, &cur, &nc);
        for (int b = 0; b < nb; b++) {
            if (!sb_variant_match(variants, algo, base[b].variant))
                continue;
            if (!header++)
                fprintf(fp, "\nstream rows (<algo>.stream.csv), frames/s, current against baseline: one measurement "
                            "each, so *same* within %.0f %% or when either is flagged\n  %-58s %12s %12s\n",
                        100.0 * SB_STREAM_SAME, "", "baseline", "current");
            const sb_stream_row *match = NULL;
            for (int c = 0; c < nc && !match; c++)
                if (same_row(&base[b], &cur[c]))
                    match = &cur[c];
            print_line(fp, &base[b], match);
            compared += match != NULL;
        }
        for (int c = 0; c < nc; c++) {
            int in_base = 0;
            for (int b = 0; b < nb && !in_base; b++)
                in_base = same_row(&base[b], &cur[c]);
            if (!in_base && sb_variant_match(variants, algo, cur[c].variant))
                fprintf(fp, "  %s %s %s K=%d%s %s%s: only in the current (%.1f frames/s)\n", algo, cur[c].stage,
                        cur[c].variant, cur[c].in_flight, strcmp(cur[c].runs, "in-turn") ? "" : " in turn",
                        cur[c].sequence, sb_stream_source_note(&cur[c]), cur[c].fps);
        }
        free(base);
        free(cur);
    }
    return compared;
}
