/* case.c - one algorithm of a run, in batches of whole images.  A batch's
 * cases (image x stage: the image loaded once, the stage's serial
 * reference computed once, cases/cases.h) are opened in order, ahead of
 * the rows where the machine has cores to spare (ahead.c: its reference
 * and its pictures), and measured in two passes:
 *   1. as each case opens, its GPU rows -- while the next references (and
 *      in the last batch the stream frames' that time no row:
 *      frames_ahead.c) are computed beside them, each on a core of its
 *      own, at most half the cores busy;
 *   2. then, with nothing else running, each case's pictures recorded
 *      (gallery index, quality file), its host rows in interleaved
 *      rounds, and the GPU rows whose every pass waits on the host
 *      (SB_HOST_BOUND).
 * A host row never shares the CPUs with a reference.  A batch holds its
 * cases open together, so it is cut to half the memory budget and to the
 * pipeline memo's room. */
#include "run/state.h"

#include "pages/report.h"

#include "segbench/clock.h"
#include "segbench/image_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many cases open at once: each holds its reference, and a
 * pipeline step's case up to SB_STEPS_MAX + 1 entries of the memo (64). */
enum { BATCH_CASES = 32, BATCH_MEMO_ENTRIES = 48 };

/* Measured in the first pass: a GPU row that the host does not bound. */
static int first_pass_row(const bench_run *r, const planned_row *p)
{
    unsigned flags = p->v->flags;
    return (flags & SB_DEVICE) && !((flags & SB_HOST_BOUND) && r->pipe->times);
}

static int pipeline_steps(const sb_algo *algo)
{
    int n = 0;
    for (const sb_algo *a = algo->after; a; a = a->after)
        n++;
    return n;
}

/* The images [from, end) of the next batch: at least one, then as many
 * as fit in half the memory budget and the batch's room for cases. */
static int batch_end(const bench_run *r, const sb_algo *algo, int from)
{
    size_t bytes = 0, cap = sb_memory_budget() / 2;
    int cases = 0, entries = 0, per_case = sb_case_uses_memo(algo, 0) ? pipeline_steps(algo) + 1 : 0;
    int end = from;
    for (; end < r->ds.count; end++) {
        const sb_dataset_image *im = &r->ds.images[end];
        size_t b = sb_case_peak_bytes(algo, im->width, im->height) * (size_t)algo->stage_count;
        if (end > from && (bytes + b > cap || cases + algo->stage_count > BATCH_CASES ||
                           entries + per_case * algo->stage_count > BATCH_MEMO_ENTRIES))
            break;
        bytes += b;
        cases += algo->stage_count;
        entries += per_case * algo->stage_count;
    }
    return end;
}

/* The batch's cases: each (image, stage) with rows planned and parameters
 * the stage takes; what is skipped is said here, in order. */
static sb_status plan_batch(bench_run *r, const sb_algo *algo, int from, int end, sb_image *images,
                            run_case *cases, int *ncases, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    *ncases = 0;
    for (int i = from; i < end; i++) {
        const sb_dataset_image *im = &r->ds.images[i];
        char why[300];
        if (sb_image_skip_reason(algo, im, run_size_caps(r), why, sizeof why)) {
            if (!o->quiet) {
                printf("%-9s skipped on %s (%dx%d): %s\n", algo->name, im->name, im->width, im->height, why);
                fflush(stdout);
            }
            continue;
        }
        for (int stage = 0; stage < algo->stage_count; stage++) {
            run_case *k = &cases[*ncases];
            const plan_case *planned = run_plan_find(&r->plan, algo, i, stage);
            k->nplan = planned ? planned->nrows : 0;
            if (k->nplan > 0) {            /* the case's own copy: --host-limit may leave rows out */
                if (!(k->plan = malloc((size_t)k->nplan * sizeof *k->plan)))
                    return sb_fail(err, SB_ERR_NOMEM, "out of memory");
                memcpy(k->plan, planned->rows, (size_t)k->nplan * sizeof *k->plan);
            }
            int usable = 1;
            sb_status st = k->nplan == 0 ? SB_OK
                                         : sb_case_params(algo, stage, im->rect, &k->params, &usable, why,
                                                          sizeof why, err);
            if (st || k->nplan == 0 || !usable) {
                if (!st && k->nplan > 0 && !o->quiet) {
                    printf("%-9s skipped on %s: %s\n", algo->name, im->name, why);
                    fflush(stdout);            /* in order with the rows, before the run's account on stderr */
                }
                free(k->params);
                free(k->plan);
                *k = (run_case){ 0 };
                if (st)
                    return st;
                continue;                      /* nothing selected, all measured before (--resume), or refused */
            }
            k->im = im;
            k->stage = stage;
            k->loaded = &images[i - from];
            (*ncases)++;
        }
    }
    return SB_OK;
}

