/* compare.c - `segbench compare`: is B faster than A, beyond noise?
 *
 * Two variants on the same images: both are checked first, then timed in
 * rounds, alternately (A B, B A, ...) so drift in clocks or temperature
 * hits both alike and neither always runs second; each round opens each
 * variant afresh (fresh allocations, threads placed again) and its
 * median is the round's evidence.  With --baseline and --current, two
 * saved result sets row by row, each row's rounds its evidence (the
 * samples file's round line); rows on one side only are listed.
 *
 * Either way the call is measure/evidence.h's: B/A with its 95 % interval
 * from the rounds, faster or slower only when the whole interval clears
 * this machine's noise floor (io/noise_floor.h: an A/A's, or the
 * defaults), same when it lies inside it, undetermined otherwise; the
 * calls of one comparison held to a false-discovery rate.
 *
 * Every line of the table is kept (compare_table.c) for the verdict line
 * and for --export-json / --export-csv.
 */
#include "compare/compare.h"
#include "compare/compare_streams.h"
#include "machine/device_status.h"

#include "base/files.h"
#include "base/patterns.h"
#include "compare/compare_table.h"
#include "compare/noise.h"
#include "cases/cases.h"
#include "measure/measure.h"
#include "machine/host_noise.h"
#include "io/code_ids.h"
#include "io/env_json.h"
#include "compare/history.h"
#include "io/noise_floor.h"
#include "machine/env.h"
#include "variants/names.h"
#include "variants/outputs.h"
#include "io/result_set.h"
#include "io/stage_view.h"

#include "segbench/device.h"
#include "segbench/image_io.h"
#include "segbench/placement.h"
#include "segbench/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- two variants, interleaved ---------------------------------------------------------- */

/* One round of one side: the variant opened afresh (its check run first,
 * a warm-up run), `samples` timed runs, their median into *median. */
static sb_status round_side(const compare_opts *o, const sb_case *c, const sb_variant *v, int threads, void *stream,
                            double *ms, double *median, sb_agreement *ag, sb_error *err)
{
    sb_session s;
    memset(&s, 0, sizeof s);
    void *strm = (v->flags & SB_DEVICE) ? stream : NULL;
    double warm;
    sb_status st = sb_session_open(&s, c, v, threads, strm, 1, err);
    if (!st && !(st = sb_session_sample(&s, 0, &warm, err)))
        st = sb_session_check(&s, ag, err);
    if (!st && ag->ok)
        st = sb_session_sample(&s, o->flush_l2, &warm, err);
    for (int i = 0; !st && ag->ok && i < o->samples; i++)
        st = sb_session_sample(&s, o->flush_l2, &ms[i], err);
    sb_session_close(&s);
    if (!st && ag->ok) {
        sb_summary sum;
        sb_summarize(ms, o->samples, &sum);
        *median = sum.median;
    }
    return st;
}

/* Two variants on one case in interleaved rounds (A B, then B A: whichever
 * runs second can gain or lose from what the first left behind -- warm
 * caches, threads just woken, seen as a 4x bias on a 2-core machine -- so
 * each goes first half the time); host threads pinned (placement.h), a
 * threaded variant after the other's threads stop spinning (host_noise.h).
 * One table line. */
