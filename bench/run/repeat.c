/* repeat.c - how well a run repeats on this machine.
 *
 * At the end of a bench run, the rows of each algorithm's summary image
 * (cases/select.h: every stage, every variant) are measured again in the
 * same process with the same protocol, and each kernel median is compared
 * with the row's first one.  repeat.csv lists them; env.json and the
 * report's first screen give the share of CPU and of GPU rows within
 * SB_REPEAT_WITHIN.  --repeat auto (what make bench does) spends at most
 * REPEAT_SHARE (5 %) of the run's time on it, half what the issue allows,
 * to keep the run as short as it was: a case whose serial reference, or
 * a row whose runs, would not fit is left out -- the costliest first, so
 * what is left out is said, not hidden -- and the re-measure stops when
 * its time is spent. */
#include "run/state.h"

#include "base/csv.h"
#include "base/files.h"
#include "base/patterns.h"
#include "variants/names.h"
#include "variants/registry.h"

#include "segbench/clock.h"
#include "segbench/image_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SB_REPEAT_WITHIN 0.10
#define REPEAT_SHARE 0.05

/* repeat.csv's columns (reporters/repeat.c): the row, both medians, and
 * where it came from (run id, commit, machine, date). */
enum { REPEAT_FIELDS = 16 };

typedef struct repeat_tally {
    int cpu, cpu_within, gpu, gpu_within, left_out;
    double allowance_ms, began_ms, estimate_ms;
    sb_reporters *out;            /* where each row measured again goes (reporters/repeat.c) */
    const char *machine;          /* the run's machine id, for each line's provenance */
    sb_status wrote;              /* the first failure to report one */
    sb_error wrote_err;
} repeat_tally;

static int is_device(const sb_variant *v) { return (v->flags & SB_DEVICE) != 0; }

/* What measuring a row again will roughly cost: a fast row its budget and
 * a little; a slow one its runs and its check. */
static double row_cost_ms(const sb_row *row, double budget_ms)
{
    double runs = row->kernel.median * (row->kernel.n + 1);
    return runs > budget_ms ? runs : 1.3 * budget_ms;
}

/* Are we out of time (auto)?  on: never. */
static int over(const bench_run *r, const repeat_tally *t, double more_ms)
{
    return r->o->repeat == SB_REPEAT_AUTO &&
           (t->estimate_ms + more_ms > t->allowance_ms || sb_clock_ms() - t->began_ms > t->allowance_ms);
}

static void tally_row(repeat_tally *t, const sb_row *first, const sb_variant *v, const sb_measurement *m)
{
    double ratio = first->kernel.median > 0 ? m->kernel.median / first->kernel.median : 0.0;
    int within = ratio > 0 && fabs(ratio - 1.0) <= SB_REPEAT_WITHIN;
    if (is_device(v)) {
        t->gpu++;
        t->gpu_within += within;
    } else {
        t->cpu++;
        t->cpu_within += within;
    }
    sb_repeat_report rr = { .first = first, .again_median_ms = m->kernel.median, .again_n = m->kernel.n,
                            .ratio = ratio, .within = within, .machine = t->machine };
    if (!t->wrote)
        t->wrote = sb_reporters_repeat_row(t->out, &rr, &t->wrote_err);
}

/* One stage of the summary image: the rows chosen are measured again
 * (host rows in rounds, device rows one by one) and tallied. */
