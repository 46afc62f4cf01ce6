/* plan.c - which rows a run measures: for each (image, stage) the chosen
 * variants in registry order, threaded ones at each of their thread counts
 * (all of them where threads are swept), less the rows a resumed run has
 * already measured; the count and weight of all of them, for the progress
 * line; and the chosen variants that cannot run here. */
#include "run/state.h"

#include "base/patterns.h"
#include "variants/names.h"
#include "variants/registry.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Is the image above what bench times the algorithm on?  A time budget,
 * so `check` (which times nothing) and --no-size-caps ignore it. */
int run_size_caps(const bench_run *r) { return r->pipe->times && !r->o->no_size_caps; }

/* The thread sweep runs on each algorithm's first stage, at the images the
 * set marks `sweep` (default set: 640x480), or at its largest synthetic image
 * when the set marks none it benchmarks; other stages and images are timed
 * at the largest thread count only, unless --sweep all.  The sweep's low
 * counts are a run's costliest rows (one thread is as slow as the serial
 * reference), and one size is enough to show how a variant scales. */
static int sweeps_threads(const bench_run *r, const sb_algo *algo, int stage, const sb_dataset_image *im)
{
    if (r->o->sweep_all)
        return 1;
    if (stage != 0)
        return 0;
    int marked = 0;
    for (int i = 0; i < r->ds.count; i++)
        marked |= r->ds.images[i].sweep && sb_bench_takes_image(algo, &r->ds.images[i], run_size_caps(r));
    if (marked)
        return im->sweep;
    return im == sb_summary_image(&r->ds, algo, run_size_caps(r));   /* the summary's image */
}

/* Is this row already in the results of the run being resumed? */
static int already_measured(const sb_rows *done, const sb_algo *algo, int stage, const sb_variant *v, int threads,
                            const sb_dataset_image *im)
{
    sb_row key;
    memset(&key, 0, sizeof key);
    snprintf(key.algo, sizeof key.algo, "%s", algo->name);
    snprintf(key.stage, sizeof key.stage, "%s", algo->stages[stage]);
    snprintf(key.variant, sizeof key.variant, "%s", v->name);
    snprintf(key.image, sizeof key.image, "%s", im->name);
    key.threads = threads;
    for (int i = 0; i < done->count; i++)
        if (sb_row_same_key(&done->row[i], &key))
            return 1;
    return 0;
}

/* The rows still to measure for one (image, stage): variants in registry
 * order, threaded ones at each of their thread counts. */
static int run_plan_case(const bench_run *r, const sb_rows *done, const sb_algo *algo, int stage,
                         const sb_dataset_image *im, planned_row *plan)
{
    const sb_bench_opts *o = r->o;
    int n = 0, sweep = sweeps_threads(r, algo, stage, im);
    for (int k = 0; k < sb_variant_count(); k++) {
        const sb_variant *v = sb_variant_at(k);
        char why[300];
        if (!sb_stage_variant_chosen(o->variants, o->stages, v, algo, stage) || sb_variant_availability(v, why, sizeof why) != SB_AVAILABLE)
            continue;
        int first = 0, counts = 1;
        if (v->flags & SB_THREADED) {
            counts = o->nthreads;
            first = sweep ? 0 : counts - 1;
        }
        for (int t = first; t < counts && n < RUN_MAX_CASE_ROWS; t++) {
            int threads = (v->flags & SB_THREADED) ? o->threads[t] : 1;
            if (!already_measured(done, algo, stage, v, threads, im))
                plan[n++] = (planned_row){ v, threads };
        }
    }
    return n;
}

/* How long one run of a host row is predicted to take (ms): the serial
 * reference's run on this image over the row's threads -- perfect
 * scaling, the least it can take -- or, where the variant ran at these
 * threads on a smaller image of this stage earlier in the run, that run's
 * time per pixel times this image's pixels, whichever is more (a variant
 * that scales badly, GrabCut's push-relabel at 16 threads, is slower than
 * the first guess says). */