static sb_status compare_case(const compare_opts *o, const sb_case *c, const sb_variant *v[2],
                              const int threads[2], void *stream, double floor, sb_compare_line *line, sb_error *err)
{
    double *ms = calloc((size_t)o->samples, sizeof(double));
    double *rounds[2] = { calloc((size_t)o->rounds, sizeof(double)), calloc((size_t)o->rounds, sizeof(double)) };
    sb_status st = (!ms || !rounds[0] || !rounds[1]) ? sb_fail(err, SB_ERR_NOMEM, "out of memory") : SB_OK;
    int host = !((v[0]->flags | v[1]->flags) & SB_DEVICE);
    int threaded = host && ((v[0]->flags | v[1]->flags) & SB_THREADED);
    if (host)
        sb_placement_hold(threads[0] > threads[1] ? threads[0] : threads[1],
                          !strcmp(v[0]->backend, "openmp") || !strcmp(v[1]->backend, "openmp"));
    for (int r = 0; r < o->rounds && !st && line->kind != SB_LINE_FAILED; r++)
        for (int j = 0; j < 2 && !st; j++) {
            int k = (r & 1) ? 1 - j : j;
            if (threaded)
                sb_host_wait_quiet(SB_QUIET_MAX_MS);
            sb_agreement ag = { .ok = 1 };
            st = round_side(o, c, v[k], threads[k], stream, ms, &rounds[k][r], &ag, err);
            if (!st && !ag.ok) {
                line->kind = SB_LINE_FAILED;
                snprintf(line->note, sizeof line->note, "%s broke its contract: %s", o->spec[k], ag.metric);
                break;
            }
        }
    if (host)
        sb_placement_release();
    if (!st && line->kind != SB_LINE_FAILED)
        st = sb_compare_line_judge(line, rounds[0], o->rounds, rounds[1], o->rounds, floor, o->min_diff, err);
    free(ms);
    free(rounds[0]);
    free(rounds[1]);
    return st;
}

static sb_status compare_stage(const compare_opts *o, const sb_algo *algo, int stage, const sb_dataset *ds,
                               const sb_variant *v[2], const int threads[2], void *stream, double floor,
                               sb_compare_table *t, sb_error *err)
{
    sb_status st = SB_OK;
    for (int i = 0; i < ds->count && !st; i++) {
        const sb_dataset_image *im = &ds->images[i];
        sb_compare_line *line = sb_compare_table_add(t, algo->name, algo->stages[stage], im->name);
        if (!line)
            return sb_fail(err, SB_ERR_NOMEM, "out of memory");
        char why[300];
        if (!sb_case_fits(algo, im->width, im->height, why, sizeof why)) {
            line->kind = SB_LINE_SKIPPED;
            snprintf(line->note, sizeof line->note, "skipped: %.280s", why);
            sb_compare_table_print_line(t, line, stdout);
            continue;
        }
        sb_image loaded;
        if ((st = sb_image_load(im->path, algo->load_mode, &loaded, err)))
            break;
        sb_case_data cd;
        int usable;
        st = sb_case_open_image(&cd, NULL, algo, stage, im, &loaded, &usable, why, sizeof why, err);
        if (!st && !usable) {
            line->kind = SB_LINE_SKIPPED;   /* the stage cannot take this image: say why, go on */
            snprintf(line->note, sizeof line->note, "skipped: %.280s", why);
        } else if (!st) {
            st = compare_case(o, &cd.c, v, threads, stream, floor, line, err);
            sb_case_close(&cd);
        }
        if (line)
            sb_compare_table_print_line(t, line, stdout);
        sb_image_free(&loaded);
    }
    return st;
}

