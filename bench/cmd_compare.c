/* cmd_compare.c - `segbench compare`: is B faster than A, beyond noise?
 *
 * Two variants on the same images: both are checked first, then timed
 * alternately (A B B A A B ...) so drift in clocks or temperature hits both
 * alike and neither always runs second.  The verdict needs all of: a Mann-Whitney U test with p < alpha,
 * a 95 % bootstrap interval of the ratio of medians that excludes 1, and a
 * ratio at least --min-diff away from 1 (the smallest change that
 * matters).  Otherwise "same" -- which is what a variant compared with
 * itself must get.
 *
 * With --baseline and --current, the same test runs row by row on the raw
 * samples of two saved result sets.
 */
#include "commands.h"

#include "device_status.h"
#include "result_set.h"

#include "args.h"
#include "cases.h"
#include "harness.h"

#include "segbench/device.h"
#include "segbench/image_io.h"
#include "segbench/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_FILES = 64 };

typedef struct compare_opts {
    const char *spec[2];
    const char *set;
    char *files[MAX_FILES];
    int nfiles;
    const char *stage;
    int samples;
    double min_diff, alpha;
    int flush_l2;
    const char *baseline, *current;
    int strict;
} compare_opts;

typedef struct compare_tally {
    int faster, slower, same, failed;
    double log_ratio_sum;
    int ratios;
} compare_tally;

static void tally_add(compare_tally *t, const sb_comparison *c)
{
    if (c->verdict == SB_FASTER)
        t->faster++;
    else if (c->verdict == SB_SLOWER)
        t->slower++;
    else
        t->same++;
    if (c->ratio > 0 && isfinite(c->ratio)) {
        t->log_ratio_sum += log(c->ratio);
        t->ratios++;
    }
}

static void print_comparison(const char *label, double a_median, double b_median, const sb_comparison *c,
                             double min_diff)
{
    const char *why = "";
    if (c->verdict == SB_SAME)
        why = fabs(c->ratio - 1.0) < min_diff ? " (difference below --min-diff)" : " (not significant)";
    printf("%-26s %10.4f %10.4f  %6.3f [%5.3f, %5.3f]  %8.2g  %s%s\n", label, a_median, b_median, c->ratio,
           c->lo, c->hi, c->p_value, sb_verdict_name(c->verdict), why);
}

static void print_header(const char *a, const char *b)
{
    printf("%-26s %10s %10s  %-22s  %8s  %s\n", "", "A ms", "B ms", "B/A [95% CI]", "p", "B is");
    printf("A = %s\nB = %s\n", a, b);
}

static void print_tally(const compare_tally *t)
{
    printf("\nB against A: faster on %d, slower on %d, same on %d", t->faster, t->slower, t->same);
    if (t->failed)
        printf(", FAILED on %d", t->failed);
    if (t->ratios)
        printf("; geometric mean time ratio B/A %.3f", exp(t->log_ratio_sum / t->ratios));
    printf("\n");
}