double run_host_predicted_ms(const sb_rows *measured, const char *stage, const char *variant, int threads,
                             double pixels, double ref_ms)
{
    double ms = ref_ms / (threads > 0 ? threads : 1);
    for (int i = 0; measured && i < measured->count; i++) {
        const sb_row *w = &measured->row[i];
        double px = (double)w->width * w->height;
        if (w->threads == threads && px > 0 && px <= pixels && w->kernel.n > 0 && !strcmp(w->stage, stage) &&
            !strcmp(w->variant, variant))
            ms = fmax(ms, w->kernel.median * pixels / px);
    }
    return ms;
}

/* One frame of the serial reference at this stage and size, predicted
 * (ms) from its runs on the run's images: the run on the largest image
 * not above this size (else the smallest), in proportion to pixels; 0:
 * no run to go by (`--stream only`). */
double run_reference_frame_ms(const bench_run *r, int stage, double pixels)
{
    const struct ref_run *best = NULL;
    for (int i = 0; i < r->nref_runs; i++) {
        const struct ref_run *e = &r->ref_runs[i];
        if (e->stage != stage || e->pixels <= 0)
            continue;
        int fits = e->pixels <= pixels, best_fits = best && best->pixels <= pixels;
        if (!best || (fits && (!best_fits || e->pixels > best->pixels)) ||
            (!fits && !best_fits && e->pixels < best->pixels))
            best = e;
    }
    return best ? best->ms * pixels / best->pixels : 0;
}

/* Keep the serial reference's run on an image (run_reference_frame_ms). */
void run_forget_references(bench_run *r)
{
    r->nref_runs = 0;
}

void run_note_reference(bench_run *r, int stage, const sb_dataset_image *im, double ref_ms)
{
    if (r->nref_runs < RUN_REF_RUNS && ref_ms > 0)
        r->ref_runs[r->nref_runs++] = (struct ref_run){ stage, (double)im->width * im->height, ref_ms };
}

/* --host-limit: leave out of plan[] the host rows other than the serial
 * reference (whose run the case has made: ref_ms) one run of which is
 * predicted to take longer than the limit, saying so in one line; the
 * count of rows left out. */
int run_limit_host_rows(bench_run *r, const sb_algo *algo, int stage, const sb_dataset_image *im, double ref_ms,
                        const sb_rows *measured, planned_row *plan, int *nplan)
{
    double limit_ms = r->o->host_limit_s * 1000.0, pixels = (double)im->width * im->height, worst = 0;
    if (limit_ms <= 0 || !r->pipe->times)
        return 0;
    const sb_variant *ref = sb_reference_variant(algo);
    int kept = 0, left = 0;
    for (int k = 0; k < *nplan; k++) {
        const planned_row *p = &plan[k];
        double ms = (p->v->flags & SB_DEVICE) || p->v == ref
                        ? 0
                        : run_host_predicted_ms(measured, algo->stages[stage], p->v->name, p->threads, pixels, ref_ms);
        if (ms > limit_ms) {
            left++;
            r->weight_total -= run_row_weight(p, im);
            worst = fmax(worst, ms);
        } else {
            plan[kept++] = *p;
        }
    }
    *nplan = kept;
    run_note_left_out(r, left);
    r->total -= left;
    if (left && !r->o->quiet) {
        printf("%-9s %-6s on %s: %d host row(s) left to the run of record: one run predicted at up to %.2g s, over "
               "--host-limit %g s\n", algo->name, algo->stages[stage], im->name, left, worst / 1000.0,
               r->o->host_limit_s);
        fflush(stdout);
    }
    return left;
}

/* A rough cost of one row, for the ETA: pixels over threads on the host,
 * a small fraction of that on the GPU, plus a fixed overhead. */
double run_row_weight(const planned_row *p, const sb_dataset_image *im)
{
    double px = (double)im->width * im->height;
    return 2e4 + ((p->v->flags & SB_DEVICE) ? px / 50.0 : px / p->threads);
}

/* The plan under construction: arrays grown as cases are added. */
typedef struct plan_builder {
    run_plan *p;
    int case_room, row_room;
} plan_builder;