/* Pass 1 for one case, once open: its reference noted, its GPU rows. */
static sb_status first_pass(bench_run *r, const sb_algo *algo, run_case *k, sb_rows *rows, sb_error *err)
{
    if (k->load)
        return sb_fail(err, k->load, "%s", k->load_err.msg);
    if (k->opened == SB_ERR_USAGE || k->opened == SB_ERR_LIMIT || k->opened == SB_ERR_NOMEM) {
        /* this stage cannot take this image (1000 superpixels of a 1x1
         * image, a rectangle outside it, too little memory): its rows
         * are skipped, saying why, and the run goes on */
        printf("%-9s %-6s skipped on %s (%dx%d): %s\n", algo->name, algo->stages[k->stage], k->im->name,
               k->loaded->width, k->loaded->height, k->why_not.msg);
        fflush(stdout);
        r->pairs_skipped++;
        return SB_OK;
    }
    if (k->opened)
        return sb_fail(err, k->opened, "%s", k->why_not.msg);
    sb_status st = SB_OK;
    for (int j = 0; j < k->nplan && !st; j++)
        if (first_pass_row(r, &k->plan[j]))
            st = run_row(r, rows, k->im, &k->cd.c, &k->plan[j], err);
    return st;
}

/* Pass 2 for one open case: its pictures recorded, host rows, host-bound GPU rows. */
static sb_status second_pass(bench_run *r, const sb_algo *algo, run_case *k, sb_rows *rows, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    const sb_case *c = &k->cd.c;
    run_limit_host_rows(r, algo, k->stage, k->im, c->ref_times.run_ms, rows, k->plan, &k->nplan);
    double t0 = sb_clock_ms();
    sb_status st = run_case_pictures_record(r, algo, k, err);
    run_spend(r, RUN_SPENT_PICTURES, sb_clock_ms() - t0);
    /* host rows in interleaved rounds (rounds.c), then the rest one by one */
    planned_row host[RUN_MAX_CASE_ROWS];
    int nhost = 0;
    for (int j = 0; j < k->nplan; j++)
        if (!(k->plan[j].v->flags & SB_DEVICE) && r->pipe->times && o->rounds > 1)
            host[nhost++] = k->plan[j];
    if (!st && nhost > 0)
        st = run_host_rows(r, rows, k->im, c, host, nhost, err);
    for (int j = 0; j < k->nplan && !st; j++)
        if (!first_pass_row(r, &k->plan[j]) && (nhost == 0 || (k->plan[j].v->flags & SB_DEVICE)))
            st = run_row(r, rows, k->im, c, &k->plan[j], err);
    return st;
}

/* The batch's cases, the last batch's stream frames made beside its GPU
 * rows (frames_ahead.c) once a reference of the stage that streams is
 * noted to predict from (k-means streams its second stage). */
static sb_status run_batch(bench_run *r, const sb_algo *algo, int from, int end, sb_rows *rows, sb_error *err)
{
    sb_image *images = calloc((size_t)(end - from), sizeof *images);
    run_case *cases = calloc((size_t)(end - from) * (size_t)algo->stage_count, sizeof *cases);
    int n = 0;
    sb_status st = images && cases ? plan_batch(r, algo, from, end, images, cases, &n, err)
                                   : sb_fail(err, SB_ERR_NOMEM, "out of memory");
    if (!st && n > 0) {
        case_opener op;
        int openers = run_cases_openers(r), frames_ahead = openers > 0 && end == r->ds.count;
        run_cases_begin(&op, r, algo, cases, n, openers);
        for (int k = 0; k < n && !st; k++) {
            run_case *c = run_case_ready(r, &op, k);
            if (c->opened == SB_OK && !c->load)
                run_note_reference(r, c->stage, c->im, c->cd.c.ref_times.run_ms);
            if (frames_ahead && c->opened == SB_OK && c->stage == algo->stream_stage && !r->frames_ahead)
                run_streams_ahead(r, algo);
            st = first_pass(r, algo, c, rows, err);
        }
        run_cases_end(r, &op);
        run_frames_ahead_join(r);
        for (int k = 0; k < n && !st; k++)
            if (cases[k].opened == SB_OK && !cases[k].load && cases[k].cd.c.algo)
                st = second_pass(r, algo, &cases[k], rows, err);
    }
    for (int k = 0; cases && k < n; k++) {
        if (cases[k].cd.c.algo)
            sb_case_close(&cases[k].cd);
        free(cases[k].params);
        free(cases[k].plan);
        sb_gallery_album_free(&cases[k].album);
    }
    for (int i = 0; images && i < end - from; i++)
        if (images[i].data)
            sb_image_free(&images[i]);
    free(cases);
    free(images);
    return st;
}

sb_status run_algo(bench_run *r, const sb_algo *algo, sb_error *err)
{
    sb_rows rows = { 0 };
    run_forget_references(r);
    sb_status st = run_open_logs(r, algo, err);
    for (int i = 0; i < r->ds.count && !st;) {
        int end = batch_end(r, algo, i);
        st = run_batch(r, algo, i, end, &rows, err);
        i = end;
    }
    sb_error end_err;
    sb_status ended = run_close_logs(r, algo, &rows, !st, &end_err);
    sb_rows_free(&rows);
    if (!st && ended) {
        st = ended;
        *err = end_err;
    }
    return st;
}
