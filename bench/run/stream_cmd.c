/* stream_cmd.c - `segbench stream` (stream.h): the sequence, the frames'
 * references, a row for each number of frames in flight, printed; and the
 * row format bench's stream rows share. */
#include "run/stream.h"

#include "base/args.h"
#include "machine/env.h"
#include "variants/names.h"
#include "measure/protocol.h"
#include "variants/registry.h"
#include "cases/select.h"
#include "io/stage_view.h"

#include "segbench/clock.h"
#include "segbench/device.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void sb_stream_row_fill(sb_stream_row *row, const sb_algo *algo, int stage, const sb_variant *v,
                        const sb_sequence *seq, const sb_stream_result *res, const sb_energy *idle)
{
    memset(row, 0, sizeof *row);
    snprintf(row->algo, sizeof row->algo, "%s", algo->name);
    snprintf(row->stage, sizeof row->stage, "%s", algo->stages[stage]);
    snprintf(row->variant, sizeof row->variant, "%s", v->name);
    snprintf(row->backend, sizeof row->backend, "%s", v->backend);
    row->threads = res->threads;
    row->in_flight = res->in_flight;
    snprintf(row->sequence, sizeof row->sequence, "%s", seq->name);
    row->width = seq->width;
    row->height = seq->height;
    row->frames = res->frames;
    row->distinct = res->distinct;
    row->checked = res->checked;
    row->fps = res->fps;
    row->seconds = res->seconds;
    row->p50_ms = res->p50_ms;
    row->p99_ms = res->p99_ms;
    row->max_ms = res->max_ms;
    row->upload_ms = res->upload_ms;
    row->run_ms = res->run_ms;
    row->fetch_ms = res->fetch_ms;
    row->bound_fps = res->bound_fps;
    row->bound_fraction = res->bound_fraction;
    snprintf(row->bound_by, sizeof row->bound_by, "%s", res->bound_by);
    row->copies_fps = res->copies_fps;
    row->kernels_fps = res->kernels_fps;
    snprintf(row->start, sizeof row->start, "%s", res->chained ? "chained" : res->warm ? "warm" : "cold");
    snprintf(row->work_key, sizeof row->work_key, "%s", res->work_key);
    row->work_per_frame = res->work_per_frame;
    const sb_energy *e = &res->energy;
    int device = sb_is_device(v);
    snprintf(row->runs, sizeof row->runs, "%s", !device ? "" : res->runs_in_turn ? "in-turn" : "overlap");
    snprintf(row->source, sizeof row->source, "%s", res->colour_frames ? "colour" : "");
    row->host_ms = res->host_ms;
    row->gpu_j = device && e->gpu_j >= 0 && res->frames ? e->gpu_j / res->frames : -1;
    row->cpu_j = e->cpu_j >= 0 && res->frames ? e->cpu_j / res->frames : -1;
    row->gpu_idle_w = idle && idle->gpu_j >= 0 && idle->seconds > 0 ? idle->gpu_j / idle->seconds : -1;
    row->cpu_idle_w = idle && idle->cpu_j >= 0 && idle->seconds > 0 ? idle->cpu_j / idle->seconds : -1;
    char note[200] = "";
    if (device && row->gpu_j < 0)
        snprintf(note, sizeof note, "GPU %s", e->gpu_why);
    if (row->cpu_j < 0) {
        size_t n = strlen(note);
        snprintf(note + n, sizeof note - n, "%sCPU %s", n ? "; " : "", e->cpu_why);
    }
    snprintf(row->energy_note, sizeof row->energy_note, "%s", note);
    row->spread = res->spread;
    /* a few frames an instance finish in waves: their thirds say nothing */
    snprintf(row->flags, sizeof row->flags, "%s", res->few ? "few" : res->spread > SB_STREAM_UNSTABLE ? "unstable" : "");
    snprintf(row->agreement, sizeof row->agreement, "%s", res->agreement.verdict);
    snprintf(row->metric, sizeof row->metric, "%s", res->agreement.metric);
}

/* One side's joules a frame, and above idle where idle is known; nothing
 * when it has no reading (the row's energy note says why). */