static sb_status compare_variants(const compare_opts *o, sb_compare_table *t, sb_error *err)
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
        sb_warn_oversubscribed(o->spec[k], threads[k]);
    }
    if (strcmp(v[0]->algo, v[1]->algo) != 0)
        return sb_fail(err, SB_ERR_USAGE, "%s and %s are different algorithms", o->spec[0], o->spec[1]);
    const sb_algo *algo = sb_algo_find(v[0]->algo);
    sb_status st = sb_pattern_check(o->stages, algo->stages, algo->stage_count, "--stage", err);
    if (st)
        return st;
    unsigned stages = 0;                   /* the selected stages both implement */
    for (int s = 0; s < algo->stage_count; s++)
        if (o->stages ? sb_pattern_match(o->stages, algo->stages[s]) : s == 0)
            stages |= (v[0]->stages & v[1]->stages) & (1u << s);
    if (!stages)
        return sb_fail(err, SB_ERR_USAGE, "%s and %s share no selected stage of %s", o->spec[0], o->spec[1],
                       algo->name);

    sb_dataset ds;
    if ((st = sb_image_choice_load(&o->images, "default", &ds, err)))
        return st;
    void *stream = NULL;
    char gpu_why[300];
    int device = ((v[0]->flags | v[1]->flags) & SB_DEVICE) != 0;
    if (device && sb_device_usable(gpu_why, sizeof gpu_why) && (st = sb_device_stream_create(&stream, err))) {
        sb_dataset_free(&ds);
        return st;
    }
    char governor[64];
    if (((v[0]->flags & v[1]->flags) & SB_DEVICE) == 0 && sb_noise_governor(governor, sizeof governor))
        fprintf(stderr, "warning: the CPU frequency governor is '%s', not 'performance': CPU timings may move "
                        "with the clock\n", governor);
    sb_noise_floor floors;
    if ((st = sb_compare_floors(o->floor_file, NULL, 0, &floors, err))) {
        sb_device_stream_destroy(stream);
        sb_dataset_free(&ds);
        return st;
    }
    /* the wider of the two sides' floors: a GPU row against a CPU one carries the CPU's noise */
    double floor = fmax(sb_floor_for(&floors, sb_floor_kind_of_variant(v[0]), threads[0]),
                        sb_floor_for(&floors, sb_floor_kind_of_variant(v[1]), threads[1]));
    sb_floor_describe(&floors, t->floor_source, sizeof t->floor_source);
    sb_floor_free(&floors);
    printf("compare %s: %d interleaved rounds a side, %d samples a round%s; %d image%s%s%s\n", algo->name, o->rounds,
           o->samples, device ? (o->flush_l2 ? "; L2 flushed before each device run" : "; L2 kept warm") : "",
           ds.count, ds.count == 1 ? "" : "s", o->images.nfiles ? "" : " of set ", o->images.nfiles ? "" : ds.name);
    printf("A = %s\nB = %s\n\n", o->spec[0], o->spec[1]);
    sb_compare_table_print_header(t, stdout);
    for (int s = 0; s < algo->stage_count && !st; s++)
        if (stages & (1u << s))
            st = compare_stage(o, algo, s, &ds, v, threads, stream, floor, t, err);
    sb_device_stream_destroy(stream);
    sb_dataset_free(&ds);
    return st;
}

/* ---- a result set against a saved baseline ------------------------------------------------ */

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
    char csv[SB_PATH_MAX], samples[SB_PATH_MAX];
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

/* The host's memcpy rate on one thread in a set's env.json (GB/s; 0 when
 * not there): how fast this host's cores and memory were when the run
 * measured them. */
static double host_copy_1(const char *dir)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/env.json", dir);
    char *env = sb_read_text(path);
    double gbps = sb_json_host_copy(env, 1, NULL);
    free(env);
    return gbps;
}

/* Say, before any row, when a result set is not one finished run, or when
 * the two differ in what makes timings comparable. */
