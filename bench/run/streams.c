/* streams.c - bench's stream rows (run/stream.h, measure/stream.h): after
 * an algorithm's single-frame rows, each of the set's scenes that the
 * algorithm takes (its bench size) streams through
 *   - the top of its GPU ladder (SB_LADDER_TOP) with 1, 2 and 3 frames in
 *     flight, and 2 with runs in turn (measure/stream.h: kernels that fill
 *     the GPU fall into lock-step when two frames' runs overlap freely):
 *     the lessons page's frames-in-flight table, and the best GPU rate;
 *   - the same for each branch off the top that narrows its output
 *     (SB_NARROW: SLIC's labels in 16 bits), so that lesson's gain in
 *     frames/s stands beside the top's;
 *   - the same for each branch off the top that takes colour frames and
 *     makes their grey on the GPU (SB_COLOUR_IN: the integral image), and
 *     for the top itself from the same colour frames, its host making
 *     each one's grey: that lesson's gain;
 *   - the serial reference with one frame per usable core: frame-level
 *     parallelism, the honest CPU competitor of a stream (where its frames
 *     are slow, the pass that made the frames' references is its row:
 *     cases/frames.h).
 * A variant's rows of one scene differ in K alone: the first measures the
 * bound's one-frame parts (measure/stream.h, step 3) and the others take
 * them, with a quarter of the warm-up.
 * Only algorithms run whole (not the steps of a pipeline) stream.  The
 * rows go to <algo>.stream.csv, rewritten whole when the algorithm's rows
 * are done (a stream row takes about a second, so --resume measures them
 * again). */
#include "run/state.h"
#include "run/stream.h"

#include "variants/names.h"
#include "measure/protocol.h"
#include "variants/registry.h"
#include "cases/select.h"

#include "segbench/clock.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { STREAM_GPU_KS = 4, STREAM_ROWS_MAX = 64, STREAM_PLAN_MAX = 6 };

/* The GPU rows: frames in flight, and whether their runs take turns. */
static const struct {
    int k, in_turn;
} GPU_ROWS[STREAM_GPU_KS] = { { 1, 0 }, { 2, 0 }, { 3, 0 }, { 2, 1 } };

/* The variants an algorithm streams, with their frames in flight. */
typedef struct stream_plan {
    const sb_variant *v;
    int ks[STREAM_GPU_KS], in_turn[STREAM_GPU_KS], nk;
    int colour;                 /* from colour frames (measure/stream.h) */
} stream_plan;

/* Is v a lesson of the frame that grows from the top: a narrow output
 * (SB_NARROW) or a colour input (SB_COLOUR_IN) whose parent is the
 * algorithm's GPU ladder top?  Its rows beside the top's give that edge's
 * gain in frames/s. */
static int frame_lesson_off_the_top(const sb_variant *v)
{
    if (!sb_is_device(v) || !(v->flags & (SB_NARROW | SB_COLOUR_IN)) || !v->parent)
        return 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *t = sb_variant_at(i);
        if ((t->flags & SB_LADDER_TOP) && sb_is_device(t) && !strcmp(t->algo, v->algo) && !strcmp(t->name, v->parent))
            return 1;
    }
    return 0;
}

/* The GPU rows' frames in flight, or the host's: one frame per usable core. */
static void plan_ks(stream_plan *p, int gpu)
{
    if (gpu) {
        for (int k = 0; k < STREAM_GPU_KS; k++) {
            p->ks[k] = GPU_ROWS[k].k;
            p->in_turn[k] = GPU_ROWS[k].in_turn;
        }
        p->nk = p->v->flags & SB_ONE_AT_A_TIME ? 1 : STREAM_GPU_KS;
    } else {
        p->ks[0] = sb_usable_cores();
        p->in_turn[0] = 0;
        p->nk = 1;
    }
}

