/* compare_table.c - compare's lines, verdict and exports (see compare_table.h). */
#include "compare/compare_table.h"

#include "base/csv.h"
#include "base/grow.h"
#include "base/json_out.h"
#include "compare/noise.h"
#include "io/rows.h"
#include "machine/env.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

sb_status sb_compare_table_open(sb_compare_table *t, const char *mode, const char *a, const char *b, double fdr,
                                const char *json_path, const char *csv_path, sb_error *err)
{
    memset(t, 0, sizeof *t);
    sb_env env;                                /* the exports say where they came from */
    sb_env_collect(&env, 0, NULL, 0);
    snprintf(t->machine, sizeof t->machine, "%s", env.machine_id);
    snprintf(t->date, sizeof t->date, "%s", env.date);
    snprintf(t->commit, sizeof t->commit, "%s%s", env.commit, env.dirty == 1 ? "-dirty" : "");
    t->mode = mode;
    t->a = a;
    t->b = b;
    t->fdr = fdr;
    sb_status st = SB_OK;
    if (json_path && !(st = sb_atomic_open(&t->json, json_path, err)))
        t->have_json = 1;
    if (!st && csv_path && !(st = sb_atomic_open(&t->csv, csv_path, err)))
        t->have_csv = 1;
    if (st && t->have_json) {
        sb_atomic_abort(&t->json);
        t->have_json = 0;
    }
    return st;
}