static void warn_result_sets(const compare_opts *o, sb_compare_table *t)
{
    struct stat sb;
    sb_result_set rs[2];
    const char *dir[2] = { o->baseline, o->current }, *side[2] = { "baseline", "current" };
    for (int k = 0; k < 2; k++) {
        if (stat(dir[k], &sb) != 0 || !S_ISDIR(sb.st_mode))
            return;
        sb_result_set_survey(dir[k], &rs[k]);
        for (int i = 0; i < rs[k].nnotes; i++)
            sb_compare_table_warn(t, "the %s %s: %s", side[k], dir[k], rs[k].notes[i]);
    }
    static const struct {
        size_t offset;
        const char *what;
    } fields[] = {
        { offsetof(sb_run_info, machine_id), "machines" },
        { offsetof(sb_run_info, set), "datasets" },
        { offsetof(sb_run_info, commit), "commits" },
        { offsetof(sb_run_info, options), "options" },
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *a = (const char *)&rs[0].run + fields[i].offset, *b = (const char *)&rs[1].run + fields[i].offset;
        if (strcmp(a, b) != 0)
            sb_compare_table_warn(t, "different %s: baseline %s, current %s", fields[i].what, a, b);
    }
    /* the same model is not the same card, and the same card may sit in another host */
    const sb_run_info *a = &rs[0].run, *b = &rs[1].run;
    if (strcmp(a->gpu_uuid, "?") && strcmp(b->gpu_uuid, "?") && strcmp(a->gpu_uuid, b->gpu_uuid))
        sb_compare_table_warn(t, "different GPUs: baseline %s (%s), current %s (%s)", a->gpu_name, a->gpu_uuid,
                              b->gpu_name, b->gpu_uuid);
    if (strcmp(a->cpu_model, b->cpu_model) || strcmp(a->cpu_cores, b->cpu_cores))
        sb_compare_table_warn(t, "different hosts: baseline %s with %s cores, current %s with %s cores",
                              a->cpu_model, a->cpu_cores, b->cpu_model, b->cpu_cores);
    /* one model name, another host: a lent VM's "Intel Xeon Processor" on a
     * host whose cores copied 18.8 GB/s against the run of record's 27.1
     * ran every CPU row of the integral image 1.2-4x slower (H100, 2026-11-26) */
    double ca = host_copy_1(dir[0]), cb = host_copy_1(dir[1]);
    if (ca > 0 && cb > 0 && (ca > 1.15 * cb || cb > 1.15 * ca))
        sb_compare_table_warn(t, "a host of another speed: one thread copied %.1f GB/s in the baseline's run and %.1f "
                              "in the current's (%.0f %% apart): the CPU rows ran on a faster or busier host, and "
                              "differ by that much before any change of code", ca, cb,
                              100.0 * fabs(ca - cb) / (ca < cb ? ca : cb));
}

/* The median SM clock over an algorithm's device rows (0: none known). */
static int median_sm_clock(const sb_rows *rows)
{
    double *mhz = malloc(sizeof *mhz * (size_t)(2 * rows->count + 1));
    int n = 0;
    for (int i = 0; mhz && i < rows->count; i++)
        for (int k = 0; k < 2; k++)
            if (rows->row[i].sm_mhz[k] > 0)
                mhz[n++] = rows->row[i].sm_mhz[k];
    sb_summary s = { 0 };
    if (n)
        sb_summarize(mhz, n, &s);
    free(mhz);
    return (int)s.median;
}

/* Say when the two sides' GPU rows ran at different clocks (5 % apart). */
static void warn_clocks(sb_compare_table *t, const char *algo, const sb_rows *base, const sb_rows *cur)
{
    int a = median_sm_clock(base), b = median_sm_clock(cur);
    if (a > 0 && b > 0 && (a > 1.05 * b || b > 1.05 * a))
        sb_compare_table_warn(t, "%s: different GPU clocks: the baseline's rows ran at a median SM clock of %d MHz, "
                              "the current's at %d MHz", algo, a, b);
}

static int row_selected(const compare_opts *o, const sb_row *r)
{
    return sb_variant_match(o->variants, r->algo, r->variant) && sb_pattern_match(o->stages, r->stage);
}

/* Judge a row of each set by their rounds' medians; a set from before
 * rounds were kept has its median as one round (undetermined, saying so). */
static sb_status judge_rows(const compare_opts *o, const sb_row *rb, const sb_row *rc, const sb_noise_floor *floors,
                            const sb_history *runs, sb_compare_line *line, sb_error *err)
{
    double floor = sb_floor_for_row(floors, rb);
    /* two runs: also what the same code moved by between the machine's runs (an A/A of one session cannot see
       another lease's GPU or another day's host); one run's row against itself needs no more */
    if (runs && strcmp(rb->run_id, rc->run_id) != 0)
        floor = fmax(floor, sb_history_floor_for(runs, rb, rb->kernel.median));
    const double *a = rb->round_ms, *b = rc->round_ms;
    int na = rb->nround, nb = rc->nround;
    if (!a || !b) {
        a = &rb->kernel.median, b = &rc->kernel.median, na = nb = 1;
        snprintf(line->note, sizeof line->note, "no rounds recorded in the %s: a set from before they were kept",
                 !rb->round_ms && !rc->round_ms ? "sets" : !rb->round_ms ? "baseline" : "current set");
    }
    sb_status st = sb_compare_line_judge(line, a, na, b, nb, floor, o->min_diff, err);
    if (!st)
        sb_compare_line_work(line, rb->work, sb_work_text_varies(rb->work), rc->work, sb_work_text_varies(rc->work));
    line->a.median = rb->kernel.median;        /* the rows' own medians, as the sets report them */
    line->b.median = rc->kernel.median;
    return st;
}