static int plan_streams(const bench_run *r, const sb_algo *algo, int stage, stream_plan *plan)
{
    int n = 0;
    const sb_variant *ref = sb_reference_variant(algo);
    const sb_variant *top = NULL;
    int colour_lessons = 0;
    /* the GPU's rows first (the top, then the frame's lessons off it):
     * after the CPU's, which keeps every core busy with frames for
     * seconds, the GPU rows' latency showed tails (p99 up to 2.7x p50 on
     * the H100) that the same rows run alone did not (1.1x) */
    for (int pass = 0; pass < 3; pass++) {
        int first = n;
        for (int i = 0; i < sb_variant_count() && n < STREAM_PLAN_MAX && !(pass == 0 && n > first); i++) {
            const sb_variant *v = sb_variant_at(i);
            if (strcmp(v->algo, algo->name) || !(v->stages & (1u << stage)) || !v->ops)
                continue;
            int gpu = sb_is_device(v) && (pass == 0 ? (v->flags & SB_LADDER_TOP) != 0 : frame_lesson_off_the_top(v));
            if ((pass < 2 ? !gpu : v != ref) || !sb_variant_pick(r->o->variants, algo->name, v->name))
                continue;
            char why[256];
            if (sb_variant_availability(v, why, sizeof why) != SB_AVAILABLE)
                continue;
            stream_plan *p = &plan[n++];
            memset(p, 0, sizeof *p);
            p->v = v;
            plan_ks(p, pass < 2);
            top = pass == 0 ? v : top;
            colour_lessons += pass == 1 && (v->flags & SB_COLOUR_IN);
        }
        if (pass == 1 && top && colour_lessons && n < STREAM_PLAN_MAX) {   /* the top from colour frames */
            stream_plan *p = &plan[n++];
            memset(p, 0, sizeof *p);
            p->v = top;
            p->colour = 1;
            plan_ks(p, 1);
        }
    }
    return n;
}

/* Does the algorithm stream this scene: whole (no pipeline step), within
 * its bench size and the memory budget? */
static int takes_scene(const bench_run *r, const sb_algo *algo, int stage, const sb_sequence *seq)
{
    if (sb_case_uses_memo(algo, stage))
        return 0;
    sb_dataset_image im;
    memset(&im, 0, sizeof im);
    im.width = seq->width;
    im.height = seq->height;
    memcpy(im.rect, seq->rect, sizeof im.rect);
    char why[300];
    return !sb_image_skip_reason(algo, &im, run_size_caps(r), why, sizeof why);
}