sb_compare_line *sb_compare_table_add(sb_compare_table *t, const char *algo, const char *stage, const char *label)
{
    sb_compare_line *grown = sb_grow(t->line, &t->cap, t->count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    if (grown != t->line)
        t->printed = NULL;     /* it pointed into the old array */
    t->line = grown;
    sb_compare_line *l = &t->line[t->count++];
    memset(l, 0, sizeof *l);
    snprintf(l->algo, sizeof l->algo, "%s", algo);
    snprintf(l->stage, sizeof l->stage, "%s", stage);
    snprintf(l->label, sizeof l->label, "%s", label);
    return l;
}

static double *copy_samples(const double *ms, int n)
{
    double *copy = malloc((size_t)(n > 0 ? n : 1) * sizeof *copy);
    if (copy && n > 0)
        memcpy(copy, ms, (size_t)n * sizeof *copy);
    return copy;
}

sb_status sb_compare_line_judge(sb_compare_line *line, const double *a, int na, const double *b, int nb,
                                double floor, double min_diff, sb_error *err)
{
    line->kind = SB_LINE_JUDGED;
    if (!(line->a_ms = copy_samples(a, na)) || !(line->b_ms = copy_samples(b, nb)))
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_summarize(a, na, &line->a);
    sb_summarize(b, nb, &line->b);
    sb_effect_judge_min(a, na, b, nb, floor, min_diff, &line->eff);
    line->first_call = line->eff.call;
    line->noise_a = sb_noise_spread_flag(&line->a);
    line->noise_b = sb_noise_spread_flag(&line->b);
    line->kind_of_row = -1;
    return SB_OK;
}

sb_status sb_compare_line_judge_paired(sb_compare_line *line, const double *a, const double *b, const double *log_ratio,
                                       int n, double floor, double min_diff, sb_error *err)
{
    sb_status st = sb_compare_line_judge(line, a, n, b, n, floor, min_diff, err);
    if (!st) {
        sb_effect_judge_paired(log_ratio, n, floor, min_diff, SB_EVIDENCE_LEVEL, &line->eff);
        line->first_call = line->eff.call;
    }
    return st;
}

void sb_compare_line_work(sb_compare_line *line, const char *work_a, int varies_a, const char *work_b, int varies_b)
{
    if (line->kind != SB_LINE_JUDGED || !work_a[0] || !work_b[0])
        return;
    if (varies_a || varies_b)
        snprintf(line->note, sizeof line->note, "work varied between the %s's rounds: %s against %s",
                 varies_a && varies_b ? "two sides" : varies_a ? "baseline" : "current side", work_a, work_b);
    else if (strcmp(work_a, work_b) != 0)
        snprintf(line->note, sizeof line->note, "work: %s against %s", work_a, work_b);
    else
        return;
    line->eff.call = line->first_call = SB_CALL_WORK_DIFFERS;
}

void sb_compare_table_warn(sb_compare_table *t, const char *fmt, ...)
{
    if (t->nwarnings == SB_COMPARE_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->warning[t->nwarnings++], sizeof t->warning[0], fmt, ap);
    va_end(ap);
}

void sb_compare_table_print_warnings(const sb_compare_table *t, FILE *fp)
{
    for (int i = 0; i < t->nwarnings; i++)
        fprintf(fp, "warning: %s\n", t->warning[i]);
    fflush(fp);
}

enum { LABEL_WIDTH = 36 };

void sb_compare_table_print_header(sb_compare_table *t, FILE *fp)
{
    fprintf(fp, "%-*s %10s %10s  %-22s %6s %6s  %s\n", LABEL_WIDTH, "", "A ms", "B ms", "B/A [95% interval]",
            "floor", "rounds", "B is");
    t->printed = NULL;
}

static void count_line(sb_compare_tally *t, const sb_compare_line *l)
{
    switch (l->kind) {
    case SB_LINE_JUDGED:
        t->faster += l->eff.call == SB_CALL_FASTER;
        t->slower += l->eff.call == SB_CALL_SLOWER;
        t->same += l->eff.call == SB_CALL_SAME;
        t->undetermined += l->eff.call == SB_CALL_UNDETERMINED;
        t->work_differs += l->eff.call == SB_CALL_WORK_DIFFERS;
        if (l->eff.ratio > 0 && isfinite(l->eff.ratio)) {
            t->log_ratio_sum += log(l->eff.ratio);
            t->ratios++;
        }
        if (l->kind_of_row >= 0 && l->other_code) {
            t->aa[l->kind_of_row].other_code++;
        } else if (l->kind_of_row >= 0 && l->eff.ratio > 0) {
            sb_aa_tally *aa = &t->aa[l->kind_of_row];
            double far = l->eff.ratio > 1 ? l->eff.ratio : 1.0 / l->eff.ratio;
            int unstable = l->unstable_a || l->unstable_b;   /* either side's flag excuses the pair */
            aa->rows++;
            aa->flagged_a += l->unstable_a;
            aa->flagged_b += l->unstable_b;
            if (fabs(l->eff.ratio - 1.0) <= SB_AA_WITHIN)
                aa->within++;
            else if (unstable)
                aa->flagged_out++;
            if (far > SB_AA_FAR && !unstable)
                aa->far_unflagged++;
        }
        break;
    case SB_LINE_FAILED: t->failed++; break;
    case SB_LINE_SKIPPED: t->skipped++; break;
    case SB_LINE_ONLY_BASELINE: t->only_baseline++; break;
    case SB_LINE_ONLY_CURRENT: t->only_current++; break;
    }
}

void sb_compare_table_print_line(sb_compare_table *t, sb_compare_line *l, FILE *fp)
{
    if (!t->printed || strcmp(t->printed->algo, l->algo) || strcmp(t->printed->stage, l->stage))
        fprintf(fp, "%s, stage %s\n", l->algo, l->stage);
    t->printed = l;
    char label[sizeof l->label + 2], words[96], interval[32] = "", rounds[16];
    snprintf(label, sizeof label, "  %s", l->label);   /* a long label pushes its line right */
    switch (l->kind) {
    case SB_LINE_JUDGED:
        sb_effect_words(&l->eff, words, sizeof words);
        if (l->eff.lo > 0)
            snprintf(interval, sizeof interval, "[%6.3f, %6.3f]", l->eff.lo, l->eff.hi);
        snprintf(rounds, sizeof rounds, "%d/%d", l->eff.na, l->eff.nb);
        fprintf(fp, "%-*s %10.4f %10.4f  %6.3f %-16s %5.1f%% %6s  %s%s%s%s%s%s\n", LABEL_WIDTH, label, l->a.median,
                l->b.median, l->eff.ratio, interval, 100.0 * l->eff.floor, rounds, words, l->note[0] ? " (" : "",
                l->note, l->note[0] ? ")" : "", (l->noise_a | l->noise_b) ? " noisy" : "",
                l->other_code ? " [other code]" : "");
        break;
    case SB_LINE_ONLY_BASELINE:
        fprintf(fp, "%-*s %10.4f %10s  only in the baseline\n", LABEL_WIDTH, label, l->a.median, "-");
        break;
    case SB_LINE_ONLY_CURRENT:
        fprintf(fp, "%-*s %10s %10.4f  only in the current set\n", LABEL_WIDTH, label, "-", l->b.median);
        break;
    case SB_LINE_FAILED: fprintf(fp, "%-*s FAILED: %s\n", LABEL_WIDTH, label, l->note); break;
    case SB_LINE_SKIPPED: fprintf(fp, "%-*s %s\n", LABEL_WIDTH, label, l->note); break;
    }
    fflush(fp);
}

void sb_compare_table_finish(sb_compare_table *t, FILE *fp)
{
    sb_effect **eff = malloc((size_t)(t->count > 0 ? t->count : 1) * sizeof *eff);
    int n = 0;
    for (int i = 0; eff && i < t->count; i++)
        if (t->line[i].kind == SB_LINE_JUDGED)
            eff[n++] = &t->line[i].eff;
    memset(&t->tally, 0, sizeof t->tally);
    if (eff)
        sb_effects_fdr(eff, n, t->fdr, &t->tally.expected_false);
    free(eff);
    for (int i = 0; i < t->count; i++) {
        sb_compare_line *l = &t->line[i];
        if (l->kind == SB_LINE_JUDGED && l->eff.call != l->first_call) {
            if (!t->tally.demoted++)
                fprintf(fp, "\nheld to a false-discovery rate of %.0f %% over the %d rows judged, these calls are "
                            "undetermined after all:\n", 100.0 * t->fdr, n);
            fprintf(fp, "  %s %s %s: was %s (p %.2g)\n", l->algo, l->stage, l->label, sb_call_name(l->first_call),
                    l->eff.p);
        }
        count_line(&t->tally, l);
    }
    fflush(fp);
}

void sb_compare_table_print_noise(const sb_compare_table *t, FILE *fp)
{
    for (int i = 0; i < t->count; i++) {
        const sb_compare_line *l = &t->line[i];
        char label[400];
        if (l->noise_a) {
            snprintf(label, sizeof label, "A (%s) on %s %s %s", t->a, l->algo, l->stage, l->label);
            sb_noise_warn(fp, label, l->noise_a, &l->a, 0.0);
        }
        if (l->noise_b) {
            snprintf(label, sizeof label, "B (%s) on %s %s %s", t->b, l->algo, l->stage, l->label);
            sb_noise_warn(fp, label, l->noise_b, &l->b, 0.0);
        }
    }
    fflush(fp);
}

void sb_compare_table_print_verdict(const sb_compare_table *t, FILE *fp)
{
    const sb_compare_tally *c = &t->tally;
    fprintf(fp, "\nB against A: faster on %d, slower on %d, same on %d, undetermined on %d", c->faster, c->slower,
            c->same, c->undetermined);
    if (c->work_differs)
        fprintf(fp, ", work differs on %d", c->work_differs);
    if (c->failed)
        fprintf(fp, ", FAILED on %d", c->failed);
    if (c->skipped)
        fprintf(fp, ", not compared on %d", c->skipped);
    if (c->only_baseline || c->only_current)
        fprintf(fp, "; only in the baseline %d, only in the current set %d", c->only_baseline, c->only_current);
    if (c->ratios)
        fprintf(fp, "; geometric mean time ratio B/A %.3f", exp(c->log_ratio_sum / c->ratios));
    fprintf(fp, "\n");
    if (c->faster + c->slower)
        fprintf(fp, "of the %d calls, about %.1f may be false (false-discovery rate %.0f %%)\n", c->faster + c->slower,
                c->expected_false, 100.0 * t->fdr);
    if (t->floor_source[0])
        fprintf(fp, "noise floor: %s\n", t->floor_source);
    if (c->undetermined)
        fprintf(fp, "undetermined: the interval straddles the floor, or one side has fewer than 2 rounds; the line "
                    "says how many rounds a side would likely settle it\n");
    if (c->work_differs)
        fprintf(fp, "work differs: the two sides made different passes or rounds (the CSV's work column), so their "
                    "times are not of the same work; the line says which\n");
}

void sb_compare_table_print_aa(const sb_compare_table *t, FILE *fp)
{
    static const char *const KIND[2] = { "CPU", "GPU" };
    for (int k = 0; k < 2; k++) {
        const sb_aa_tally *aa = &t->tally.aa[k];
        if (!aa->rows && aa->other_code)
            fprintf(fp, "%s rows: every one of the %d compared is other code (its variant changed): no repeat to "
                        "count\n", KIND[k], aa->other_code);
        if (!aa->rows)
            continue;
        fprintf(fp, "%s rows: %d of %d (%.1f %%) within %.0f %% of the baseline, %d more flagged unstable (%.1f %% "
                    "within or flagged); %d beyond %.2fx without the flag; flagged unstable: %d (%.1f %%) in the "
                    "baseline, %d (%.1f %%) in the current set\n",
                KIND[k], aa->within, aa->rows, 100.0 * aa->within / aa->rows, 100.0 * SB_AA_WITHIN, aa->flagged_out,
                100.0 * (aa->within + aa->flagged_out) / aa->rows, aa->far_unflagged, SB_AA_FAR, aa->flagged_a,
                100.0 * aa->flagged_a / aa->rows, aa->flagged_b, 100.0 * aa->flagged_b / aa->rows);
        if (aa->other_code)
            fprintf(fp, "  (%d %s row(s) of other code left out: their variant's code identity changed between "
                        "the sets, marked [other code] above)\n", aa->other_code, KIND[k]);
    }
}

/* ---- exports ---- */

static const char *line_verdict(const sb_compare_line *l)
{
    switch (l->kind) {
    case SB_LINE_JUDGED: return sb_call_name(l->eff.call);
    case SB_LINE_FAILED: return "failed";
    case SB_LINE_SKIPPED: return "not_compared";
    case SB_LINE_ONLY_BASELINE: return "only_in_baseline";
    default: return "only_in_current";
    }
}

/* "key": value, -- or null where the line has no such value */
static void json_key_num(FILE *fp, const char *key, double v, int have)
{
    sb_json_key_num(fp, key, have ? v : NAN);
    fprintf(fp, ", ");
}

static void write_json(const sb_compare_table *t, FILE *fp)
{
    const char *const head[][2] = { { "mode", t->mode }, { "a", t->a }, { "b", t->b },
                                    { "machine", t->machine }, { "date", t->date }, { "commit", t->commit } };
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) {
        fprintf(fp, "%s\"%s\": ", i ? ",\n  " : "{\n  ", head[i][0]);
        sb_json_str(fp, head[i][1]);
    }
    fprintf(fp, ",\n  \"false_discovery_rate\": %g,\n  \"noise_floor\": ", t->fdr);
    sb_json_str(fp, t->floor_source);
    fprintf(fp, ",\n  \"warnings\": [");
    for (int i = 0; i < t->nwarnings; i++) {
        fprintf(fp, "%s", i ? ", " : "");
        sb_json_str(fp, t->warning[i]);
    }
    fprintf(fp, "],\n  \"results\": [");
    for (int i = 0; i < t->count; i++) {
        const sb_compare_line *l = &t->line[i];
        int judged = l->kind == SB_LINE_JUDGED;
        fprintf(fp, "%s\n    {\"algo\": ", i ? "," : "");
        sb_json_str(fp, l->algo);
        fprintf(fp, ", \"stage\": ");
        sb_json_str(fp, l->stage);
        fprintf(fp, ", \"row\": ");
        sb_json_str(fp, l->label);
        fprintf(fp, ", \"verdict\": ");
        sb_json_str(fp, line_verdict(l));
        fprintf(fp, ", \"note\": ");
        sb_json_str(fp, l->note);
        fprintf(fp, ",\n     ");
        json_key_num(fp, "a_median_ms", l->a.median, judged || l->kind == SB_LINE_ONLY_BASELINE);
        json_key_num(fp, "b_median_ms", l->b.median, judged || l->kind == SB_LINE_ONLY_CURRENT);
        json_key_num(fp, "ratio", l->eff.ratio, judged);
        json_key_num(fp, "ratio_ci_low", l->eff.lo, judged && l->eff.lo > 0);
        json_key_num(fp, "ratio_ci_high", l->eff.hi, judged && l->eff.lo > 0);
        json_key_num(fp, "floor", l->eff.floor, judged);
        json_key_num(fp, "p", l->eff.p, judged);
        fprintf(fp, "\"a_noisy\": %s, \"b_noisy\": %s,\n     ", l->noise_a ? "true" : "false",
                l->noise_b ? "true" : "false");
        sb_json_key_nums(fp, "a_rounds_ms", l->a_ms, judged ? l->a.n : 0);
        fprintf(fp, ",\n     ");
        sb_json_key_nums(fp, "b_rounds_ms", l->b_ms, judged ? l->b.n : 0);
        fprintf(fp, "}");
    }
    const sb_compare_tally *c = &t->tally;
    fprintf(fp, "\n  ],\n  \"summary\": {\"faster\": %d, \"slower\": %d, \"same\": %d, \"undetermined\": %d, "
                "\"work_differs\": %d, \"failed\": %d, \"not_compared\": %d, \"only_in_baseline\": %d, \"only_in_current\": %d, "
                "\"expected_false_calls\": %.2f, \"geomean_ratio\": ",
            c->faster, c->slower, c->same, c->undetermined, c->work_differs, c->failed, c->skipped, c->only_baseline,
            c->only_current, c->expected_false);
    sb_json_num(fp, c->ratios ? exp(c->log_ratio_sum / c->ratios) : NAN);
    fprintf(fp, "}\n}\n");
}