static void joules_text(char *out, size_t size, const char *side, double j, double idle_w, double fps)
{
    out[0] = '\0';
    if (j >= 0 && idle_w >= 0 && fps > 0)
        snprintf(out, size, "%s %.4g J/frame (%.4g above idle at %.0f W); ", side, j, j - idle_w / fps, idle_w);
    else if (j >= 0)
        snprintf(out, size, "%s %.4g J/frame; ", side, j);
}

void sb_stream_row_print(FILE *fp, const sb_stream_row *r)
{
    int device = !view_is_cpu_backend(r->backend);
    fprintf(fp, "%s/%s%s%.0d %s, %s%s (%dx%d, %d distinct frames), %d in flight%s:\n", r->algo, r->variant,
            r->threads > 1 ? "@" : "", r->threads > 1 ? r->threads : 0, r->stage, r->sequence,
            sb_stream_source_note(r), r->width, r->height, r->distinct, r->in_flight, sb_stream_runs_note(r));
    char thirds[48] = "";
    if (!strstr(r->flags, "few"))
        snprintf(thirds, sizeof thirds, "; thirds within %.0f %%", 100.0 * r->spread);
    fprintf(fp, "  %10.1f frames/s   (%d frames in %.2f s%s)   latency p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", r->fps,
            r->frames, r->seconds, thirds, r->p50_ms, r->p99_ms, r->max_ms);
    if (strstr(r->flags, "unstable"))
        fprintf(fp, "  unstable: a third of the timed frames ran %.0f %% from the whole's rate; another run may differ "
                    "as much\n", 100.0 * r->spread);
    if (strstr(r->flags, "few"))
        fprintf(fp, "  few: fewer than %d frames an instance were timed (slow frames): the rate is one or two waves "
                    "of frames\n", SB_STREAM_FEW);
    char cell[64];
    sb_stream_bound_cell(r, cell, sizeof cell);
    if (device)
        fprintf(fp, "  bound %6.1f frames/s   (%s: copies alone %.1f, kernels alone %.1f frames/s with %d in flight; "
                    "one frame's upload %.3f ms, run %.3f ms, fetch %.3f ms): %s\n", r->bound_fps, r->bound_by,
                r->copies_fps, r->kernels_fps, r->in_flight, r->upload_ms, r->run_ms, r->fetch_ms, cell);
    else
        fprintf(fp, "  perfect scaling %6.1f frames/s   (%d frame%s side by side, a serial row's at most one a core, "
                    "at %.3f ms each alone; a model, not a bound): %s\n", r->bound_fps, r->in_flight,
                r->in_flight == 1 ? "" : "s", r->host_ms + r->run_ms, cell);
    if (!strcmp(r->start, "warm"))
        fprintf(fp, "  warm: each frame from the result of the frame %d before it (the clip's first %d cold); %s a "
                    "frame %.2f\n", r->in_flight, r->in_flight, r->work_key, r->work_per_frame);
    else if (!strcmp(r->start, "chained"))
        fprintf(fp, "  warm: each frame from the result of the frame 1 before it, taken on the device after its "
                    "run (the clip's first cold); %s a frame %.2f\n", r->work_key, r->work_per_frame);
    else if (r->work_key[0])
        fprintf(fp, "  cold: each frame from the algorithm's own init; %s a frame %.2f\n", r->work_key,
                r->work_per_frame);
    if (r->host_ms > 0)
        fprintf(fp, "  host: %.3f ms a frame alone making its grey from the colour frame, on the frame's own "
                    "thread\n", r->host_ms);
    char gpu[96], cpu[96];
    joules_text(gpu, sizeof gpu, "GPU", r->gpu_j, r->gpu_idle_w, r->fps);
    joules_text(cpu, sizeof cpu, "CPU", r->cpu_j, r->cpu_idle_w, r->fps);
    char line[400];
    snprintf(line, sizeof line, "%s%s%s", gpu, cpu, r->energy_note);
    size_t n = strlen(line);
    if (n >= 2 && line[n - 2] == ';')
        line[n - 2] = '\0';
    fprintf(fp, "  energy: %s\n", line);
    fprintf(fp, "  agreement: %s, %d frames checked: %s\n", r->agreement, r->checked, r->metric);
}