/* Interleaved sampling of two prepared variants on one case. */
static sb_status compare_case(const compare_opts *o, const sb_case *c, const sb_variant *v[2],
                              const int threads[2], void *stream, const char *label, compare_tally *t,
                              sb_error *err)
{
    sb_session s[2];
    memset(s, 0, sizeof s);
    double *ms[2] = { calloc((size_t)o->samples, sizeof(double)), calloc((size_t)o->samples, sizeof(double)) };
    sb_status st = (!ms[0] || !ms[1]) ? sb_fail(err, SB_ERR_NOMEM, "out of memory") : SB_OK;
    for (int k = 0; k < 2 && !st; k++) {
        void *strm = (v[k]->flags & SB_DEVICE) ? stream : NULL;
        if (!(st = sb_session_open(&s[k], c, v[k], threads[k], strm, 1, err))) {
            double warm;
            sb_agreement ag;
            st = sb_session_sample(&s[k], 0, &warm, err);
            if (!st)
                st = sb_session_check(&s[k], &ag, err);
            if (!st && !ag.ok) {
                printf("%-26s %s broke its contract: %s\n", label, o->spec[k], ag.metric);
                t->failed++;
                goto done;
            }
            for (int w = 0; w < 3 && !st; w++)
                st = sb_session_sample(&s[k], o->flush_l2, &warm, err);
        }
    }
    /* A B, then B A: whichever runs second in a pair can gain or lose from
     * what the first left behind (warm caches, threads just woken -- seen as
     * a 4x bias on a 2-core machine), so each goes first half the time. */
    for (int i = 0; i < o->samples && !st; i++)
        for (int j = 0; j < 2 && !st; j++) {
            int k = (i & 1) ? 1 - j : j;
            st = sb_session_sample(&s[k], o->flush_l2, &ms[k][i], err);
        }
    if (!st) {
        sb_comparison cmp;
        sb_compare_samples(ms[0], o->samples, ms[1], o->samples, o->alpha, o->min_diff, &cmp);
        sb_summary sa, sb;
        sb_summarize(ms[0], o->samples, &sa);
        sb_summarize(ms[1], o->samples, &sb);
        print_comparison(label, sa.median, sb.median, &cmp, o->min_diff);
        tally_add(t, &cmp);
    }
done:
    sb_session_close(&s[0]);
    sb_session_close(&s[1]);
    free(ms[0]);
    free(ms[1]);
    return st;
}

static sb_status compare_variants(const compare_opts *o, sb_error *err)
{
    const sb_variant *v[2];
    int threads[2];
    for (int k = 0; k < 2; k++) {
        sb_status st = sb_parse_variant_spec(o->spec[k], &v[k], &threads[k], err);
        if (st)
            return st;
        char why[300];
        if (sb_variant_availability(v[k], why, sizeof why) != SB_AVAILABLE)
            return sb_fail(err, SB_ERR_UNAVAILABLE, "%s cannot run here: %s", o->spec[k], why);
    }
    if (strcmp(v[0]->algo, v[1]->algo) != 0)
        return sb_fail(err, SB_ERR_USAGE, "%s and %s are different algorithms", o->spec[0], o->spec[1]);
    const sb_algo *algo = sb_algo_find(v[0]->algo);
    int stage = 0;
    if (o->stage && (stage = sb_stage_find(algo, o->stage)) < 0)
        return sb_fail(err, SB_ERR_USAGE, "%s has no stage '%s'", algo->name, o->stage);
    for (int k = 0; k < 2; k++)
        if (!(v[k]->stages & (1u << stage)))
            return sb_fail(err, SB_ERR_USAGE, "%s does not implement stage %s", o->spec[k], algo->stages[stage]);

    sb_dataset ds;
    sb_status st = sb_select_images(o->set, o->files, o->nfiles, &ds, err);
    if (st)
        return st;
    void *stream = NULL;
    char gpu_why[300];
    if (sb_device_usable(gpu_why, sizeof gpu_why) && (st = sb_device_stream_create(&stream, err))) {
        sb_dataset_free(&ds);
        return st;
    }
    printf("%s, stage %s: %d interleaved samples a side%s\n", algo->name, algo->stages[stage], o->samples,
           o->flush_l2 ? ", L2 flushed before each device run" : "");
    print_header(o->spec[0], o->spec[1]);
    compare_tally t = { 0 };
    for (int i = 0; i < ds.count && !st; i++) {
        sb_image loaded;
        if ((st = sb_image_load(ds.images[i].path, algo->load_mode, &loaded, err)))
            break;
        sb_case_data cd;
        void *params = NULL;
        int usable;
        char why[200];
        st = sb_case_params(algo, stage, ds.images[i].rect, &params, &usable, why, sizeof why, err);
        if (!st && !usable)
            printf("%s: skipped (%s)\n", ds.images[i].name, why);
        else if (!st && !(st = sb_case_open(&cd, algo, stage, params, &loaded, err))) {
            st = compare_case(o, &cd.c, v, threads, stream, ds.images[i].name, &t, err);
            sb_case_close(&cd);
        }
        free(params);
        sb_image_free(&loaded);
    }
    if (!st)
        print_tally(&t);
    sb_device_stream_destroy(stream);
    sb_dataset_free(&ds);
    if (!st && t.failed)
        st = sb_fail(err, SB_ERR_AGREEMENT, "a variant broke its agreement contract");
    return st;
}