static sb_status compare_algo(const compare_opts *o, const sb_rows *base, const sb_rows *cur,
                              const sb_noise_floor *floors, const sb_history *runs, sb_compare_table *t,
                              sb_code_ids *ids, sb_error *err)
{
    sb_status st = SB_OK;
    for (int b = 0; b < base->count && !st; b++) {
        const sb_row *rb = &base->row[b];
        if (!row_selected(o, rb))
            continue;
        const sb_row *rc = NULL;
        for (int c = 0; c < cur->count && !rc; c++)
            if (sb_row_same_key(rb, &cur->row[c]))
                rc = &cur->row[c];
        char label[300];
        snprintf(label, sizeof label, "%s t%d %s", rb->variant, rb->threads, rb->image);
        sb_compare_line *line = sb_compare_table_add(t, rb->algo, rb->stage, label);
        if (!line)
            return sb_fail(err, SB_ERR_NOMEM, "out of memory");
        if (!rc) {
            line->kind = SB_LINE_ONLY_BASELINE;
            line->a.median = rb->kernel.median;
        } else if (strcmp(rc->agreement, "FAIL") == 0) {
            line->kind = SB_LINE_FAILED;
            snprintf(line->note, sizeof line->note, "the current row broke its contract: %s", rc->metric);
        } else if (!(rb->kernel.median > 0) || !(rc->kernel.median > 0)) {
            line->kind = SB_LINE_SKIPPED;
            snprintf(line->note, sizeof line->note, "no time to compare (a median of %g against %g ms)",
                     rb->kernel.median, rc->kernel.median);
        } else {
            st = judge_rows(o, rb, rc, floors, runs, line, err);
            line->kind_of_row = view_is_cpu_backend(rb->backend) ? SB_ROW_CPU : SB_ROW_GPU;
            line->unstable_a = sb_row_unstable(rb);
            line->unstable_b = sb_row_unstable(rc);
            char ia[SB_CODE_ID_LEN + 1], ic[SB_CODE_ID_LEN + 1];
            sb_row_code_id(ids, rb, ia);
            sb_row_code_id(ids, rc, ic);
            line->other_code = ia[0] && ic[0] && strcmp(ia, ic) != 0;
        }
        sb_compare_table_print_line(t, line, stdout);
    }
    for (int c = 0; c < cur->count && !st; c++) {
        const sb_row *rc = &cur->row[c];
        int in_base = 0;
        for (int b = 0; b < base->count && !in_base; b++)
            in_base = sb_row_same_key(&base->row[b], rc);
        if (in_base || !row_selected(o, rc))
            continue;
        char label[300];
        snprintf(label, sizeof label, "%s t%d %s", rc->variant, rc->threads, rc->image);
        sb_compare_line *line = sb_compare_table_add(t, rc->algo, rc->stage, label);
        if (!line)
            return sb_fail(err, SB_ERR_NOMEM, "out of memory");
        line->kind = SB_LINE_ONLY_CURRENT;
        line->b.median = rc->kernel.median;
        sb_compare_table_print_line(t, line, stdout);
    }
    return st;
}

/* The two sets must be two folders (or CSV files) that are there, not
 * one and the same, of one machine: a mistyped folder must not pass a CI
 * gate as "every row only in the baseline", nor a set judged against
 * itself or against another machine's. */