static void stamp_row(const bench_run *r, sb_stream_row *row)
{
    snprintf(row->commit, sizeof row->commit, "%s", r->row_commit);
    snprintf(row->run_id, sizeof row->run_id, "%s", r->env.run_id);
    time_t now = time(NULL);
    strftime(row->date, sizeof row->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

/* Is a frame of the scene predicted (plan.c) over --host-limit? */
static int over_host_limit(const bench_run *r, int stage, const sb_sequence *seq)
{
    double frame_ms = run_reference_frame_ms(r, stage, (double)seq->width * seq->height);
    return r->o->host_limit_s > 0 && frame_ms > r->o->host_limit_s * 1000.0;
}

/* --host-limit on a scene: the host rows (the serial reference, a frame
 * a core) whose frames are predicted to take longer each are left out of
 * kept[], saying so.  Without its host row the frames' references are
 * made once each, with no repeats up to a frame per core (*jobs: the
 * distinct frames at most), for the GPU rows to check against -- made
 * ahead where they could be (frames_ahead.c); with no row left, not at
 * all.  The rows kept; their count. */
static int limit_host_streams(bench_run *r, const sb_algo *algo, int stage, const sb_sequence *seq,
                              const stream_plan *plan, int nplan, stream_plan *kept, int *jobs)
{
    double frame_ms = run_reference_frame_ms(r, stage, (double)seq->width * seq->height);
    int n = 0, left = 0, over = over_host_limit(r, stage, seq);
    for (int i = 0; i < nplan; i++) {
        if (!sb_is_device(plan[i].v) && over)
            left++;
        else
            kept[n++] = plan[i];
    }
    if (left) {
        run_note_left_out(r, left);
        if (*jobs > seq->count)
            *jobs = seq->count;
        if (!r->o->quiet)
            fprintf(stderr, "  stream %s/%s %s: left to the run of record: a frame predicted at %.2g s, over "
                            "--host-limit %g s%s\n", algo->name, sb_reference_variant(algo)->name, seq->name,
                    frame_ms / 1000.0, r->o->host_limit_s, n ? "" : " (no row left: its references not made)");
    }
    return n;
}

/* One scene through the planned variants, each row to the reporters
 * (*nrows counts them). */
static sb_status stream_scene(bench_run *r, const sb_algo *algo, int stage, const sb_sequence *seq,
                              const stream_plan *plan, int nplan, int *nrows, sb_error *err)
{
    void *params = NULL;
    int usable = 1;
    char why[256] = "";
    sb_status st = sb_case_params(algo, stage, seq->rect, &params, &usable, why, sizeof why, err);
    if (st || !usable) {
        free(params);
        if (!st)
            fprintf(stderr, "%s: %s skipped: %s\n", algo->name, seq->name, why);
        return st;
    }
    stream_plan kept[STREAM_PLAN_MAX];
    int jobs = sb_usable_cores(), nplan_all = nplan;
    nplan = limit_host_streams(r, algo, stage, seq, plan, nplan, kept, &jobs);
    plan = kept;
    if (nplan == 0) {
        free(params);
        return SB_OK;
    }
    sb_frames fr;
    double t0 = sb_clock_ms();
    /* the frames made ahead are these exactly: once each, no repeats */
    int ahead = jobs == seq->count && nplan < nplan_all ? run_frames_ahead_take(r, seq, &fr, &st, err) : 0;
    if (!ahead && !r->o->quiet)
        fprintf(stderr, "%s %s: the serial reference of each of %d frames of %s...\n", algo->name,
                algo->stages[stage], seq->count, seq->name);
    if (!ahead)
        st = sb_frames_open(&fr, algo, stage, params, seq, jobs, err);
    free(params);
    if (st)
        return st;
    run_spend(r, RUN_SPENT_REFERENCES, sb_clock_ms() - t0);
    const sb_energy *idle = sb_energy_idle();
    for (int i = 0; i < nplan && !st; i++) {
        sb_stream_opts o;
        sb_stream_defaults(&o);
        if (r->o->stream_seconds > 0)
            o.min_seconds = r->o->stream_seconds;
        if (o.min_seconds < SB_ENERGY_MIN_S)      /* no energy to read: enough frames will do */
            o.enough_frames = SB_STREAM_ENOUGH_FRAMES;
        o.reference_pass = &fr.pass;
        sb_stream_result first;        /* the variant's first row here: its bound's parts serve the others */
        const double warmup_ms = o.warmup_ms;
        for (int k = 0; k < plan[i].nk && !st && *nrows < STREAM_ROWS_MAX; k++) {
            o.in_flight = plan[i].ks[k];
            o.runs_in_turn = plan[i].in_turn[k];
            o.colour_frames = plan[i].colour;
            /* after its first row the GPU ran this variant's frames just before: its clocks are up */
            o.warmup_ms = o.parts_of ? warmup_ms / 4 : warmup_ms;
            sb_stream_result res;
            sb_error row_err = { SB_OK, "" };
            sb_status rst = sb_stream_measure(fr.c, fr.count, plan[i].v, &o, &res, &row_err);
            if (rst) {              /* one row that cannot run (device memory): said, and the run goes on */
                fprintf(stderr, "%s/%s stream of %s%s, %d in flight%s: %s\n", algo->name, plan[i].v->name,
                        seq->name, o.colour_frames ? " from colour" : "", o.in_flight,
                        o.runs_in_turn ? ", runs in turn" : "", row_err.msg);
                run_note_error(r);
                continue;
            }
            if (!o.parts_of && res.agreement.ok && res.bound_fps > 0) {
                first = res;
                o.parts_of = &first;
            }
            sb_stream_row one, *row = &one;
            sb_stream_row_fill(row, algo, stage, plan[i].v, seq, &res, idle);
            stamp_row(r, row);
            (*nrows)++;
            if ((st = sb_reporters_stream_row(&r->out, row, err)))
                break;
            if (strstr(row->flags, "unstable"))
                run_note_noisy(r);
            if (!res.agreement.ok) {
                char label[200];
                snprintf(label, sizeof label, "%s %s stream %s K=%d%s %s%s", algo->name, algo->stages[stage],
                         plan[i].v->name, row->in_flight, sb_stream_runs_note(row), seq->name,
                         sb_stream_source_note(row));
                run_note_failure(r, label, res.agreement.metric);
            }
        }
    }
    sb_frames_close(&fr);
    return st;
}

/* Does the scene stream with GPU rows while --host-limit leaves out its
 * host row, so that its frames' references are made once each and time
 * no row (as predicted from the references noted so far)? */
static int frames_unrowed(const bench_run *r, const sb_algo *algo, const sb_sequence *seq)
{
    int stage = algo->stream_stage;
    if (!r->pipe->keeps || stage >= algo->stage_count || !takes_scene(r, algo, stage, seq) ||
        !sb_stage_variant_chosen(NULL, r->o->stages, sb_reference_variant(algo), algo, stage) ||
        !over_host_limit(r, stage, seq))
        return 0;
    stream_plan plan[STREAM_PLAN_MAX];
    int nplan = plan_streams(r, algo, stage, plan), gpu = 0, host = 0;
    for (int i = 0; i < nplan; i++) {
        gpu += sb_is_device(plan[i].v);
        host += !sb_is_device(plan[i].v);
    }
    return gpu > 0 && host > 0;
}

void run_streams_ahead(bench_run *r, const sb_algo *algo)
{
    const sb_sequence *unrowed[RUN_AHEAD_SCENES_MAX];
    int n = 0;
    for (int i = 0; i < r->ds.nsequences && n < RUN_AHEAD_SCENES_MAX; i++)
        if (frames_unrowed(r, algo, &r->ds.sequences[i]))
            unrowed[n++] = &r->ds.sequences[i];
    run_frames_ahead_begin(r, algo, unrowed, n);
}

sb_status run_streams(bench_run *r, const sb_algo *algo, sb_error *err)
{
    int stage = algo->stream_stage;
    if (!r->pipe->keeps || r->ds.nsequences == 0 || stage >= algo->stage_count ||
        !sb_stage_variant_chosen(NULL, r->o->stages, sb_reference_variant(algo), algo, stage))
        return SB_OK;
    stream_plan plan[STREAM_PLAN_MAX];
    int nplan = plan_streams(r, algo, stage, plan);
    int scenes = 0;
    for (int i = 0; i < r->ds.nsequences; i++)
        scenes += takes_scene(r, algo, stage, &r->ds.sequences[i]);
    if (nplan == 0 || scenes == 0)
        return SB_OK;
    double t0 = sb_clock_ms(), refs_before = run_spent_references(r);
    int nrows = 0;
    sb_status st = SB_OK;
    for (int i = 0; i < r->ds.nsequences && !st; i++)
        if (takes_scene(r, algo, stage, &r->ds.sequences[i]))
            st = stream_scene(r, algo, stage, &r->ds.sequences[i], plan, nplan, &nrows, err);
    sb_error end_err;
    sb_status ended = sb_reporters_streams_end(&r->out, algo, !st, &end_err);
    if (!st && ended) {
        st = ended;
        *err = end_err;
    }
    /* the frames' references are counted with the others, not twice */
    run_spend(r, RUN_SPENT_STREAMS, sb_clock_ms() - t0 - (run_spent_references(r) - refs_before));
    return st;
}