/* ---- a result set against a saved baseline ---- */

static void results_csv_path(const char *dir_or_csv, const char *algo, char *out, size_t size, int samples)
{
    struct stat sb;
    if (stat(dir_or_csv, &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(out, size, "%s/%s%s", dir_or_csv, algo, samples ? ".samples.csv" : ".csv");
    else if (samples)
        snprintf(out, size, "%.*s.samples.csv", (int)(strlen(dir_or_csv) - 4), dir_or_csv);
    else
        snprintf(out, size, "%s", dir_or_csv);
}

static sb_status load_result_set(const char *where, const char *algo, sb_rows *rows, int *found, sb_error *err)
{
    char csv[1200], samples[1200];
    results_csv_path(where, algo, csv, sizeof csv, 0);
    results_csv_path(where, algo, samples, sizeof samples, 1);
    struct stat sb;
    *found = stat(csv, &sb) == 0;
    if (!*found)
        return SB_OK;
    sb_status st = sb_rows_read_csv(csv, rows, err);
    if (!st)
        st = sb_rows_read_samples(samples, rows, err);
    return st;
}

/* Say, before any row, when a result set is not one finished run, or when
 * the two sets were measured on different machines or datasets. */
static void warn_result_sets(const compare_opts *o)
{
    struct stat sb;
    sb_result_set rs[2];
    const char *dir[2] = { o->baseline, o->current }, *side[2] = { "baseline", "current" };
    for (int k = 0; k < 2; k++) {
        if (stat(dir[k], &sb) != 0 || !S_ISDIR(sb.st_mode))
            return;
        sb_result_set_survey(dir[k], &rs[k]);
        for (int i = 0; i < rs[k].nnotes; i++)
            fprintf(stderr, "%s%s %s: %s\n", i ? "" : "warning: ", i ? "        " : side[k], i ? "" : dir[k],
                    rs[k].notes[i]);
    }
    if (strcmp(rs[0].run.machine_id, rs[1].run.machine_id) != 0)
        fprintf(stderr, "warning: the baseline was measured on %s, the current set on %s\n", rs[0].run.machine_id,
                rs[1].run.machine_id);
    if (strcmp(rs[0].run.set, rs[1].run.set) != 0)
        fprintf(stderr, "warning: the baseline ran dataset %s, the current set %s\n", rs[0].run.set, rs[1].run.set);
}

static sb_status compare_results(const compare_opts *o, sb_error *err)
{
    compare_tally t = { 0 };
    warn_result_sets(o);
    int compared_algos = 0;
    sb_status st = SB_OK;
    for (int i = 0; i < sb_algo_count() && !st; i++) {
        const char *algo = sb_algo_at(i)->name;
        sb_rows base = { 0 }, cur = { 0 };
        int have_base, have_cur;
        if ((st = load_result_set(o->baseline, algo, &base, &have_base, err)) ||
            (st = load_result_set(o->current, algo, &cur, &have_cur, err))) {
            sb_rows_free(&base);
            sb_rows_free(&cur);
            break;
        }
        if (have_base && have_cur) {
            compared_algos++;
            printf("%s: current against baseline, kernel time, row by row\n", algo);
            print_header(o->baseline, o->current);
            int missing = 0;
            for (int b = 0; b < base.count; b++) {
                const sb_row *rb = &base.row[b];
                const sb_row *rc = NULL;
                for (int c = 0; c < cur.count && !rc; c++)
                    if (sb_row_same_key(rb, &cur.row[c]))
                        rc = &cur.row[c];
                if (!rc) {
                    missing++;
                    continue;
                }
                char label[300];
                snprintf(label, sizeof label, "%s %s t%d %s", rb->stage, rb->variant, rb->threads, rb->image);
                if (strcmp(rc->agreement, "FAIL") == 0) {
                    printf("%-26s current row FAILED its contract: %s\n", label, rc->metric);
                    t.failed++;
                    continue;
                }
                if (!rb->kernel_ms || !rc->kernel_ms) {
                    printf("%-26s no raw samples to compare\n", label);
                    continue;
                }
                sb_comparison cmp;
                sb_compare_samples(rb->kernel_ms, rb->kernel.n, rc->kernel_ms, rc->kernel.n, o->alpha,
                                   o->min_diff, &cmp);
                print_comparison(label, rb->kernel.median, rc->kernel.median, &cmp, o->min_diff);
                tally_add(&t, &cmp);
            }
            if (missing)
                printf("(%d baseline rows have no current row)\n", missing);
        }
        sb_rows_free(&base);
        sb_rows_free(&cur);
    }
    if (st)
        return st;
    if (!compared_algos)
        return sb_fail(err, SB_ERR_USAGE, "no algorithm has results in both %s and %s", o->baseline, o->current);
    print_tally(&t);
    if (o->strict && (t.slower || t.failed))
        return sb_fail(err, SB_ERR_AGREEMENT, "%d row(s) slower, %d failed (--strict)", t.slower, t.failed);
    return SB_OK;
}

sb_status cmd_compare(int argc, char **argv, sb_error *err)
{
    compare_opts o;
    memset(&o, 0, sizeof o);
    o.samples = 21;
    o.min_diff = 0.03;
    o.alpha = 0.01;
    o.flush_l2 = 1;
    int nspec = 0;
    sb_args a = sb_args_begin(argc, argv, err);
    sb_status st = SB_OK;
    while (!st && sb_args_next(&a)) {
        if (sb_args_opt(&a, "--set"))
            o.set = a.value;
        else if (sb_args_opt(&a, "--image")) {
            if (o.nfiles == MAX_FILES)
                return sb_fail(err, SB_ERR_USAGE, "at most %d --image files", MAX_FILES);
            o.files[o.nfiles++] = (char *)a.value;
        } else if (sb_args_opt(&a, "--stage"))
            o.stage = a.value;
        else if (sb_args_opt(&a, "--samples"))
            st = sb_parse_int(a.value, 9, 100000, "--samples (at least 9 a side)", &o.samples, err);
        else if (sb_args_opt(&a, "--min-diff"))
            st = sb_parse_double(a.value, 0.0, 10.0, "--min-diff", &o.min_diff, err);
        else if (sb_args_opt(&a, "--alpha"))
            st = sb_parse_double(a.value, 1e-12, 0.5, "--alpha", &o.alpha, err);
        else if (sb_args_flag(&a, "--no-flush"))
            o.flush_l2 = 0;
        else if (sb_args_opt(&a, "--baseline"))
            o.baseline = a.value;
        else if (sb_args_opt(&a, "--current"))
            o.current = a.value;
        else if (sb_args_flag(&a, "--strict"))
            o.strict = 1;
        else if (sb_args_positional(&a)) {
            if (nspec == 2)
                return sb_fail(err, SB_ERR_USAGE, "compare takes two variants");
            o.spec[nspec++] = a.value;
        } else
            return sb_args_unknown(&a);
    }
    if (a.status || st)
        return a.status ? a.status : st;
    if (o.baseline || o.current) {
        if (!o.baseline || !o.current || nspec)
            return sb_fail(err, SB_ERR_USAGE, "usage: segbench compare --baseline DIR --current DIR");
        return compare_results(&o, err);
    }
    if (nspec != 2)
        return sb_fail(err, SB_ERR_USAGE, "usage: segbench compare algo/variantA algo/variantB [options]");
    return compare_variants(&o, err);
}