/* The set's scene to stream: of the size asked, else 1920x1080, else the first. */
static sb_status pick_scene(const sb_stream_request *q, sb_dataset *ds, const sb_sequence **seq, sb_error *err)
{
    const char *set = q->set ? q->set : "default";
    sb_status st = sb_dataset_load_set(".", set, ds, err);
    if (st)
        return st;
    if (ds->nsequences == 0)
        return sb_fail(err, SB_ERR_USAGE, "dataset '%s' has no scene to stream (a 'scene WxH' line in "
                       "datasets/sets/%s.set, then 'make datasets SET=%s'); or give --frames 'DIR/*.png'", set, set,
                       set);
    const char *want = q->size ? q->size : "1920x1080";
    char sizes[512] = "";
    for (int i = 0; i < ds->nsequences; i++) {
        char s[32];
        snprintf(s, sizeof s, "%dx%d", ds->sequences[i].width, ds->sequences[i].height);
        if (strcmp(s, want) == 0) {
            *seq = &ds->sequences[i];
            return SB_OK;
        }
        size_t n = strlen(sizes);
        snprintf(sizes + n, sizeof sizes - n, "%s%s", n ? ", " : "", s);
    }
    if (q->size)
        return sb_fail(err, SB_ERR_USAGE, "dataset '%s' has no %s scene (it has %s)", set, q->size, sizes);
    *seq = &ds->sequences[0];
    return SB_OK;
}

/* The serial reference's progress over the frames, on a terminal: a line
 * at least every second (GrabCut's reference takes seconds a 1080p
 * frame, and a dozen frames on two cores were silent for 90 s). */
static void tell_reference(void *ctx, int done, int total, double elapsed_ms)
{
    const char *name = ctx;
    if (done >= total) {
        fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "\r\033[K%s: the serial reference: %d of %d frames, %.0f s so far", name, done, total,
            elapsed_ms / 1e3);
    if (done > 0)
        fprintf(stderr, ", about %.0f s left", elapsed_ms / 1e3 * (total - done) / done);
    fflush(stderr);
}

/* --frames: a count (digits alone), or a glob (of frame files, or naming
 * one .y4m file). */
static int frames_is_count(const char *s)
{
    if (!s || !*s)
        return 0;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p))
            return 0;
    return 1;
}

/* What every row of one `segbench stream` shares. */
typedef struct stream_ctx {
    const sb_stream_request *q;
    const sb_variant *v;
    const sb_algo *algo;
    int stage;
    const sb_sequence *seq;
    const void *params;
    const sb_energy *idle;
    sb_frames *cold;             /* the frames, each from the algorithm's init */
    int failed;                  /* rows that broke the contract */
} stream_ctx;

/* A row's progress on a terminal: where its protocol is, every
 * SB_FRAMES_PROGRESS_MS (a GPU row of slow frames spends seconds on its
 * bound alone), from a thread of its own that only reads the step. */
typedef struct row_ticker {
    atomic_int step, done;
    const char *who;
    int k, warm;
    pthread_t tid;
    int started;
} row_ticker;

static void *ticker_main(void *arg)
{
    row_ticker *t = arg;
    double t0 = sb_clock_ms(), told = t0;
    while (!atomic_load(&t->done)) {
        struct timespec nap = { 0, 50 * 1000000L };
        nanosleep(&nap, NULL);
        if (sb_clock_ms() - told < SB_FRAMES_PROGRESS_MS)
            continue;
        told = sb_clock_ms();
        fprintf(stderr, "\r\033[K%s, %d in flight%s: %s, %.0f s", t->who, t->k, t->warm ? ", warm" : "",
                sb_stream_step_name(atomic_load(&t->step)), (told - t0) / 1e3);
        fflush(stderr);
    }
    if (told > t0)
        fputs("\r\033[K", stderr);
    return NULL;
}

static void ticker_start(row_ticker *t, const stream_ctx *sc, sb_stream_opts *o)
{
    atomic_init(&t->step, 0);
    atomic_init(&t->done, 0);
    t->who = sc->v->who;
    t->k = o->in_flight;
    t->warm = o->warm;
    t->started = !sc->q->quiet && isatty(2) && pthread_create(&t->tid, NULL, ticker_main, t) == 0;
    o->step = t->started ? &t->step : NULL;
}

