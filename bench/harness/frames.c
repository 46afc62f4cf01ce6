/* frames.c - a sequence's frames as cases, side by side (frames.h). */
#include "harness/frames.h"

#include "segbench/clock.h"
#include "segbench/image_io.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct frames_job {
    const sb_algo *algo;
    int stage;
    const void *params;
    const sb_sequence *seq;
    sb_frames *fr;
    atomic_int next;
    sb_status *st;              /* per frame */
    sb_error *err;
} frames_job;

static sb_status open_frame(frames_job *j, int i)
{
    sb_image img;
    sb_status st = sb_image_load(j->seq->frames[i], j->algo->load_mode, &img, &j->err[i]);
    if (st)
        return st;
    st = sb_case_open(&j->fr->cd[i], j->algo, j->stage, j->params, &img, &j->err[i]);
    sb_image_free(&img);
    return st;
}

static void *frames_worker(void *arg)
{
    frames_job *j = arg;
    for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->seq->count;)
        j->st[i] = open_frame(j, i);
    return NULL;
}

sb_status sb_frames_open(sb_frames *fr, const sb_algo *algo, int stage, const void *params, const sb_sequence *seq,
                         int jobs, sb_error *err)
{
    memset(fr, 0, sizeof *fr);
    int n = seq->count;
    fr->cd = calloc((size_t)n, sizeof *fr->cd);
    fr->c = calloc((size_t)n, sizeof *fr->c);
    frames_job j = { algo, stage, params, seq, fr, 0, calloc((size_t)n, sizeof(sb_status)),
                     calloc((size_t)n, sizeof(sb_error)) };
    if (!fr->cd || !fr->c || !j.st || !j.err) {
        free(j.st);
        free(j.err);
        sb_frames_close(fr);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    double t0 = sb_clock_ms();
    if (jobs > n)
        jobs = n;
    if (jobs < 1 || sb_case_uses_memo(algo, stage))
        jobs = 1;
    pthread_t tid[64];
    int started = 0;
    atomic_init(&j.next, 0);
    for (int t = 1; t < jobs && t < 64; t++)
        started += pthread_create(&tid[started], NULL, frames_worker, &j) == 0;
    frames_worker(&j);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    fr->ref_ms = sb_clock_ms() - t0;
    sb_status st = SB_OK;
    for (int i = 0; i < n; i++) {
        if (j.st[i] && !st) {               /* the first frame's error */
            st = j.st[i];
            *err = j.err[i];
        }
        fr->c[i] = &fr->cd[i].c;
    }
    free(j.st);
    free(j.err);
    if (st) {                               /* the frames that opened, closed (a failed open left none) */
        for (int i = 0; i < n; i++)
            if (fr->cd[i].params)
                sb_case_close(&fr->cd[i]);
        sb_frames_close(fr);
        return st;
    }
    fr->count = n;
    return SB_OK;
}

void sb_frames_close(sb_frames *fr)
{
    for (int i = 0; i < fr->count; i++)
        sb_case_close(&fr->cd[i]);
    free(fr->cd);
    free(fr->c);
    memset(fr, 0, sizeof *fr);
}