static sb_status check_sets(const compare_opts *o, sb_error *err)
{
    struct stat sa, sb;
    if (stat(o->baseline, &sa) != 0)
        return sb_fail(err, SB_ERR_USAGE, "--baseline %s: no such folder or file", o->baseline);
    if (stat(o->current, &sb) != 0)
        return sb_fail(err, SB_ERR_USAGE, "--current %s: no such folder or file", o->current);
    if (sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
        return sb_fail(err, SB_ERR_USAGE, "--baseline and --current are the same %s (%s): nothing to compare",
                       S_ISDIR(sa.st_mode) ? "folder" : "file", o->current);
    if (!S_ISDIR(sa.st_mode) || !S_ISDIR(sb.st_mode))
        return SB_OK;
    sb_run_info a, b;
    if (sb_run_info_read(o->baseline, &a) && sb_run_info_read(o->current, &b) && a.machine_id[0] && b.machine_id[0] &&
        strcmp(a.machine_id, b.machine_id) != 0)
        return sb_fail(err, SB_ERR_USAGE, "the baseline ran on %s and the current set on %s: a verdict across "
                                          "machines would measure the machines, not the code (compare sets of one "
                                          "machine; report/MACHINES.md compares machines)", a.machine_id, b.machine_id);
    return SB_OK;
}

/* The floors between runs (compare --baseline, --runs-floor auto): the
 * own floors of the current set's machine's history in git (segbench
 * history's), said after the A/A's in the floor line; 0 where there is
 * none to be had (no machine id, no commit of its results, too few
 * moves), and the line says so. */
static int runs_floors(const compare_opts *o, sb_history *runs, sb_compare_table *t)
{
    sb_run_info cur;
    size_t len = strlen(t->floor_source);
    char *at = t->floor_source + len;
    size_t room = sizeof t->floor_source - len;
    if (!sb_run_info_read(o->current, &cur) || !cur.machine_id[0]) {
        snprintf(at, room, "; no floor between runs (the current set names no machine)");
        return 0;
    }
    sb_error ignored;
    if (sb_history_from_git(runs, o->results_root, cur.machine_id, 0, &ignored) != SB_OK) {
        snprintf(at, room, "; no floor between runs (%s/%s/ has no history in git)", o->results_root, cur.machine_id);
        sb_history_free(runs);
        return 0;
    }
    if (sb_history_own_floors(runs, &ignored) != SB_OK || runs->nclass == 0) {
        snprintf(at, room, "; no floor between runs (%s/%s/'s history holds too few moves of one code)",
                 o->results_root, cur.machine_id);
        sb_history_free(runs);
        return 0;
    }
    char words[1024], span[64];
    snprintf(at, room, "; and, two runs, between runs of one code on %s (%s/%s/, %s): %s -- each row the larger",
             cur.machine_id, o->results_root, cur.machine_id, sb_history_span(runs, span, sizeof span),
             sb_history_floors_words(runs, words, sizeof words));
    return 1;
}

static sb_status compare_results(const compare_opts *o, sb_compare_table *t, sb_error *err)
{
    const char *names[64];
    int n = sb_algo_names(names, 64);
    sb_status st = sb_pattern_check(o->algos, names, n, "--algo", err);
    if (st || (st = check_sets(o, err)))
        return st;
    sb_noise_floor floors;
    const char *dirs[2] = { o->current, o->baseline };
    if ((st = sb_compare_floors(o->floor_file, dirs, 2, &floors, err)))
        return st;
    sb_floor_describe(&floors, t->floor_source, sizeof t->floor_source);
    sb_history runs;
    int have_runs = o->runs_floor && runs_floors(o, &runs, t);
    warn_result_sets(o, t);
    sb_compare_table_print_warnings(t, stderr);
    printf("compare: current against baseline, kernel time, row by row, each row's rounds its evidence\n"
           "A = baseline %s\nB = current %s\n\n", o->baseline, o->current);
    int rows_base = 0, rows_cur = 0, header = 0;
    sb_code_ids *ids = sb_code_ids_new();   /* what git gives for rows older than their code_id column */
    for (int i = 0; i < sb_algo_count() && !st; i++) {
        const char *algo = sb_algo_at(i)->name;
        if (!sb_pattern_match(o->algos, algo))
            continue;
        sb_rows base = { 0 }, cur = { 0 };
        int have_base, have_cur;
        if (!(st = load_result_set(o->baseline, algo, &base, &have_base, err)) &&
            !(st = load_result_set(o->current, algo, &cur, &have_cur, err)) && (base.count || cur.count)) {
            rows_base += base.count;
            rows_cur += cur.count;
            int known = t->nwarnings;
            warn_clocks(t, algo, &base, &cur);
            for (int w = known; w < t->nwarnings; w++)
                fprintf(stderr, "warning: %s\n", t->warning[w]);
            if (!header++)
                sb_compare_table_print_header(t, stdout);
            st = compare_algo(o, &base, &cur, &floors, have_runs ? &runs : NULL, t, ids, err);
        }
        sb_rows_free(&base);
        sb_rows_free(&cur);
    }
    sb_code_ids_free(ids);
    sb_floor_free(&floors);
    if (have_runs)
        sb_history_free(&runs);
    if (!st && !rows_base)
        st = sb_fail(err, SB_ERR_USAGE, "--baseline %s holds no rows of the selected algorithms (no <algo>.csv, or "
                                        "only its header)", o->baseline);
    else if (!st && !rows_cur)
        st = sb_fail(err, SB_ERR_USAGE, "--current %s holds no rows of the selected algorithms (no <algo>.csv, or "
                                        "only its header)", o->current);
    return st;
}

sb_status sb_compare_run(const compare_opts *o, sb_error *err)
{
    sb_compare_table t;
    sb_status st;
    /* the export files are opened (as temporary files) before any work, so a
     * bad path fails at once, and are renamed into place only at the end */
    if ((st = sb_compare_table_open(&t, o->baseline ? "results" : "variants", o->baseline ? o->baseline : o->spec[0],
                                    o->baseline ? o->current : o->spec[1], o->fdr, o->export_json, o->export_csv,
                                    err)))
        return st;
    st = o->baseline ? compare_results(o, &t, err) : compare_variants(o, &t, err);
    if (!st) {
        sb_compare_table_finish(&t, stdout);
        sb_compare_table_print_noise(&t, stderr);
        sb_compare_table_print_verdict(&t, stdout);
        if (o->baseline) {
            sb_compare_table_print_aa(&t, stdout);
            sb_compare_stream_rows(o->baseline, o->current, o->algos, o->variants, stdout);
        }
    }
    st = sb_compare_table_close(&t, st, err);
    if (!st && t.tally.failed)
        st = sb_fail(err, SB_ERR_AGREEMENT, "%d row(s) broke the agreement contract", t.tally.failed);
    if (!st && o->fail_on_slower && t.tally.slower)
        st = sb_fail(err, SB_ERR_SLOWER, "B is slower on %d row(s) (--fail-on-slower)", t.tally.slower);
    return st;
}

sb_status sb_compare_floors(const char *file, const char *const *dirs, int ndirs, sb_noise_floor *f, sb_error *err)
{
    return sb_compare_floors_named(file, "noise.csv", dirs, ndirs, f, err);
}

sb_status sb_floor_default_path(const char *name, char *out, sb_error *err)
{
    sb_env env;
    sb_env_collect(&env, 0, NULL, 0);
    return sb_path(out, err, "results/%s/%s", env.machine_id, name);
}

sb_status sb_compare_floors_named(const char *file, const char *name, const char *const *dirs, int ndirs,
                                  sb_noise_floor *f, sb_error *err)
{
    if (file)
        return sb_floor_read(file, f, err);
    char path[SB_PATH_MAX];
    sb_error ignored;
    for (int i = 0; i < ndirs; i++) {
        struct stat sb;
        if (stat(dirs[i], &sb) == 0 && S_ISDIR(sb.st_mode) &&
            snprintf(path, sizeof path, "%s/%s", dirs[i], name) < (int)sizeof path &&
            sb_floor_read(path, f, &ignored) == SB_OK)
            return SB_OK;
    }
    if (sb_floor_default_path(name, path, &ignored) == SB_OK && sb_floor_read(path, f, &ignored) == SB_OK)
        return SB_OK;
    sb_floor_defaults(f);
    return SB_OK;
}