static int plan_add_case(plan_builder *b, const sb_algo *algo, int image, int stage, const planned_row *rows, int n)
{
    run_plan *p = b->p;
    if (p->ncases == b->case_room) {
        int room = b->case_room ? 2 * b->case_room : 64;
        plan_case *grown = realloc(p->cases, (size_t)room * sizeof *grown);
        if (!grown)
            return 0;
        p->cases = grown;
        b->case_room = room;
    }
    if (p->nrows + n > b->row_room) {
        int room = b->row_room ? 2 * b->row_room : 1024;
        while (room < p->nrows + n)
            room *= 2;
        planned_row *grown = realloc(p->rows, (size_t)room * sizeof *grown);
        if (!grown)
            return 0;
        p->rows = grown;
        b->row_room = room;
    }
    /* first holds the offset while the row array may still move */
    p->cases[p->ncases++] = (plan_case){ algo, image, stage, NULL, p->nrows, n };
    memcpy(p->rows + p->nrows, rows, (size_t)n * sizeof *rows);
    p->nrows += n;
    return 1;
}

/* The plan from the options, the registry and the images, less the rows
 * a resumed run measured before (counted in present): every (algorithm,
 * image, stage) with rows to measure, in the order the run takes them. */
static sb_status plan_build(const bench_run *r, run_plan *p, sb_error *err)
{
    plan_builder b = { p, 0, 0 };
    planned_row rows[RUN_MAX_CASE_ROWS];       /* 4 KB: the stack, not a static */
    *p = (run_plan){ 0 };
    for (int i = 0; i < sb_algo_count(); i++) {
        const sb_algo *algo = sb_algo_at(i);
        if (!sb_pattern_match(r->o->algos, algo->name))
            continue;
        sb_rows done;
        p->present += run_done_rows_load(r, algo, &done);
        for (int img = 0; img < r->ds.count; img++) {
            const sb_dataset_image *im = &r->ds.images[img];
            if (!sb_bench_takes_image(algo, im, run_size_caps(r)))
                continue;
            for (int s = 0; s < algo->stage_count; s++) {
                int n = run_plan_case(r, &done, algo, s, im, rows);
                if (n > 0 && !plan_add_case(&b, algo, img, s, rows, n)) {
                    sb_rows_free(&done);
                    return sb_fail(err, SB_ERR_NOMEM, "out of memory planning the run");
                }
                for (int k = 0; k < n; k++)
                    p->weight += run_row_weight(&rows[k], im);
            }
        }
        sb_rows_free(&done);
    }
    for (int c = 0; c < p->ncases; c++)
        p->cases[c].rows = p->rows + p->cases[c].first;
    return SB_OK;
}

sb_status run_plan_all(bench_run *r, sb_error *err)
{
    sb_status st = plan_build(r, &r->plan, err);
    r->total = r->plan.nrows;
    r->weight_total = r->plan.weight;
    return st;
}

void run_plan_free(bench_run *r)
{
    free(r->plan.cases);
    free(r->plan.rows);
    r->plan = (run_plan){ 0 };
}

const plan_case *run_plan_find(const run_plan *p, const sb_algo *algo, int image, int stage)
{
    for (int c = 0; c < p->ncases; c++)
        if (p->cases[c].algo == algo && p->cases[c].image == image && p->cases[c].stage == stage)
            return &p->cases[c];
    return NULL;
}

/* The selected variants that cannot run here, one line per reason. */
void run_report_unavailable(const sb_bench_opts *o)
{
    char reasons[8][300];
    int counts[8] = { 0 }, nreasons = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        char why[300];
        if (!sb_pattern_match(o->algos, v->algo) || !sb_variant_pick(o->variants, v->algo, v->name) ||
            sb_variant_availability(v, why, sizeof why) == SB_AVAILABLE)
            continue;
        int k = 0;
        while (k < nreasons && strcmp(reasons[k], why) != 0)
            k++;
        if (k == nreasons && nreasons < 8)
            snprintf(reasons[nreasons++], sizeof reasons[0], "%s", why);
        if (k < nreasons)
            counts[k]++;
    }
    for (int k = 0; k < nreasons; k++)
        fprintf(stderr, "skipping %d variant(s): %s\n", counts[k], reasons[k]);
}
