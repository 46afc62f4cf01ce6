/* profile_edge.c - one edge under Nsight Compute (profile_edge.h): what
 * the lesson changed in the counters, not only in the time.  The times
 * are ncu's (each kernel replayed alone, caches flushed), longer than the
 * timed runs: read them as a ratio. */
#include "profile/profile_edge.h"

#include "profile/limits.h"

#include <string.h>

/* One counter of the two sides: its values and the change. */
static void counter(FILE *fp, const char *what, double parent, double rung, const char *fmt)
{
    char a[32], b[32];
    snprintf(a, sizeof a, fmt, parent);
    snprintf(b, sizeof b, fmt, rung);
    fprintf(fp, "  %-34s %16s %16s", what, a, b);
    if (parent > 0 && rung > 0)
        fprintf(fp, "   %.2fx\n", rung / parent);
    else
        fprintf(fp, "\n");
}

static void kernels(FILE *fp, const profile_set *p, const profile_line *total)
{
    fprintf(fp, "  %s's kernels:", total->variant);
    for (int i = 0; i < p->count; i++) {
        const profile_line *l = &p->line[i];
        if (strcmp(l->kernel, "(all)") && !strcmp(l->stage, total->stage) && !strcmp(l->variant, total->variant) &&
            !strcmp(l->image, total->image))
            fprintf(fp, "\n    %-60.60s %3d launch%s %9.4f ms  %5.1f %% issue  %5.1f %% occupancy  %s", l->kernel,
                    l->launches, l->launches == 1 ? ", " : "es,", l->duration_ms, l->issue_pct, l->occupancy_pct,
                    l->top_stall);
    }
    fprintf(fp, "\n");
}

static void edge_stage(FILE *fp, const profile_set *p, const profile_line *r, const profile_line *q)
{
    fprintf(fp, "%s at %s: %s -> %s (Nsight Compute, one checked run each)\n", r->stage, r->image, q->variant,
            r->variant);
    fprintf(fp, "  %-34s %16s %16s   change\n", "", q->variant, r->variant);
    counter(fp, "time under ncu, ms", q->duration_ms, r->duration_ms, "%.4f");
    counter(fp, "kernel launches", q->launches, r->launches, "%.0f");
    counter(fp, "DRAM bytes, MB", q->dram_bytes / 1e6, r->dram_bytes / 1e6, "%.2f");
    counter(fp, "DRAM throughput, % of the copy", 100 * q->dram_fraction, 100 * r->dram_fraction, "%.1f");
    counter(fp, "L2 throughput, % of peak", q->l2_pct, r->l2_pct, "%.1f");
    counter(fp, "issue slots busy, %", q->issue_pct, r->issue_pct, "%.1f");
    counter(fp, "achieved occupancy, %", q->occupancy_pct, r->occupancy_pct, "%.1f");
    counter(fp, "warp instructions, millions", q->warp_insts / 1e6, r->warp_insts / 1e6, "%.3f");
    counter(fp, "issue floor, ms", q->issue_floor_ms, r->issue_floor_ms, "%.4f");
    fprintf(fp, "  %-34s %16.16s %16.16s\n", "top stall", q->top_stall, r->top_stall);
    kernels(fp, p, q);
    kernels(fp, p, r);
}

sb_status profile_edge_print(const char *results_dir, const sb_variant *rung, FILE *fp, sb_error *err)
{
    const sb_variant *parent = rung->parent ? sb_variant_find(rung->algo, rung->parent) : NULL;
    if (!parent)
        return sb_fail(err, SB_ERR_USAGE, "%s is a root: it grows from no rung, so it has no edge to profile",
                       rung->who);
    profile_set p;
    if (!profile_read(results_dir, rung->algo, &p))
        return sb_fail(err, SB_ERR_IO, "%s/%s.profile.csv: no profile there (make profile ALGO=%s RUNG=%s makes one)",
                       results_dir, rung->algo, rung->algo, rung->name);
    int shown = 0;
    for (int i = 0; i < p.count; i++) {
        const profile_line *r = &p.line[i];
        if (strcmp(r->kernel, "(all)") || strcmp(r->variant, rung->name))
            continue;
        const profile_line *q = profile_total(&p, r->stage, parent->name, r->image);
        if (!q)
            continue;
        fprintf(fp, "%s", shown++ ? "\n" : "");
        edge_stage(fp, &p, r, q);
    }
    profile_free(&p);
    if (!shown)
        return sb_fail(err, SB_ERR_USAGE, "%s/%s.profile.csv has no stage with both %s and its parent %s at one image",
                       results_dir, rung->algo, rung->name, parent->name);
    return SB_OK;
}
