/* account.c - the progress line, the failures kept for the end, and where
 * the run's time went (state.h: time_account). */
#include "run/state.h"

#include "segbench/clock.h"

#include <stdio.h>

void run_progress(bench_run *r, const char *what)
{
    if (!r->tty || r->o->quiet)
        return;
    char eta[64] = "";
    double elapsed = sb_clock_ms() - r->started_ms;
    if (r->weight_done > 0 && elapsed > 5000.0) {
        double left = elapsed * (r->weight_total - r->weight_done) / r->weight_done / 1000.0;
        snprintf(eta, sizeof eta, ", ETA %dm%02ds", (int)(left / 60), (int)left % 60);
    }
    fprintf(stderr, "\r\033[K[%d/%d%s] %s", r->done + 1, r->total, eta, what);
    fflush(stderr);
}

void run_progress_clear(bench_run *r)
{
    if (r->tty && !r->o->quiet)
        fprintf(stderr, "\r\033[K");
}

void run_note_failure(bench_run *r, const char *row, const char *metric)
{
    if (r->failures < 32)
        snprintf(r->failed[r->failures], sizeof r->failed[0], "%.80s: %.110s", row, metric);
    r->failures++;
}

void run_spend(bench_run *r, run_spent_kind kind, double ms)
{
    double *to[] = { [RUN_SPENT_REFERENCES] = &r->spent.references,
                     [RUN_SPENT_REFERENCES_BESIDE] = &r->spent.references_beside,
                     [RUN_SPENT_PICTURES] = &r->spent.pictures,
                     [RUN_SPENT_CENSUS] = &r->spent.census,
                     [RUN_SPENT_REPEAT] = &r->spent.repeat,
                     [RUN_SPENT_STREAMS] = &r->spent.streams };
    *to[kind] += ms;
}

double run_spent_references(const bench_run *r) { return r->spent.references; }

void run_note_error(bench_run *r) { r->errors++; }
void run_note_noisy(bench_run *r) { r->noisy++; }
void run_note_left_out(bench_run *r, int rows) { r->host_left_out += rows; }

void run_account_row(bench_run *r, const sb_variant *v, int threads, const sb_measurement *m)
{
    double row = 0.0;
    for (int k = 0; k < SB_STEPS; k++) {
        r->spent.step[k] += m->step_ms[k];
        row += m->step_ms[k];
    }
    if (m->stopped >= SB_STOP_NONE && m->stopped <= SB_STOP_SLOW)
        r->spent.stopped[m->stopped]++;
    if (v->flags & SB_DEVICE)
        r->spent.gpu += row;
    else if (v->flags & SB_THREADED)
        r->spent.threaded += row;
    else
        r->spent.serial += row;
    if ((v->flags & SB_THREADED) && threads < r->o->threads[r->o->nthreads - 1])
        r->spent.sweep += row;
}

void run_account_algo(bench_run *r, const char *algo, double rows_ms, double streams_ms)
{
    time_account *a = &r->spent;
    if (a->nalgos < RUN_ACCOUNT_ALGOS)
        a->algo[a->nalgos++] = (algo_time){ algo, rows_ms, streams_ms };
}

/* "integral 12 s (streams 5), kmeans 40 s (streams 9), ..." */
static void account_by_algo(const time_account *a, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < a->nalgos && used < size; i++) {
        char streams[32] = "";
        if (a->algo[i].streams >= 500.0)
            snprintf(streams, sizeof streams, " (streams %.0f)", a->algo[i].streams / 1e3);
        int n = snprintf(out + used, size - used, "%s%s %.0f s%s", i ? ", " : "", a->algo[i].name,
                         (a->algo[i].rows + a->algo[i].streams) / 1e3, streams);
        used += n > 0 ? (size_t)n : 0;
    }
}

/* The account, as a line for a reader and a JSON object for env.json. */
void run_account_text(const bench_run *r, char *line, size_t line_size, char *json, size_t json_size)
{
    const time_account *a = &r->spent;
    double total = sb_clock_ms() - r->begun_ms, known = a->references + a->census + a->pictures + a->repeat + a->streams;
    for (int k = 0; k < SB_STEPS; k++)
        known += a->step[k];
    double rest = total > known ? total - known : 0.0;
    char by_algo[600], beside[96] = "";
    account_by_algo(a, by_algo, sizeof by_algo);
    if (a->references_beside >= 500.0)
        snprintf(beside, sizeof beside, " (and %.0f s more beside the GPU rows: --ahead)", a->references_beside / 1e3);
    snprintf(line, line_size,
             "where the time went (%.0f s): serial references, pipeline inputs and pictures %.0f s%s, rows %.0f s, "
             "kernel census %.0f s, gallery and quality files %.0f s, repeatability %.0f s, stream rows %.0f s, the rest %.0f s (images, bandwidth ceilings, "
             "files)\n"
             "  rows by step: check %.0f s, warm-up %.0f, timed %.0f, per frame %.0f, cold runs %.0f; by kind: "
             "serial %.0f s, CPU threads %.0f (the sweep's smaller counts %.0f), GPU %.0f\n"
             "  rows stopped by the noise rule %d, by the budget %d, at max_reps %d; slow rows %d\n"
             "  by algorithm (check, timing, pictures and streams): %s",
             total / 1e3, a->references / 1e3, beside, (a->serial + a->threaded + a->gpu) / 1e3, a->census / 1e3,
             a->pictures / 1e3, a->repeat / 1e3, a->streams / 1e3, rest / 1e3, a->step[SB_STEP_CHECK] / 1e3,
             a->step[SB_STEP_WARMUP] / 1e3,
             a->step[SB_STEP_TIMED] / 1e3, a->step[SB_STEP_FRAMES] / 1e3, a->step[SB_STEP_COLD] / 1e3,
             a->serial / 1e3, a->threaded / 1e3, a->sweep / 1e3, a->gpu / 1e3, a->stopped[SB_STOP_RULE],
             a->stopped[SB_STOP_BUDGET], a->stopped[SB_STOP_MAX], a->stopped[SB_STOP_SLOW], by_algo);
    snprintf(json, json_size,
             "{\"total\": %.1f, \"references\": %.1f, \"references_beside_gpu\": %.1f, \"check\": %.1f, \"warm_up\": %.1f, \"timed\": %.1f, "
             "\"per_frame\": %.1f, \"cold_runs\": %.1f, \"serial_rows\": %.1f, \"threaded_rows\": %.1f, "
             "\"sweep_rows\": %.1f, \"gpu_rows\": %.1f, \"census\": %.1f, \"gallery_quality\": %.1f, "
             "\"repeat_run\": %.1f, \"streams\": %.1f, \"rest\": %.1f}",
             total / 1e3, a->references / 1e3, a->references_beside / 1e3, a->step[SB_STEP_CHECK] / 1e3,
             a->step[SB_STEP_WARMUP] / 1e3, a->step[SB_STEP_TIMED] / 1e3, a->step[SB_STEP_FRAMES] / 1e3,
             a->step[SB_STEP_COLD] / 1e3, a->serial / 1e3, a->threaded / 1e3, a->sweep / 1e3, a->gpu / 1e3, a->census / 1e3, a->pictures / 1e3,
             a->repeat / 1e3, a->streams / 1e3, rest / 1e3);
}
