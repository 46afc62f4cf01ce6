/* frames.c - a sequence's frames as cases, side by side (frames.h). */
#include "cases/frames.h"

#include "variants/agreement.h"
#include "machine/host_noise.h"

#include "segbench/clock.h"
#include "segbench/image_io.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FRAMES_JOBS_MAX = SB_STREAM_MAX_IN_FLIGHT };

typedef struct frames_job {
    const sb_algo *algo;
    int stage;
    const void *params;
    const sb_sequence *seq;
    sb_frames *fr;
    sb_image *img;              /* per distinct frame, loaded first */
    sb_case_data *repeat;       /* the pass's frames after the distinct ones */
    atomic_int next;
    atomic_int done;            /* frames of the pass whose references have run */
    sb_status *st;              /* per frame of the pass */
    sb_error *err;
    int exempt;                 /* the caller is exempt from the quiet wait: so are its workers */
    int chains;                 /* warm: frame d starts from frame d - chains (0: cold) */
} frames_job;

static void *load_worker(void *arg)
{
    frames_job *j = arg;
    for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->seq->count;)
        j->st[i] = sb_sequence_load_frame(j->seq, i, j->algo->load_mode, &j->img[i], &j->err[i]);
    return NULL;
}

/* Frame f of the pass: a distinct frame's case, or a repeat's, its
 * reference's run timed as a stream times a frame (upload, run, fetch:
 * not the case's pinned copy, nor the reference's allocation, which a
 * stream makes once per instance -- 16 threads pinning 4K frames at once
 * took 0.5 s each on the H200 host). */
static void *open_worker(void *arg)
{
    frames_job *j = arg;
    sb_reference_pass *p = &j->fr->pass;
    for (int f; (f = atomic_fetch_add(&j->next, 1)) < p->total;) {
        int d = f % p->n;
        sb_case_data *cd = f < p->n ? &j->fr->cd[d] : &j->repeat[f - p->n];
        j->st[f] = sb_case_open(cd, NULL, j->algo, j->stage, j->params, &j->img[d], &j->err[f]);
        if (!j->st[f]) {
            p->submit_ms[f] = cd->c.ref_times.began_ms;
            p->done_ms[f] = cd->c.ref_times.began_ms + cd->c.ref_times.frame_ms;
        }
        atomic_fetch_add(&j->done, 1);
    }
    return NULL;
}

/* A warm frame: its parameters and start record, from the reference's
 * output of the frame `chains` before it (cold for the first of each chain). */
static void warm_params(frames_job *j, int d)
{
    const sb_algo *a = j->algo;
    void *params = (char *)j->fr->params + (size_t)d * a->params_size;
    void *start = (char *)j->fr->starts + (size_t)d * a->warm_size;
    memcpy(params, j->params, a->params_size);
    int warm = d >= j->chains;
    a->warm_from(start, warm ? j->fr->cd[d - j->chains].c.reference : NULL);
    a->warm_attach(params, warm ? start : NULL);
}

/* Warm: one chain of frames a turn (d, d + chains, ...), each after the
 * one before it, whose reference its start is made from. */
static void *chain_worker(void *arg)
{
    frames_job *j = arg;
    sb_reference_pass *p = &j->fr->pass;
    for (int chain; (chain = atomic_fetch_add(&j->next, 1)) < j->chains;)
        for (int d = chain; d < p->n; d += j->chains) {
            sb_case_data *cd = &j->fr->cd[d];
            if (d >= j->chains && j->st[d - j->chains]) {      /* the frame it starts from failed */
                j->st[d] = j->st[d - j->chains];
                j->err[d] = j->err[d - j->chains];
            } else {
                warm_params(j, d);
                j->st[d] = sb_case_open(cd, NULL, j->algo, j->stage,
                                        (char *)j->fr->params + (size_t)d * j->algo->params_size, &j->img[d],
                                        &j->err[d]);
            }
            if (!j->st[d]) {
                cd->c.start = d >= j->chains ? (char *)j->fr->starts + (size_t)d * j->algo->warm_size : NULL;
                p->submit_ms[d] = cd->c.ref_times.began_ms;
                p->done_ms[d] = cd->c.ref_times.began_ms + cd->c.ref_times.frame_ms;
            }
            atomic_fetch_add(&j->done, 1);
        }
    return NULL;
}

typedef struct worker {
    void *(*fn)(void *);
    frames_job *j;
} worker;

