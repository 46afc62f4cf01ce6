/* console.c - the console reporter: one line a row on stdout, in the
 * columns bench has always printed, and the row's noise warnings on
 * stderr (reporter.h). */
#include "reporters/reporters.h"

#include "compare/noise.h"
#include "pages/report.h"

#include <stdio.h>

static sb_status console_row(sb_reporter *self, const sb_row_report *rr, sb_error *err)
{
    sb_console_state *c = self->state;
    if (rr->kind == SB_ROW_SKIPPED) {
        printf("%-9s %-6s %-14s t%-3d %-20s skipped: %s (%s)\n", rr->algo->name, rr->stage, rr->v->name, rr->threads,
               rr->image, rr->why, rr->detail);
        return SB_OK;
    }
    if (rr->kind == SB_ROW_CHECKED) {
        printf("%-9s %-6s %-14s t%-3d %-22s %-6s %s\n", rr->algo->name, rr->stage, rr->v->name, rr->threads,
               rr->image, rr->verdict, rr->metric);
        return SB_OK;
    }
    (void)err;
    const sb_row *row = rr->row;
    if (!c->quiet)
        printf("%-9s %-6s %-14s t%-3d %-20s %10.4f ms [%.4f-%.4f] n=%-4d frame %9.3f ms setup %8.3f ms "
               "%8.1f GB/s %5.1f%%  %s\n",
               row->algo, row->stage, row->variant, rr->threads, row->image, row->kernel.median, row->kernel.p25,
               row->kernel.p75, row->kernel.n, row->frame.median, row->setup.median, row->gbps,
               100.0 * row->peak_fraction, row->agreement);
    fflush(stdout);
    sb_noise_warn(stderr, rr->label, rr->noise, &row->kernel, row->peak_fraction);
    if (rr->noise & SB_NOISE_FLAG_UNSTABLE)
        sb_noise_warn_unstable(stderr, rr->label, row);
    sb_noise_warn_slower(stderr, rr->label, rr->noise, row, rr->serial_ms, rr->host_peak_1, rr->host_peak);
    return SB_OK;
}

/* The algorithm's speed-up tables, from the rows it measured. */
static sb_status console_end(sb_reporter *self, const char *dir, const sb_algo *algo, const sb_rows *measured,
                             int finished, sb_error *err)
{
    (void)dir, (void)err;
    const sb_console_state *c = self->state;
    if (finished && measured && measured->count > 0 && !c->quiet) {
        printf("\n");
        sb_report_speedup_tables(measured, algo, stdout);
    }
    return SB_OK;
}

/* A stream row's line, on stderr beside the run's other stream lines. */
static sb_status console_stream_row(sb_reporter *self, const sb_stream_row *row, sb_error *err)
{
    (void)err;
    const sb_console_state *c = self->state;
    char bound[64];
    sb_stream_bound_cell(row, bound, sizeof bound);
    if (!c->quiet)
        fprintf(stderr, "  stream %s/%s %s%s, %d in flight%s: %.1f frames/s, p99 %.3f ms, bound: %s, %s%s%s\n",
                row->algo, row->variant, row->sequence, sb_stream_source_note(row), row->in_flight,
                sb_stream_runs_note(row), row->fps, row->p99_ms, bound, row->agreement, row->flags[0] ? ", " : "",
                row->flags);
    return SB_OK;
}

void sb_console_reporter(sb_reporter *rep, sb_console_state *state)
{
    *rep = (sb_reporter){ .name = "console", .row = console_row, .end = console_end,
                          .stream_row = console_stream_row, .state = state };
}