static void ticker_stop(row_ticker *t, sb_stream_opts *o)
{
    atomic_store(&t->done, 1);
    if (t->started)
        pthread_join(t->tid, NULL);
    o->step = NULL;
}

/* One row: its frames through the variant, printed. */
static sb_status stream_row(stream_ctx *sc, const sb_frames *fr, sb_stream_opts *o, sb_stream_row *row,
                            sb_error *err)
{
    sb_stream_result res;
    o->reference_pass = &fr->pass;
    o->warm = fr->warm > 0;
    row_ticker ticker;
    ticker_start(&ticker, sc, o);
    sb_status st = sb_stream_measure(fr->c, fr->count, sc->v, o, &res, err);
    ticker_stop(&ticker, o);
    if (st)
        return st;
    sb_stream_row_fill(row, sc->algo, sc->stage, sc->v, sc->seq, &res, sc->idle);
    sb_stream_row_print(stdout, row);
    fflush(stdout);
    sc->failed += !res.agreement.ok;
    return SB_OK;
}

/* The rows at one K: cold, then (--warm) the same frames warm, each from
 * the result of the frame K before it -- or, runs in turn and a variant
 * with a chain op, from the frame just before it, taken on the device --
 * and what the start gained. */
static sb_status stream_at_k(stream_ctx *sc, sb_stream_opts *o, sb_error *err)
{
    int k = o->in_flight;
    if (!sb_is_device(sc->v)) {              /* K frames side by side, each on its own threads */
        char what[160];
        snprintf(what, sizeof what, "%s with %d frame%s in flight", sc->v->who, k, k == 1 ? "" : "s");
        sb_warn_oversubscribed(what, k * o->threads);
    }
    sb_stream_row cold, warm;
    sb_status st = stream_row(sc, sc->cold, o, &cold, err);
    if (st || !sc->q->warm)
        return st;
    sb_warm_chain chain = o->runs_in_turn ? sb_variant_warm_chain(sc->v) : NULL;
    int back = chain ? 1 : k;                /* the frame a warm frame begins from, that many before it */
    if (!sc->q->quiet)
        fprintf(stderr, "%s warm with %d in flight: the serial reference of each frame from the one %d before it...\n",
                sc->seq->name, k, back);
    char name[sizeof sc->seq->name];
    snprintf(name, sizeof name, "%s", sc->seq->name);
    sb_frames_progress progress = { tell_reference, name };
    sb_frames fr;
    st = sb_frames_open_warm(&fr, sc->algo, sc->stage, sc->params, sc->seq, back,
                             !sc->q->quiet && isatty(2) ? &progress : NULL, err);
    if (st)
        return st;
    o->chain = chain;
    st = stream_row(sc, &fr, o, &warm, err);
    o->chain = NULL;
    sb_frames_close(&fr);
    if (!st && cold.fps > 0 && cold.work_per_frame > 0)
        printf("  warm against cold, %d in flight: %.2fx the frames/s, p99 %.3f against %.3f ms, %s a frame %.2f "
               "against %.2f\n\n", k, warm.fps / cold.fps, warm.p99_ms, cold.p99_ms, warm.work_key,
               warm.work_per_frame, cold.work_per_frame);
    return st;
}