static sb_status repeat_case(bench_run *r, const sb_algo *algo, int stage, const sb_dataset_image *im,
                             const sb_row **first, const planned_row *plan, int n, repeat_tally *t, sb_error *err)
{
    sb_image loaded = { 0 };
    sb_status st = sb_image_load(im->path, algo->load_mode, &loaded, err);
    if (st)
        return st;
    sb_case_data cd;
    int usable = 0;
    char why[300];
    st = sb_case_open_image(&cd, r->memo, algo, stage, im, &loaded, &usable, why, sizeof why, err);
    sb_image_free(&loaded);
    if (st || !usable) {
        t->left_out += n;
        return st;
    }
    planned_row host[RUN_MAX_CASE_ROWS];
    const sb_row *host_first[RUN_MAX_CASE_ROWS];
    int nhost = 0;
    for (int k = 0; k < n; k++) {
        if (!is_device(plan[k].v)) {
            host_first[nhost] = first[k];
            host[nhost++] = plan[k];
            continue;
        }
        sb_measurement m;
        sb_error row_err;
        run_progress(r, "repeatability: a GPU row again");
        sb_timing_opts timing = run_row_timing(r, plan[k].v);
        sb_status st = sb_measure(&cd.c, plan[k].v, plan[k].threads, r->stream, &timing, &m, &row_err);
        run_device_row_done(r);
        if (st == SB_OK)
            tally_row(t, first[k], plan[k].v, &m);
        sb_measurement_free(&m);
    }
    host_result *res = nhost > 0 ? calloc((size_t)nhost, sizeof *res) : NULL;
    if (res) {
        run_host_measure(r, im, &cd.c, host, nhost, res);
        for (int k = 0; k < nhost; k++) {
            if (res[k].st == SB_OK)
                tally_row(t, host_first[k], host[k].v, &res[k].m);
            sb_measurement_free(&res[k].m);
        }
        free(res);
    } else {
        t->left_out += nhost;
    }
    run_progress_clear(r);
    sb_case_close(&cd);
    return SB_OK;
}

/* The summary image's rows of one algorithm, stage by stage. */
static sb_status repeat_algo(bench_run *r, const sb_algo *algo, repeat_tally *t, sb_error *err)
{
    char path[SB_PATH_MAX];
    sb_rows rows = { 0 };
    const sb_dataset_image *im = sb_summary_image(&r->ds, algo, run_size_caps(r));
    if (!im || sb_path(path, err, "%s/%s.csv", r->results_dir, algo->name) ||
        !run_csv_is_this_run(path, r->env.run_id, &rows))
        return SB_OK;
    sb_status st = SB_OK;
    for (int stage = 0; stage < algo->stage_count && !st; stage++) {
        planned_row plan[RUN_MAX_CASE_ROWS];
        const sb_row *first[RUN_MAX_CASE_ROWS];
        int n = 0, candidates = 0;
        double reference_ms = 0.0, rows_ms = 0.0;
        for (int i = 0; i < rows.count && n < RUN_MAX_CASE_ROWS; i++) {
            const sb_row *row = &rows.row[i];
            const sb_variant *v = sb_variant_find(algo->name, row->variant);
            if (strcmp(row->stage, algo->stages[stage]) != 0 || strcmp(row->image, im->name) != 0 || !v ||
                strcmp(row->agreement, "FAIL") == 0)
                continue;
            candidates++;
            if (v == sb_reference_variant(algo) && row->threads == 1)
                reference_ms = row->kernel.median;     /* opening the case runs it once */
            double cost = row_cost_ms(row, r->timing.budget_ms);
            if (over(r, t, reference_ms + rows_ms + cost))
                continue;
            rows_ms += cost;
            first[n] = row;
            plan[n++] = (planned_row){ v, row->threads };
        }
        if (n > 0 && over(r, t, reference_ms + rows_ms))
            n = 0;                                   /* its reference alone is too slow */
        t->left_out += candidates - n;
        if (n == 0)
            continue;
        t->estimate_ms += reference_ms + rows_ms;
        st = repeat_case(r, algo, stage, im, first, plan, n, t, err);
    }
    sb_rows_free(&rows);
    return st;
}

static int percent(int part, int whole) { return whole ? (int)lround(100.0 * part / whole) : 0; }

/* A run of some algorithms into a set that holds others (their rows stay,
 * results.md) keeps their lines of the old repeat.csv too (into *kept_text,
 * for the reporter), and counts them: the set's repeatability is of all
 * its rows, not of the last invocation's few.  Returns how many lines
 * were kept. */