static void csv_samples(FILE *fp, const double *ms, int n)
{
    for (int i = 0; ms && i < n; i++)
        fprintf(fp, "%s%.6f", i ? " " : "", ms[i]);
}

static void csv_num(FILE *fp, double v, int have)
{
    if (have && isfinite(v))
        fprintf(fp, "%.6g", v);
}

static void write_csv(const sb_compare_table *t, FILE *fp)
{
    fprintf(fp, "algo,stage,row,a,b,a_median_ms,b_median_ms,ratio,ratio_ci_low,ratio_ci_high,floor,p,verdict,"
                "a_noisy,b_noisy,a_rounds_ms,b_rounds_ms,machine,date,commit\n");
    for (int i = 0; i < t->count; i++) {
        const sb_compare_line *l = &t->line[i];
        int judged = l->kind == SB_LINE_JUDGED;
        sb_csv_put_field(fp, l->algo);
        fputc(',', fp);
        sb_csv_put_field(fp, l->stage);
        fputc(',', fp);
        sb_csv_put_field(fp, l->label);
        fputc(',', fp);
        sb_csv_put_field(fp, t->a);
        fputc(',', fp);
        sb_csv_put_field(fp, t->b);
        fputc(',', fp);
        csv_num(fp, l->a.median, judged || l->kind == SB_LINE_ONLY_BASELINE);
        fputc(',', fp);
        csv_num(fp, l->b.median, judged || l->kind == SB_LINE_ONLY_CURRENT);
        fputc(',', fp);
        csv_num(fp, l->eff.ratio, judged);
        fputc(',', fp);
        csv_num(fp, l->eff.lo, judged && l->eff.lo > 0);
        fputc(',', fp);
        csv_num(fp, l->eff.hi, judged && l->eff.lo > 0);
        fputc(',', fp);
        csv_num(fp, l->eff.floor, judged);
        fputc(',', fp);
        csv_num(fp, l->eff.p, judged);
        fprintf(fp, ",%s,%d,%d,", line_verdict(l), l->noise_a != 0, l->noise_b != 0);
        csv_samples(fp, l->a_ms, judged ? l->a.n : 0);
        fputc(',', fp);
        csv_samples(fp, l->b_ms, judged ? l->b.n : 0);
        fputc(',', fp);
        sb_csv_put_fields(fp, (const char *const[]){ t->machine, t->date, t->commit }, 3);
        fputc('\n', fp);
    }
}

sb_status sb_compare_table_close(sb_compare_table *t, sb_status st, sb_error *err)
{
    if (t->have_json) {
        if (!st)
            write_json(t, t->json.fp);
        if (!st)
            st = sb_atomic_commit(&t->json, err);
        else
            sb_atomic_abort(&t->json);
    }
    if (t->have_csv) {
        if (!st)
            write_csv(t, t->csv.fp);
        if (!st)
            st = sb_atomic_commit(&t->csv, err);
        else
            sb_atomic_abort(&t->csv);
    }
    for (int i = 0; i < t->count; i++) {
        free(t->line[i].a_ms);
        free(t->line[i].b_ms);
    }
    free(t->line);
    t->line = NULL;
    t->count = t->cap = 0;
    return st;
}