sb_status sb_run_stream(const sb_stream_request *q, sb_error *err)
{
    const sb_variant *v;
    int threads;
    sb_status st = sb_parse_variant_spec(q->spec, &v, &threads, err);
    if (st)
        return st;
    char why[256];
    if (sb_variant_availability(v, why, sizeof why) != SB_AVAILABLE)
        return sb_fail(err, SB_ERR_USAGE, "%s cannot run here: %s", v->who, why);
    const sb_algo *algo = sb_algo_find(v->algo);
    if (q->write_frames && (st = sb_stream_frames_dir_ok(q->write_frames, err)))
        return st;
    if (q->warm && !algo->warm_size)
        return sb_fail(err, SB_ERR_USAGE, "--warm: %s has no warm start yet (a frame beginning from an earlier "
                       "frame's result); k-means, SLIC and GrabCut have", algo->name);
    int stage = q->warm ? algo->warm_stage : algo->stream_stage;
    if (q->stage && (stage = sb_stage_find(algo, q->stage)) < 0)
        return sb_fail(err, SB_ERR_USAGE, "%s has no stage '%s' (see 'segbench list --algo %s')", algo->name, q->stage,
                       algo->name);
    if (!(v->stages & (1u << stage)))
        return sb_fail(err, SB_ERR_USAGE, "%s does not run the %s stage %s", v->who, algo->name, algo->stages[stage]);

    sb_stream_opts o;
    sb_stream_defaults(&o);
    o.threads = threads;
    o.runs_in_turn = q->runs_in_turn;
    o.colour_frames = q->colour_frames;
    if (q->seconds > 0)
        o.min_seconds = q->seconds;
    int counted = frames_is_count(q->frames);
    if (counted && (st = sb_parse_int(q->frames, 1, 10000000, "--frames", &o.frames, err)))
        return st;

    sb_dataset ds = { 0 };
    sb_sequence globbed = { 0 };
    const sb_sequence *seq = NULL;
    if (q->frames && !counted) {
        if ((st = sb_sequence_glob(q->frames, q->has_rect ? q->rect : NULL, &globbed, err)))
            return st;
        if (globbed.y4m.note[0])
            fprintf(stderr, "segbench stream: %s: %s\n", globbed.video, globbed.y4m.note);
        seq = &globbed;
    } else if ((st = pick_scene(q, &ds, &seq, err))) {
        sb_dataset_free(&ds);
        return st;
    }
    void *params = NULL;
    int usable = 1;
    char reason[256] = "";
    st = sb_case_params(algo, stage, q->has_rect ? q->rect : seq->rect, &params, &usable, reason, sizeof reason, err);
    if (!st && !usable)
        st = sb_fail(err, SB_ERR_USAGE, "%s cannot take %s: %s", algo->name, seq->name, reason);
    if (!st && q->warm && algo->warm_mode)
        algo->warm_mode(params);         /* cold and warm rows alike stop on the algorithm's own criterion */
    sb_frames fr = { 0 };
    if (!st) {
        if (!q->quiet)
            fprintf(stderr, "%s: the serial reference of each of %d frames (%dx%d)...\n", seq->name, seq->count,
                    seq->width, seq->height);
        char name[sizeof seq->name];
        snprintf(name, sizeof name, "%s", seq->name);
        sb_frames_progress progress = { tell_reference, name };
        st = sb_frames_open_watched(&fr, algo, stage, params, seq, sb_usable_cores(),
                                    !q->quiet && isatty(2) ? &progress : NULL, err);
    }
    sb_device_info dev = { 0 };
    if (!st) {
        if (sb_is_device(v))
            sb_device_query(&dev);
        sb_energy_open(dev.present ? dev.uuid : NULL);
    }
    const sb_energy *idle = st ? NULL : sb_energy_idle();
    int ks[SB_STREAM_KS], nk = q->nk;
    memcpy(ks, q->in_flight, sizeof ks);
    if (nk == 0) {
        ks[0] = sb_is_device(v) ? 3 : sb_usable_cores() / threads > 0 ? sb_usable_cores() / threads : 1;
        nk = 1;
    }
    stream_ctx sc = { q, v, algo, stage, seq, params, idle, &fr, 0 };
    for (int i = 0; i < nk && !st; i++) {
        o.in_flight = ks[i];
        st = stream_at_k(&sc, &o, err);
    }
    if (!st && q->write_frames && (st = sb_stream_write_frames(&fr, v, threads, q->write_frames, seq->name, err)) == 0) {
        if (sb_stream_frames_to_y4m(q->write_frames))
            fprintf(stderr, "wrote %d frame%s' results to %s\n", fr.count, fr.count == 1 ? "" : "s", q->write_frames);
        else
            fprintf(stderr, "wrote %d frame%s' results to %s/%s-f*.png\n", fr.count, fr.count == 1 ? "" : "s",
                    q->write_frames, seq->name);
    }
    sb_frames_close(&fr);
    free(params);
    sb_sequence_free(&globbed);
    sb_dataset_free(&ds);
    if (!st && sc.failed)
        st = sb_fail(err, SB_ERR_AGREEMENT, "%s broke its agreement contract on a frame of %s", v->who, seq->name);
    return st;
}