static int keep_others(const char *old, const char *algos, repeat_tally *t, char **kept_text)
{
    int kept = 0;
    size_t kept_len = 0;
    FILE *out = open_memstream(kept_text, &kept_len);
    if (!out)
        return 0;
    const char *line = old ? strchr(old, '\n') : NULL;            /* past the header */
    for (line = line ? line + 1 : NULL; line && *line;) {
        size_t len = strcspn(line, "\n");
        char *copy = strndup(line, len), *f[REPEAT_FIELDS + 1];
        int nf = copy ? sb_csv_split(copy, f, REPEAT_FIELDS + 1) : 0;
        /* a line of before the provenance columns: kept with them empty (not known) */
        if ((nf == REPEAT_FIELDS || nf == REPEAT_FIELDS - 4) && !sb_pattern_match(algos, f[0])) {
            const sb_variant *v = sb_variant_find(f[0], f[2]);
            int within = strcmp(f[10], "yes") == 0;
            if (v && is_device(v)) {
                t->gpu++;
                t->gpu_within += within;
            } else {
                t->cpu++;
                t->cpu_within += within;
            }
            fprintf(out, "%.*s%s\n", (int)len, line, nf == REPEAT_FIELDS ? "" : ",,,,");
            kept++;
        }
        free(copy);
        line += len + (line[len] == '\n');
    }
    fclose(out);
    return kept;
}

sb_status run_repeat(bench_run *r, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    if (!r->pipe->keeps || o->repeat == SB_REPEAT_OFF)
        return SB_OK;
    repeat_tally t = { 0 };
    t.began_ms = sb_clock_ms();
    t.allowance_ms = REPEAT_SHARE * (t.began_ms - r->begun_ms + 1000.0 * r->seconds_before);
    t.out = &r->out;
    t.machine = r->env.machine_id;
    char path[SB_PATH_MAX], *kept_text = NULL;
    sb_status st = sb_path(path, err, "%s/repeat.csv", r->results_dir);
    char *old = st ? NULL : sb_read_text(path);
    int kept = st ? 0 : keep_others(old, o->algos, &t, &kept_text);
    free(old);
    if (!st)
        st = sb_reporters_repeat_begin(&r->out, kept_text, err);
    free(kept_text);
    if (st)
        return st;
    for (int i = 0; i < sb_algo_count() && !st; i++)
        if (sb_pattern_match(o->algos, sb_algo_at(i)->name))
            st = repeat_algo(r, sb_algo_at(i), &t, err);
    if (!st && t.wrote) {
        st = t.wrote;
        *err = t.wrote_err;
    }
    sb_error end_err;
    sb_status ended = sb_reporters_repeat_end(&r->out, !st, &end_err);
    if (!st && ended) {
        st = ended;
        *err = end_err;
    }
    if (st)
        return st;
    double seconds = (sb_clock_ms() - t.began_ms) / 1000.0;
    char left[240] = "";
    if (t.left_out)
        snprintf(left, sizeof left, "; %d row(s) left out, too slow for 5 %% of the run", t.left_out);
    if (kept)
        snprintf(left + strlen(left), sizeof left - strlen(left), "; %d of them from the earlier run of the set's "
                 "other algorithms", kept);
    /* each kind the run measured again, and only those: a machine
     * without a GPU has no GPU rows to speak of */
    char kinds[120] = "no row";
    int cpu_share = percent(t.cpu_within, t.cpu), gpu_share = percent(t.gpu_within, t.gpu);
    if (t.cpu && t.gpu)
        snprintf(kinds, sizeof kinds, "%d %% of %d CPU rows and %d %% of %d GPU rows", cpu_share, t.cpu,
                 gpu_share, t.gpu);
    else if (t.cpu)
        snprintf(kinds, sizeof kinds, "%d %% of %d CPU rows", cpu_share, t.cpu);
    else if (t.gpu)
        snprintf(kinds, sizeof kinds, "%d %% of %d GPU rows", gpu_share, t.gpu);
    char line[sizeof r->env.repeatability];
    snprintf(line, sizeof line,
             "%s within 10 %% of their first measurement "
             "(the summary image's rows, measured again at the end of the run in %.0f s%s; repeat.csv)",
             kinds, seconds, left);
    run_record_repeatability(r, line, (const int[2]){ t.cpu_within, t.cpu }, (const int[2]){ t.gpu_within, t.gpu });
    run_spend(r, RUN_SPENT_REPEAT, seconds * 1000.0);
    fprintf(stderr, "repeatability on this machine: %s\n", line);
    return SB_OK;
}