/* A started thread: exempt from sb_host_wait_quiet where its starter is
 * (bench makes frames beside the GPU rows: run/frames_ahead.c). */
static void *worker_main(void *arg)
{
    const worker *w = arg;
    if (w->j->exempt)
        sb_host_quiet_exempt_self(1);
    w->fn(w->j);
    if (w->j->exempt)
        sb_host_quiet_exempt_self(0);
    return NULL;
}

/* fn on `jobs` threads, this one among them. */
static void side_by_side(void *(*fn)(void *), frames_job *j, int jobs)
{
    pthread_t tid[FRAMES_JOBS_MAX];
    worker w = { fn, j };
    int started = 0;
    atomic_store(&j->next, 0);
    for (int t = 1; t < jobs && t < FRAMES_JOBS_MAX; t++)
        started += pthread_create(&tid[started], NULL, worker_main, &w) == 0;
    fn(j);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

/* fn on `jobs` threads while this one tells the progress of j->done. */
static void side_by_side_watched(void *(*fn)(void *), frames_job *j, int jobs, int total,
                                 const sb_frames_progress *progress)
{
    pthread_t tid[FRAMES_JOBS_MAX];
    worker w = { fn, j };
    int started = 0;
    atomic_store(&j->next, 0);
    atomic_store(&j->done, 0);
    for (int t = 0; t < jobs && t < FRAMES_JOBS_MAX; t++)
        started += pthread_create(&tid[started], NULL, worker_main, &w) == 0;
    if (!started)
        fn(j);                                  /* no thread to be had: this one works */
    double t0 = sb_clock_ms(), told = t0;
    while (atomic_load(&j->done) < total) {
        struct timespec nap = { 0, 50 * 1000000L };
        nanosleep(&nap, NULL);
        if (sb_clock_ms() - told >= SB_FRAMES_PROGRESS_MS) {
            told = sb_clock_ms();
            progress->tell(progress->ctx, atomic_load(&j->done), total, told - t0);
        }
    }
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    progress->tell(progress->ctx, total, total, sb_clock_ms() - t0);
}

/* Each repeat's reference against its frame's first: the pass's agreement. */
static void check_repeats(frames_job *j)
{
    sb_reference_pass *p = &j->fr->pass;
    p->ag.ok = 1;
    snprintf(p->ag.verdict, sizeof p->ag.verdict, "reference");
    int repeats = p->total - p->n;
    if (repeats > 0)
        snprintf(p->ag.metric, sizeof p->ag.metric, "the reference itself: its runs define the contract (%d repeat%s "
                 "of its frames agreed with their first runs)", repeats, repeats == 1 ? "" : "s");
    else
        snprintf(p->ag.metric, sizeof p->ag.metric, "the reference itself: its runs define the contract");
    for (int f = p->n; f < p->total; f++) {
        const sb_case *first = &j->fr->cd[f % p->n].c;
        sb_agreement ag;
        sb_output_check(j->algo, first->input, first->params, first->reference, j->repeat[f - p->n].reference,
                        first->reference_variant->flags, &ag);
        if (!ag.ok) {
            p->ag = ag;
            snprintf(p->ag.metric, sizeof p->ag.metric, "the serial reference ran frame %d twice and disagreed "
                     "with itself: %.140s", f % p->n + 1, ag.metric);
            return;
        }
    }
}

/* The frames' cases: cold (chains 0), or warm with `chains` in flight. */
static sb_status frames_open(sb_frames *fr, const sb_algo *algo, int stage, const void *params, const sb_sequence *seq,
                             int jobs, int chains, const sb_frames_progress *progress, sb_error *err)
{
    memset(fr, 0, sizeof *fr);
    int n = seq->count;
    if (jobs > FRAMES_JOBS_MAX)
        jobs = FRAMES_JOBS_MAX;
    if (jobs < 1 || sb_case_uses_memo(algo, stage))
        jobs = 1;
    /* repeats up to one frame a thread, where that many cases fit in memory (cold only: a warm
       frame's reference is its chain's) */
    int total = chains || n > jobs ? n : jobs;
    if ((double)total * (double)sb_case_peak_bytes(algo, seq->width, seq->height) > (double)sb_memory_budget())
        total = n;
    fr->cd = calloc((size_t)n, sizeof *fr->cd);
    fr->c = calloc((size_t)n, sizeof *fr->c);
    fr->warm = chains;
    if (chains) {
        fr->params = calloc((size_t)n, algo->params_size);
        fr->starts = calloc((size_t)n, algo->warm_size);
    }
    frames_job j = { algo, stage, params, seq, fr, calloc((size_t)n, sizeof(sb_image)),
                     calloc((size_t)(total - n + 1), sizeof(sb_case_data)), 0, 0,
                     calloc((size_t)total, sizeof(sb_status)), calloc((size_t)total, sizeof(sb_error)),
                     sb_host_quiet_exempt_is_self(), chains };
    sb_reference_pass *p = &fr->pass;
    p->k = jobs < total ? jobs : total;
    p->n = n;
    p->total = total;
    p->submit_ms = calloc((size_t)total, sizeof *p->submit_ms);
    p->done_ms = calloc((size_t)total, sizeof *p->done_ms);
    sb_status st = SB_OK;
    if (!fr->cd || !fr->c || !j.img || !j.repeat || !j.st || !j.err || !p->submit_ms || !p->done_ms ||
        (chains && (!fr->params || !fr->starts)))
        st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
    double t0 = sb_clock_ms();
    if (!st)
        side_by_side(load_worker, &j, jobs < n ? jobs : n);
    for (int i = 0; i < n && !st; i++)
        if (j.st[i]) {
            st = j.st[i];
            *err = j.err[i];
        }
    if (!st) {
        sb_energy_mark_now(&p->before);
        void *(*worker_fn)(void *) = chains ? chain_worker : open_worker;
        int workers = chains ? (p->k < chains ? p->k : chains) : p->k;
        if (progress)
            side_by_side_watched(worker_fn, &j, workers, total, progress);
        else
            side_by_side(worker_fn, &j, workers);
        sb_energy_mark_now(&p->after);
        for (int f = 0; f < total && !st; f++)
            if (j.st[f]) {                      /* the first frame's error */
                st = j.st[f];
                *err = j.err[f];
            }
        if (!st)
            check_repeats(&j);
    }
    fr->ref_ms = sb_clock_ms() - t0;
    for (int i = 0; j.img && i < n; i++)
        sb_image_free(&j.img[i]);
    for (int f = n; j.repeat && j.st && f < total; f++)
        if (!j.st[f] && j.repeat[f - n].params)
            sb_case_close(&j.repeat[f - n]);
    free(j.img);
    free(j.repeat);
    free(j.st);
    free(j.err);
    for (int i = 0; i < n && fr->c; i++)
        fr->c[i] = &fr->cd[i].c;
    if (st) {                               /* the frames that opened, closed (a failed open left none) */
        for (int i = 0; fr->cd && i < n; i++)
            if (fr->cd[i].params)
                sb_case_close(&fr->cd[i]);
        sb_frames_close(fr);
        return st;
    }
    fr->count = n;
    return SB_OK;
}

sb_status sb_frames_open(sb_frames *fr, const sb_algo *algo, int stage, const void *params, const sb_sequence *seq,
                         int jobs, sb_error *err)
{
    return frames_open(fr, algo, stage, params, seq, jobs, 0, NULL, err);
}

sb_status sb_frames_open_watched(sb_frames *fr, const sb_algo *algo, int stage, const void *params,
                                 const sb_sequence *seq, int jobs, const sb_frames_progress *progress, sb_error *err)
{
    return frames_open(fr, algo, stage, params, seq, jobs, 0, progress, err);
}

sb_status sb_frames_open_warm(sb_frames *fr, const sb_algo *algo, int stage, const void *params,
                              const sb_sequence *seq, int k, const sb_frames_progress *progress, sb_error *err)
{
    if (!algo->warm_size)
        return sb_fail(err, SB_ERR_USAGE, "%s: no warm start (a frame beginning from the one before's result) "
                       "is defined for it", algo->name);
    if (k < 1)
        return sb_fail(err, SB_ERR_USAGE, "a warm stream needs at least one frame in flight, not %d", k);
    return frames_open(fr, algo, stage, params, seq, k, k, progress, err);
}

void sb_frames_close(sb_frames *fr)
{
    for (int i = 0; i < fr->count; i++)
        sb_case_close(&fr->cd[i]);
    free(fr->params);
    free(fr->starts);
    free(fr->cd);
    free(fr->c);
    free(fr->pass.submit_ms);
    free(fr->pass.done_ms);
    memset(fr, 0, sizeof *fr);
}
