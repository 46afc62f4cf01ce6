/* stream.c - frames in flight (measure/stream.h), the sequences they come
 * from (dataset.h), `segbench stream` and bench's stream rows. */
#include "test.h"
#include "test_groups.h"

#include "../cli_util.h"

#include "cases/cases.h"
#include "cases/dataset.h"
#include "cases/frames.h"
#include "variants/registry.h"
#include "measure/stream.h"
#include "measure/stream_pass.h"
#include "run/stream.h"
#include "io/stream_rows.h"
#include "machine/env.h"

#include "segbench/grabcut.h"
#include "segbench/image_io.h"
#include "segbench/kmeans.h"
#include "segbench/slic.h"
#include "segbench/video_io.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* n different random grey frames opened as integral cases (stage sum). */
static int open_frames(sb_case_data *cd, const sb_case **frames, int n, const char *algo_name, int w, int h)
{
    const sb_algo *algo = sb_algo_find(algo_name);
    for (int i = 0; i < n; i++) {
        sb_image img;
        if (algo->load_mode == SB_LOAD_GREY)
            test_random_grey(&img, w, h, 500 + (unsigned)i);
        else
            test_patchy_rgb(&img, w, h, 500 + (unsigned)i);
        sb_error err = { SB_OK, "" };
        sb_status st = sb_case_open(&cd[i], NULL, algo, algo->stream_stage, NULL, &img, &err);
        sb_image_free(&img);
        CHECKF(st == SB_OK, "%s", err.msg);
        if (st) {
            for (int k = 0; k < i; k++)
                sb_case_close(&cd[k]);
            return 0;
        }
        frames[i] = &cd[i].c;
    }
    return 1;
}

/* The defaults with k frames in flight and next to no warm-up. */
static sb_stream_opts quick_opts(int k)
{
    sb_stream_opts o;
    sb_stream_defaults(&o);
    o.in_flight = k;
    o.warmup_ms = 1;
    return o;
}

static void stream_fixed(const sb_case *const *frames, int n, const sb_variant *v, int threads, int k, int count,
                         sb_stream_result *r, sb_status *st, sb_error *err)
{
    sb_stream_opts o = quick_opts(k);
    o.threads = threads;
    o.frames = count;
    *st = sb_stream_measure(frames, n, v, &o, r, err);
}

static void test_stream_cpu(void)
{
    static const char *const algos[] = { "integral", "kmeans", "slic" };
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        sb_case_data cd[3];
        const sb_case *frames[3];
        if (!open_frames(cd, frames, 3, algos[a], 61, 37))
            continue;
        for (int k = 1; k <= 3; k += 2) {
            sb_stream_result r;
            sb_status st;
            sb_error err = { SB_OK, "" };
            stream_fixed(frames, 3, sb_variant_find(algos[a], "cpu"), 1, k, 10, &r, &st, &err);
            CHECKF(st == SB_OK, "%s, %d in flight: %s", algos[a], k, err.msg);
            CHECKF(st || r.agreement.ok, "%s, %d in flight: %s", algos[a], k, r.agreement.metric);
            /* the check pass: every distinct frame and every instance; then each instance's last */
            CHECKF(st || (r.frames == 10 && r.checked == (k > 3 ? k : 3) + k && r.in_flight == k),
                   "%s, %d in flight: %d frames timed, %d checked", algos[a], k, r.frames, r.checked);
            CHECKF(st || (r.fps > 0 && r.p50_ms > 0 && r.p99_ms >= r.p50_ms && r.max_ms >= r.p99_ms &&
                          r.bound_fps > 0 && strcmp(r.bound_by, "cpus") == 0),
                   "%s: %.1f frames/s, p50 %.3f, p99 %.3f, max %.3f, bound %.1f (%s)", algos[a], r.fps, r.p50_ms,
                   r.p99_ms, r.max_ms, r.bound_fps, r.bound_by);
            CHECKF(st || (r.energy.gpu_j < 0 && r.energy.gpu_why[0]), "no GPU here, yet GPU joules %.3f",
                   r.energy.gpu_j);
            /* (a third's rate may be many times the whole's when its frames end
             * together: the spread is a flag, not a bounded number) */
            CHECKF(st || (!r.few && r.spread >= 0 && isfinite(r.spread)),
                   "10 frames on %d instances: few %d, spread %.2f", k, r.few, r.spread);
        }
        /* fewer timed frames than instances: an instance that runs none keeps
         * what the check pass or the bound (instance 0: every distinct frame)
         * left, and its last check must compare that with the right frame
         * (it once did not, and failed the check above under load) */
        for (int round = 0; round < 3; round++) {
            sb_stream_result r;
            sb_status st;
            sb_error err = { SB_OK, "" };
            stream_fixed(frames, 3, sb_variant_find(algos[a], "cpu"), 1, 3, 1, &r, &st, &err);
            CHECKF(st == SB_OK && r.agreement.ok && r.frames == 1, "%s, 1 frame, 3 in flight: %s", algos[a],
                   st ? err.msg : r.agreement.metric);
        }
        for (int i = 0; i < 3; i++)
            sb_case_close(&cd[i]);
    }
}

/* A slow row (frames of at least 100 ms): its checked pass is its timed
 * pass, and the serial reference's own runs of the frames are its bound
 * (their CPU time: references made K at once waited for shared cores),
 * so instance 0 runs nothing more -- and its last check must still compare
 * its output with the frame it really ran last (on the H100, every slow
 * CPU row failed that check once the bound went over every frame). */
static void test_stream_slow_row(void)
{
    sb_case_data cd[2];
    const sb_case *frames[2];
    if (!open_frames(cd, frames, 2, "slic", 640, 480))
        return;
    if (cd[0].c.ref_times.run_ms < 100 || cd[1].c.ref_times.run_ms < 100) {
        printf("    (this machine runs a 640x480 SLIC frame in %.0f ms: no slow row to test)\n",
               cd[0].c.ref_times.run_ms);
    } else {
        sb_stream_opts o;
        sb_stream_defaults(&o);
        o.in_flight = 2;
        o.min_seconds = 0.05;
        sb_stream_result r;
        sb_error err = { SB_OK, "" };
        sb_status st = sb_stream_measure(frames, 2, sb_variant_find("slic", "cpu"), &o, &r, &err);
        CHECKF(st == SB_OK, "%s", err.msg);
        CHECKF(st || r.agreement.ok, "%s", r.agreement.metric);
        CHECKF(st || (r.frames == 2 && r.checked == 4 && r.few), "%d frames timed (the check pass's 2), %d checked, "
               "few %d", r.frames, r.checked, r.few);
        double mean = (cd[0].c.ref_times.run_cpu_ms + cd[1].c.ref_times.run_cpu_ms) / 2;
        CHECKF(st || (r.run_ms > 0.99 * mean && r.run_ms < 1.01 * mean),
               "bound's frame %.1f ms, the references' CPU time %.1f", r.run_ms, mean);
    }
    for (int i = 0; i < 2; i++)
        sb_case_close(&cd[i]);
}

/* What a watched opening of frames told (frames.h, sb_frames_progress). */
typedef struct told {
    int calls, done, total;
} told;

static void count_told(void *ctx, int done, int total, double elapsed_ms)
{
    told *t = ctx;
    (void)elapsed_ms;
    t->calls++;
    t->done = done;
    t->total = total;
}

/* The frames' references, made side by side (frames.h): the distinct
 * frames, then repeats up to one a thread, each agreeing with its first
 * run, with each frame's times kept as a stream's. */
static void test_frames_reference_pass(void)
{
    test_sh("mkdir -p %s", test_path("refs"));
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "refs/f%d.png", i);
        test_grey_png(name, 40, 30, (unsigned)i + 1);
    }
    sb_sequence seq;
    sb_error err = { SB_OK, "" };
    sb_status st = sb_sequence_glob(test_path("refs/f*.png"), NULL, &seq, &err);
    CHECKF(st == SB_OK, "%s", err.msg);
    if (st)
        return;
    const sb_algo *algo = sb_algo_find("integral");
    void *params = NULL;
    int usable = 0;
    char why[200];
    st = sb_case_params(algo, algo->stream_stage, NULL, &params, &usable, why, sizeof why, &err);
    for (int jobs = 1; jobs <= 5 && !st; jobs += 2) {
        sb_frames fr;
        told progress = { 0, 0, 0 };
        sb_frames_progress watch = { count_told, &progress };
        /* with 3 jobs, watched: the same pass, its end told */
        st = sb_frames_open_watched(&fr, algo, algo->stream_stage, params, &seq, jobs, jobs == 3 ? &watch : NULL,
                                    &err);
        CHECKF(jobs != 3 || (progress.calls >= 1 && progress.done == 3 && progress.total == 3),
               "%d told, the last %d of %d", progress.calls, progress.done, progress.total);
        CHECKF(st == SB_OK, "%d jobs: %s", jobs, err.msg);
        if (st)
            break;
        const sb_reference_pass *p = &fr.pass;
        int want = jobs > 3 ? jobs : 3;
        CHECKF(fr.count == 3 && p->n == 3 && p->total == want && p->k == (jobs < want ? jobs : want),
               "%d jobs: %d frames, pass of %d over %d with %d at once", jobs, fr.count, p->total, p->n, p->k);
        CHECKF(p->ag.ok && strcmp(p->ag.verdict, "reference") == 0 &&
                   (want == 3 || strstr(p->ag.metric, "2 repeats")),
               "%d jobs: %s %s", jobs, p->ag.verdict, p->ag.metric);
        for (int f = 0; f < p->total; f++)
            CHECKF(p->done_ms[f] >= p->submit_ms[f] && p->submit_ms[f] > 0, "frame %d: %.3f to %.3f ms", f,
                   p->submit_ms[f], p->done_ms[f]);
        /* a frame's time is its reference's run, not the case's making (its
         * pinned copy: 0.5 s a 4K frame with 16 threads pinning at once) */
        for (int d = 0; d < 3; d++)
            CHECKF(fabs(p->done_ms[d] - p->submit_ms[d] - fr.c[d]->ref_times.frame_ms) < 1e-6,
                   "frame %d: %.6f ms in the pass, its reference's run %.6f ms", d, p->done_ms[d] - p->submit_ms[d],
                   fr.c[d]->ref_times.frame_ms);
        sb_frames_close(&fr);
    }
    free(params);
    sb_sequence_free(&seq);
}

/* The serial reference's stream row with the references' pass's K takes
 * that pass as its timed pass where its frames are slow (100 ms or more
 * each): the frames' runs are not made twice.  A pass made with another K,
 * another variant, or fast frames leaves the row to its own passes. */
static void test_stream_takes_reference_pass(void)
{
    sb_case_data cd[2];
    const sb_case *frames[2];
    if (!open_frames(cd, frames, 2, "integral", 61, 37))
        return;
    double submit[3] = { 1000, 1000, 1150 }, done[3] = { 1150, 1160, 1300 };
    sb_reference_pass pass = { .k = 2, .n = 2, .total = 3, .submit_ms = submit, .done_ms = done };
    pass.ag.ok = 1;
    snprintf(pass.ag.verdict, sizeof pass.ag.verdict, "reference");
    sb_stream_opts o = quick_opts(2);
    o.min_seconds = 0.25;
    o.reference_pass = &pass;
    sb_stream_result r;
    sb_error err = { SB_OK, "" };
    sb_status st = sb_stream_measure(frames, 2, sb_variant_find("integral", "cpu"), &o, &r, &err);
    CHECKF(st == SB_OK && strcmp(r.agreement.verdict, "reference") == 0 && r.frames == 3 && r.checked >= 1 &&
               fabs(r.seconds - 0.3) < 1e-9 && fabs(r.p50_ms - 150) < 1e-9,
           "%s: %s, %d frames in %.3f s, p50 %.1f ms, %d checked", err.msg, r.agreement.verdict, r.frames, r.seconds,
           r.p50_ms, r.checked);
    /* another K, another variant, or a pass too short: a pass of its own */
    const char *variant[3] = { "cpu", "openmp", "cpu" };
    int k[3] = { 3, 2, 2 };
    double min_s[3] = { 0.25, 0.25, 0.5 };
    for (int i = 0; i < 3; i++) {
        o.in_flight = k[i];
        o.min_seconds = min_s[i];
        o.frames = 5;
        st = sb_stream_measure(frames, 2, sb_variant_find("integral", variant[i]), &o, &r, &err);
        CHECKF(st == SB_OK && strcmp(r.agreement.verdict, "exact") == 0 && r.frames == 5,
               "%s, K=%d, %.2f s: %s %s, %d frames", variant[i], k[i], min_s[i], err.msg, r.agreement.verdict,
               r.frames);
        o.frames = 0;
    }
    /* a pass whose repeats disagreed: the row fails, nothing timed */
    o.in_flight = 2;
    o.min_seconds = 0.25;
    pass.ag.ok = 0;
    snprintf(pass.ag.verdict, sizeof pass.ag.verdict, "FAIL");
    st = sb_stream_measure(frames, 2, sb_variant_find("integral", "cpu"), &o, &r, &err);
    CHECKF(st == SB_OK && !r.agreement.ok && r.frames == 0, "a failed pass: %s, %d frames", r.agreement.verdict,
           r.frames);
    for (int i = 0; i < 2; i++)
        sb_case_close(&cd[i]);
}

/* Two instances of a pthread variant share the process's pool; run at once
 * (a stream's frames in flight) their jobs overwrote each other's, and
 * half the sums came out wrong. */
static void test_stream_shared_pool(void)
{
    sb_case_data cd[3];
    const sb_case *frames[3];
    if (!open_frames(cd, frames, 3, "integral", 97, 61))
        return;
    for (int round = 0; round < 3; round++) {
        sb_stream_result r;
        sb_status st;
        sb_error err = { SB_OK, "" };
        stream_fixed(frames, 3, sb_variant_find("integral", "pthread"), 2, 2, 400, &r, &st, &err);
        CHECKF(st == SB_OK, "%s", err.msg);
        CHECKF(st || r.agreement.ok, "pthread@2, 2 in flight: %s", r.agreement.metric);
    }
    for (int i = 0; i < 3; i++)
        sb_case_close(&cd[i]);
}

/* A variant that reads its frame once, in prepare, and serves that copy
 * ever after: right on the first frame, wrong on the next. */
typedef struct stale_state {
    sb_image copy;             /* the frame prepare saw */
    void *inner;               /* the serial variant, run on the copy */
} stale_state;

static sb_status stale_prepare(void **state, const sb_image *in, const void *params, void *output,
                               const sb_exec *exec, sb_error *err)
{
    stale_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    *state = s;
    s->copy = *in;
    s->copy.data = malloc(in->stride * (size_t)in->height);
    if (!s->copy.data)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    memcpy(s->copy.data, in->data, in->stride * (size_t)in->height);
    return sb_variant_find("integral", "cpu")->ops->prepare(&s->inner, &s->copy, params, output, exec, err);
}

static sb_status stale_run(void *state, sb_error *err)
{
    stale_state *s = state;
    return sb_variant_find("integral", "cpu")->ops->run(s->inner, err);
}

static void stale_release(void *state)
{
    stale_state *s = state;
    if (s->inner)
        sb_variant_find("integral", "cpu")->ops->release(s->inner);
    free(s->copy.data);
    free(s);
}

static void test_stream_stale_frame_caught(void)
{
    static const sb_variant_ops ops = { stale_prepare, NULL, stale_run, test_fetch_nothing, stale_release };
    const sb_variant stale = { "integral", "test-stale", "cpu", "NONE", 0, 3u, &ops, "reads its frame in prepare",
                               "integral/test-stale", "tests/measure/stream.c", NULL, "", NULL };
    sb_case_data cd[3];
    const sb_case *frames[3];
    if (!open_frames(cd, frames, 3, "integral", 40, 30))
        return;
    sb_stream_result r;
    sb_status st;
    sb_error err = { SB_OK, "" };
    stream_fixed(frames, 3, &stale, 1, 1, 10, &r, &st, &err);
    CHECKF(st == SB_OK, "%s", err.msg);
    CHECKF(!r.agreement.ok && strstr(r.agreement.metric, "frame 2 of 3") && r.frames == 0,
           "a variant that keeps its first frame passed (or was timed): %s, %d frames timed", r.agreement.metric,
           r.frames);
    for (int i = 0; i < 3; i++)
        sb_case_close(&cd[i]);
}

/* A host variant that takes colour frames (SB_COLOUR_IN) and makes the
 * grey itself before the serial integral image: with the luma, as the
 * contract says; or, to show the check can fail, with the green channel. */
typedef struct colour_state {
    const sb_image *colour;    /* the frame, read at each run */
    sb_image grey;
    int green;                 /* the wrong grey */
    void *inner;               /* the serial variant, run on grey */
} colour_state;

static sb_status colour_prepare_as(void **state, const sb_image *in, const void *params, void *output,
                                   const sb_exec *exec, int green, sb_error *err)
{
    colour_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    *state = s;
    if (in->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: takes colour, got %d channels", exec->who, in->channels);
    s->colour = in;
    s->green = green;
    sb_status st = sb_image_alloc(&s->grey, in->width, in->height, 1, err);
    return st ? st : sb_variant_find("integral", "cpu")->ops->prepare(&s->inner, &s->grey, params, output, exec, err);
}
static sb_status colour_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    return colour_prepare_as(state, in, params, output, exec, 0, err);
}
static sb_status green_prepare(void **state, const sb_image *in, const void *params, void *output,
                               const sb_exec *exec, sb_error *err)
{
    return colour_prepare_as(state, in, params, output, exec, 1, err);
}

static sb_status colour_run(void *state, sb_error *err)
{
    colour_state *s = state;
    if (s->green)
        for (int y = 0; y < s->grey.height; y++)
            for (int x = 0; x < s->grey.width; x++)
                sb_image_row(&s->grey, y)[x] = sb_image_row(s->colour, y)[3 * x + 1];
    else
        sb_case_luma(s->colour, &s->grey);
    return sb_variant_find("integral", "cpu")->ops->run(s->inner, err);
}

static void colour_release(void *state)
{
    colour_state *s = state;
    if (s->inner)
        sb_variant_find("integral", "cpu")->ops->release(s->inner);
    sb_image_free(&s->grey);
    free(s);
}

/* Colour frames (measure/stream.h): a variant that takes them gets them
 * as they are and agrees; the serial variant gets each frame's grey made
 * by its own thread (host_ms, and a bound of K frames per host_ms at
 * most); a variant that makes the wrong grey fails; an algorithm that
 * takes its frames as they are refuses colour frames. */
static void test_stream_colour_frames(void)
{
    static const sb_variant_ops ops = { colour_prepare, NULL, colour_run, test_fetch_nothing, colour_release };
    static const sb_variant_ops green_ops = { green_prepare, NULL, colour_run, test_fetch_nothing, colour_release };
    const sb_variant colour = { "integral", "test-colour", "cpu", "NONE", SB_COLOUR_IN, 3u, &ops,
                                "makes the luma itself", "integral/test-colour", "tests/measure/stream.c", NULL, "",
                                NULL };
    const sb_variant green = { "integral", "test-green", "cpu", "NONE", SB_COLOUR_IN, 3u, &green_ops,
                               "takes green for grey", "integral/test-green", "tests/measure/stream.c", NULL, "",
                               NULL };
    sb_case_data cd[3];
    const sb_case *frames[3];
    if (!open_frames(cd, frames, 3, "integral", 53, 29))
        return;
    CHECK(frames[0]->colour && frames[0]->colour->channels == 3 && frames[0]->input->channels == 1);
    sb_stream_result r;
    sb_status st;
    sb_error err = { SB_OK, "" };
    stream_fixed(frames, 3, &colour, 1, 2, 12, &r, &st, &err);
    CHECKF(st == SB_OK && r.agreement.ok && r.colour_frames && r.host_ms == 0,
           "a colour-taking variant: %s / %s, colour %d, host %.3f ms", err.msg, r.agreement.metric, r.colour_frames,
           r.host_ms);

    sb_stream_opts o;
    sb_stream_defaults(&o);
    o.in_flight = 2;
    o.frames = 12;
    o.warmup_ms = 1;
    o.colour_frames = 1;
    st = sb_stream_measure(frames, 3, sb_variant_find("integral", "cpu"), &o, &r, &err);
    CHECKF(st == SB_OK && r.agreement.ok && r.colour_frames && r.host_ms > 0 && r.checked >= 3,
           "the serial variant from colour frames: %s / %s, host %.4f ms", err.msg, r.agreement.metric, r.host_ms);
    CHECKF(st || r.bound_fps <= 2 * 1000.0 / r.host_ms * 1.000001, "bound %.1f frames/s above K per host_ms (%.1f)",
           r.bound_fps, 2 * 1000.0 / r.host_ms);

    stream_fixed(frames, 3, &green, 1, 1, 4, &r, &st, &err);
    CHECKF(st == SB_OK && !r.agreement.ok && r.frames == 0, "green for grey passed: %s", r.agreement.metric);
    for (int i = 0; i < 3; i++)
        sb_case_close(&cd[i]);

    if (!open_frames(cd, frames, 2, "kmeans", 20, 10))
        return;
    st = sb_stream_measure(frames, 2, sb_variant_find("kmeans", "cpu"), &o, &r, &err);
    CHECKF(st == SB_ERR_USAGE && strstr(err.msg, "colour frames"), "k-means from colour frames: %d %s", st, err.msg);
    for (int i = 0; i < 2; i++)
        sb_case_close(&cd[i]);
}

static void test_sequence_glob(void)
{
    test_sh("mkdir -p %s %s", test_path("seq"), test_path("mixed"));
    test_grey_png("seq/clip-f02.png", 20, 10, 3);
    test_grey_png("seq/clip-f00.png", 20, 10, 1);
    test_grey_png("seq/clip-f01.png", 20, 10, 2);
    test_grey_png("mixed/a-1.png", 20, 10, 1);
    test_grey_png("mixed/a-2.png", 21, 10, 2);
    sb_sequence seq;
    sb_error err = { SB_OK, "" };
    sb_status st = sb_sequence_glob(test_path("seq/clip-f*.png"), NULL, &seq, &err);
    CHECKF(st == SB_OK, "%s", err.msg);
    if (!st) {
        CHECKF(seq.count == 3 && seq.width == 20 && seq.height == 10 && strstr(seq.frames[0], "f00") &&
                   strstr(seq.frames[2], "f02") && strcmp(seq.name, "clip-f") == 0 && seq.rect[2] > 0,
               "%d frames %dx%d, first %s, name '%s'", seq.count, seq.width, seq.height, seq.frames[0], seq.name);
        sb_sequence_free(&seq);
    }
    st = sb_sequence_glob(test_path("seq/none-*.png"), NULL, &seq, &err);
    CHECKF(st == SB_ERR_USAGE && strstr(err.msg, "empty sequence"), "an empty glob: %d %s", st, err.msg);
    st = sb_sequence_glob(test_path("mixed/a-*.png"), NULL, &seq, &err);
    CHECKF(st == SB_ERR_USAGE && strstr(err.msg, "21x10") && strstr(err.msg, "one size"), "mixed sizes: %d %s", st,
           err.msg);
    FILE *fp = fopen(test_path("seq/clip-f03.png"), "w");
    if (fp) {
        fputs("not a picture", fp);
        fclose(fp);
    }
    st = sb_sequence_glob(test_path("seq/clip-f*.png"), NULL, &seq, &err);
    CHECKF(st != SB_OK && strstr(err.msg, "clip-f03.png"), "a frame that is no image: %d %s", st, err.msg);
    remove(test_path("seq/clip-f03.png"));

    cli_result *r = cli("stream integral/cpu --frames %s --in-flight 2 --seconds 0.05",
                        test_shq(test_path("seq/clip-f*.png")));
    CHECKF(r->code == 0 && strstr(r->out, "frames/s") && strstr(r->out, "agreement: exact"), "exit %d: %s%s",
           r->code, r->out, r->err);
    r = cli("stream integral/cpu --frames %s", test_shq(test_path("mixed/a-*.png")));
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "one size"), "mixed sizes: exit %d: %s",
           r->code, r->err);
    r = cli("stream integral/cpu --frames %s", test_shq(test_path("seq/$(touch x)*.png")));
    CHECKF(r->code == 2 && strstr(r->err, "empty sequence") && !test_exists("x"), "a hostile glob: exit %d: %s",
           r->code, r->err);
    r = cli("stream integral/cpu --frames %s --in-flight 0", test_shq(test_path("seq/clip-f*.png")));
    CHECKF(r->code == 2 && test_lines(r->err) == 1, "--in-flight 0: exit %d: %s", r->code, r->err);
    r = cli("stream integral/cpu --frames %s --runs sideways", test_shq(test_path("seq/clip-f*.png")));
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "--runs"), "--runs sideways: exit %d: %s",
           r->code, r->err);
    r = cli("stream integral/cpu --frames %s --warm", test_shq(test_path("seq/clip-f*.png")));
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "no warm start") &&
               strstr(r->err, "k-means, SLIC and GrabCut have"),
           "--warm on the integral image: exit %d: %s", r->code, r->err);
}

/* A YUV4MPEG2 file as --frames: its frames are the sequence (named after
 * the file), each checked; one cut off at the end is left out, and said. */
static void test_y4m_frames(void)
{
    enum { W = 24, H = 16, FRAME = W * H + 2 * (W / 2) * (H / 2) };
    static unsigned char planes[FRAME];
    const char *path = test_path("clip.y4m");
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return;
    fputs("YUV4MPEG2 W24 H16 F30:1 Ip A1:1 C420jpeg\n", fp);
    for (int f = 0; f < 4; f++) {                 /* a bright square moving right, three whole frames */
        for (int i = 0; i < FRAME; i++)
            planes[i] = i < W * H ? (unsigned char)((i % W >= 4 + 3 * f && i % W < 12 + 3 * f && i / W > 4) ? 200 : 40)
                                  : (unsigned char)(100 + 20 * f);
        fputs("FRAME\n", fp);
        fwrite(planes, 1, f < 3 ? FRAME : FRAME / 2, fp);
    }
    fclose(fp);
    sb_sequence seq;
    sb_error err = { SB_OK, "" };
    sb_status st = sb_sequence_glob(path, NULL, &seq, &err);
    CHECKF(st == SB_OK, "%s", err.msg);
    if (!st) {
        CHECKF(seq.count == 3 && seq.width == W && seq.height == H && !seq.frames && strcmp(seq.name, "clip") == 0 &&
                   strstr(seq.y4m.note, "frame 4 is cut off"),
               "%d frames %dx%d, name '%s', note '%s'", seq.count, seq.width, seq.height, seq.name, seq.y4m.note);
        sb_image img;
        if (sb_sequence_load_frame(&seq, 2, SB_LOAD_RGB, &img, &err) == SB_OK) {
            CHECK(img.width == W && img.channels == 3);
            sb_image_free(&img);
        }
        sb_sequence_free(&seq);
    }
    cli_result *r = cli("stream kmeans/cpu --frames %s --in-flight 2 --seconds 0.05", test_shq(path));
    CHECKF(r->code == 0 && strstr(r->out, "frames/s") && strstr(r->out, "agreement: exact") &&
               strstr(r->err, "clip.y4m: frame 4 is cut off"),
           "exit %d: %s%s", r->code, r->out, r->err);
}

/* A set with a scene: the generator's frames differ and repeat, a `y4m`
 * scene is also one clip of the same frames, and bench --stream only
 * writes <algo>.stream.csv and nothing else. */
static void test_scene_and_bench_streams(void)
{
    const char *root = test_path("scene-root");
    if (!test_build_set(root, "mini", "synth 48x32\nscene 48x32 frames=3 y4m\n"))
        return;
    test_sh("%s %s %s/again 2>/dev/null", test_sbgen_path(), test_path("mini.set"), root);   /* made twice: the same */
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/datasets/build/mini", root);
    snprintf(b, sizeof b, "%s/again", root);
    test_sh("cmp -s %s/scene-48x32-f01.png %s/scene-48x32-f01.png && ! cmp -s %s/scene-48x32-f00.png "
            "%s/scene-48x32-f01.png", a, b, a, a);
    char clip[4300], png[4300];
    snprintf(clip, sizeof clip, "%s/scene-48x32.y4m", a);
    snprintf(png, sizeof png, "%s/scene-48x32-f02.png", a);
    sb_y4m y4m;
    sb_image want = { 0 }, got = { 0 };
    sb_error yerr = { SB_OK, "" };
    memset(&y4m, 0, sizeof y4m);
    CHECKF(sb_y4m_open(clip, &y4m, &yerr) == SB_OK && y4m.frames == 3 && y4m.width == 48, "%s", yerr.msg);
    if (y4m.frame_at && sb_y4m_read_frame(clip, &y4m, 2, SB_LOAD_RGB, &got, &yerr) == SB_OK &&
        sb_image_load(png, SB_LOAD_RGB, &want, &yerr) == SB_OK) {
        int worst = 0;
        for (size_t i = 0; i < (size_t)48 * 32 * 3; i++)
            worst = abs((int)want.data[i] - (int)got.data[i]) > worst ? abs((int)want.data[i] - (int)got.data[i]) : worst;
        CHECKF(worst <= 2, "the clip's frame 3 is %d levels off its PNG", worst);
    }
    sb_image_free(&want);
    sb_image_free(&got);
    if (y4m.frame_at)
        sb_y4m_free(&y4m);
    char manifest[4300];
    snprintf(manifest, sizeof manifest, "%s/manifest.tsv", a);
    sb_dataset ds;
    sb_error err = { SB_OK, "" };
    if (sb_dataset_load_manifest(manifest, &ds, &err) == SB_OK) {
        CHECKF(ds.count == 1 && ds.nsequences == 1 && ds.sequences[0].count == 3 &&
                   strcmp(ds.sequences[0].name, "scene-48x32") == 0 && ds.sequences[0].rect[2] > 0,
               "%d images, %d sequences", ds.count, ds.nsequences);
        sb_dataset_free(&ds);
    } else {
        CHECKF(0, "%s", err.msg);
    }
    /* a pipeline step has no stream rows: the run's last lines name no stream file (they did) */
    test_sh("cd %s && %s bench --set mini --algo meanshift-filter --variant cpu --budget 2 --repeat off "
            "--results results/step --quiet 2>err.txt", root, test_segbench_path());
    static char said[1 << 14];
    char err_path[4300];
    snprintf(err_path, sizeof err_path, "%s/err.txt", root);
    test_slurp(err_path, said, sizeof said);
    CHECKF(strstr(said, "wrote results/step/ (env.json") && !strstr(said, "stream.csv"), "%s", said);
    test_sh("mkdir -p %s/results/x && echo keep > %s/results/x/integral.csv", root, root);
    test_sh("cd %s && %s bench --set mini --algo integral,kmeans --stream only --results results/x --quiet "
            "2>/dev/null", root, test_segbench_path());
    char text[4096], path[4300];
    snprintf(path, sizeof path, "%s/results/x/integral.csv", root);
    test_slurp(path, text, sizeof text);
    CHECKF(strcmp(text, "keep\n") == 0, "bench --stream only rewrote integral.csv: %.80s", text);
    snprintf(path, sizeof path, "%s/results/x/env.json", root);
    CHECKF(!test_exists(path), "bench --stream only wrote env.json");
    snprintf(path, sizeof path, "%s/results/x/kmeans.stream.csv", root);
    sb_stream_row *rows = NULL;
    int n = 0;
    CHECKF(sb_stream_rows_read(path, &rows, &n, &err) == SB_OK, "%s", err.msg);
    CHECKF(n >= 1 && strcmp(rows[0].variant, "cpu") == 0 && strcmp(rows[0].stage, "fixed10") == 0 &&
               strcmp(rows[0].agreement, "exact") == 0 && rows[0].fps > 0 && rows[0].seconds >= 0.99 &&
               rows[0].distinct == 3 && rows[0].gpu_j < 0 && rows[0].energy_note[0],
           "%d rows; first: %s %s %s %.1f frames/s over %.2f s", n, n ? rows[0].variant : "", n ? rows[0].stage : "",
           n ? rows[0].agreement : "", n ? rows[0].fps : 0, n ? rows[0].seconds : 0);
    /* what was read is what is written */
    if (n) {
        snprintf(path, sizeof path, "%s/copy.stream.csv", root);
        sb_stream_row *again = NULL;
        int m = 0;
        CHECK(sb_stream_rows_write(path, rows, n, &err) == SB_OK && sb_stream_rows_read(path, &again, &m, &err) == SB_OK);
        CHECK(m == n && again && again[0].fps == rows[0].fps && strcmp(again[0].metric, rows[0].metric) == 0 &&
              again[0].gpu_j == rows[0].gpu_j && strcmp(again[0].flags, rows[0].flags) == 0 &&
              strcmp(again[0].runs, rows[0].runs) == 0 && !rows[0].runs[0]);   /* a host row: no GPU runs */
        free(again);
        /* a GPU row's runs survive the round trip */
        snprintf(rows[0].runs, sizeof rows[0].runs, "in-turn");
        CHECK(sb_stream_rows_write(path, rows, 1, &err) == SB_OK && sb_stream_rows_read(path, &again, &m, &err) == SB_OK);
        CHECKF(m == 1 && again && strcmp(again[0].runs, "in-turn") == 0 && strcmp(again[0].flags, rows[0].flags) == 0,
               "runs read back as '%s'", m == 1 && again ? again[0].runs : "");
        CHECK(m == 1 && again && !again[0].source[0] && again[0].host_ms == 0);
        free(again);
        /* and a row from colour frames its source and host part */
        snprintf(rows[0].source, sizeof rows[0].source, "colour");
        rows[0].host_ms = 13.125;
        rows[0].copies_fps = 2500.5;                /* and the engines' rates alone, the start and work */
        rows[0].kernels_fps = 1800.25;
        snprintf(rows[0].start, sizeof rows[0].start, "warm");
        snprintf(rows[0].work_key, sizeof rows[0].work_key, "passes");
        rows[0].work_per_frame = 3.25;
        CHECK(sb_stream_rows_write(path, rows, 1, &err) == SB_OK && sb_stream_rows_read(path, &again, &m, &err) == SB_OK);
        CHECKF(m == 1 && again && strcmp(again[0].source, "colour") == 0 && again[0].host_ms == 13.125 &&
                   strcmp(again[0].runs, "in-turn") == 0 && again[0].copies_fps == 2500.5 &&
                   again[0].kernels_fps == 1800.25 && !strcmp(again[0].start, "warm") &&
                   !strcmp(again[0].work_key, "passes") && again[0].work_per_frame == 3.25,
               "source read back as '%s', host %.3f ms, engines %.2f / %.2f", m == 1 && again ? again[0].source : "",
               m == 1 && again ? again[0].host_ms : 0, m == 1 && again ? again[0].copies_fps : 0,
               m == 1 && again ? again[0].kernels_fps : 0);
        free(again);
        /* a file from before the spread and flags columns reads as before */
        snprintf(path, sizeof path, "%s/old.stream.csv", root);
        FILE *old = fopen(path, "w");
        if (old) {
            fputs("algo,stage,variant,backend,threads,in_flight,sequence,width,height,frames,distinct,checked,fps,"
                  "seconds,latency_p50_ms,latency_p99_ms,latency_max_ms,upload_ms,run_ms,fetch_ms,bound_fps,"
                  "bound_fraction,bound_by,gpu_j_per_frame,gpu_idle_w,cpu_j_per_frame,cpu_idle_w,energy_note,"
                  "agreement,agreement_metric,commit,date,run_id\n"
                  "integral,sum,cuda-fused,cuda-shared,1,2,scene-640x480,640,480,100,4,6,32000.5,1.0,0.06,0.07,0.1,"
                  "0.015,0.018,0.031,32000,1.0,fetch,0.005,116.4,,,\"CPU n/a: no RAPL\",exact,all equal,abc,"
                  "2026-11-26T08:00:00Z,run1\n", old);
            fclose(old);
        }
        CHECK(sb_stream_rows_read(path, &again, &m, &err) == SB_OK);
        CHECK(m == 1 && again && again[0].fps == 32000.5 && again[0].cpu_j < 0 && again[0].gpu_j == 0.005 &&
              !again[0].flags[0] && strcmp(again[0].run_id, "run1") == 0 &&
              strcmp(again[0].runs, "overlap") == 0);   /* the only way a GPU row ran before the column */
        free(again);
    }
    free(rows);
}

/* A CUDA rung that keeps a file-scope __constant__ or __device__ array
 * (static or not; in its file or a header it includes) shares it with every instance in the process: it says so
 * (SB_ONE_AT_A_TIME), and a stream refuses it two frames in flight.  (On the
 * H100, kmeans/cuda-seed with 3 in flight broke its contract: one
 * instance's kernels read another's centres.) */
/* A declaration at the start of a line, opening with `prefix`, of an array
 * (a '[' before its ';') and not a function (no '(' before it). */
static int file_scope_array(const char *text, const char *prefix)
{
    for (const char *p = text; (p = strstr(p, prefix)); p++) {
        const char *end = strchr(p + 1, ';'), *bracket = strchr(p + 1, '['), *paren = strchr(p + 1, '(');
        if (end && bracket && bracket < end && (!paren || paren > end))
            return 1;
    }
    return 0;
}

static void test_one_at_a_time(void)
{
    int flagged = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strncmp(v->backend, "cuda-", 5) != 0 || strncmp(v->file, "impl_cuda/", 10) != 0)
            continue;
        static char text[1 << 18];
        test_slurp_rung(v->file, text, sizeof text);
        int shared = file_scope_array(text, "\n__constant__ ") || file_scope_array(text, "\n__device__ ") ||
                     file_scope_array(text, "\nstatic __constant__ ") || file_scope_array(text, "\nstatic __device__ ");
        CHECKF(shared == !!(v->flags & SB_ONE_AT_A_TIME), "%s (%s): %s file-scope device array but is %sflagged "
               "SB_ONE_AT_A_TIME", v->who, v->file, shared ? "has a" : "has no",
               (v->flags & SB_ONE_AT_A_TIME) ? "" : "not ");
        flagged += shared;
    }
    CHECKF(flagged == 3, "%d rungs keep a file-scope device array (kmeans/cuda-seed, cuda-copyonce, cuda-devsums: 3)",
           flagged);
    sb_case_data cd[2];
    const sb_case *frames[2];
    if (!open_frames(cd, frames, 2, "kmeans", 16, 8))
        return;
    sb_stream_result r;
    sb_status st;
    sb_error err = { SB_OK, "" };
    stream_fixed(frames, 2, sb_variant_find("kmeans", "cuda-seed"), 1, 2, 4, &r, &st, &err);
    CHECKF(st == SB_ERR_USAGE && strstr(err.msg, "--in-flight 1"), "cuda-seed two in flight: %d %s", st, err.msg);
    for (int i = 0; i < 2; i++)
        sb_case_close(&cd[i]);
}

/* bench's rows of one variant and scene differ in K alone: the first
 * measures the bound's one-frame parts, the others take them (parts_of)
 * and scale the bound by their own K -- a serial row's by at most one
 * frame a core (three side by side on two cores run no faster than two). */
static void test_stream_bound_parts_shared(void)
{
    sb_case_data cd[2];
    const sb_case *frames[2];
    if (!open_frames(cd, frames, 2, "integral", 61, 37))
        return;
    const sb_variant *v = sb_variant_find("integral", "cpu");
    sb_stream_result first, later;
    sb_status st;
    sb_error err = { SB_OK, "" };
    stream_fixed(frames, 2, v, 1, 1, 6, &first, &st, &err);
    CHECKF(st == SB_OK && first.agreement.ok && first.run_ms > 0 && first.bound_fps > 0, "first: %s", err.msg);
    sb_stream_opts o = quick_opts(3);
    o.frames = 6;
    o.parts_of = &first;
    atomic_int step;                        /* a watcher's progress line reads where the protocol is */
    atomic_init(&step, 0);
    o.step = &step;
    int side = sb_usable_cores() < 3 ? sb_usable_cores() : 3;
    st = sb_stream_measure(frames, 2, v, &o, &later, &err);
    CHECKF(st == SB_OK && later.agreement.ok && later.run_ms == first.run_ms && later.host_ms == first.host_ms &&
               fabs(later.bound_fps - side * first.bound_fps) < 1e-9 * first.bound_fps &&
               strcmp(later.bound_by, "cpus") == 0 && later.frames == 6,
           "K=3 from K=1's parts on %d core(s): run %.4f / %.4f ms, bound %.1f / %.1f (%s)", sb_usable_cores(),
           later.run_ms, first.run_ms, later.bound_fps, first.bound_fps, later.bound_by);
    CHECKF(atomic_load(&step) == 5 && !strcmp(sb_stream_step_name(5), "checking the last frames") &&
               !*sb_stream_step_name(0),
           "the protocol told step %d at its end", atomic_load(&step));
    for (int i = 0; i < 2; i++)
        sb_case_close(&cd[i]);
}

int test_panning_clip(int n, sb_sequence *seq)
{
    test_sh("mkdir -p %s", test_path("pan"));
    sb_image big, frame;
    test_patchy_rgb(&big, 64 + n, 40, 21);
    sb_error err = { SB_OK, "" };
    int ok = sb_image_alloc(&frame, 64, 40, 3, &err) == SB_OK;
    for (int i = 0; ok && i < n; i++) {
        for (int y = 0; y < 40; y++)
            memcpy(sb_image_row(&frame, y), sb_image_row(&big, y) + 3 * i, 3 * 64);
        ok = sb_image_save(test_pathf("pan/f%02d.png", i), &frame, &err) == SB_OK;
    }
    sb_image_free(&frame);
    sb_image_free(&big);
    ok = ok && sb_sequence_glob(test_path("pan/f*.png"), NULL, seq, &err) == SB_OK;
    CHECKF(ok, "the panning clip: %s", err.msg);
    static const int rect[4] = { 12, 8, 40, 24 };   /* GrabCut's, the same in every frame */
    if (ok)
        memcpy(seq->rect, rect, sizeof rect);
    return ok;
}

int test_warm_clip(const char *name, int n, sb_sequence *seq, void **params)
{
    *params = NULL;
    if (!test_panning_clip(n, seq))
        return 0;
    const sb_algo *algo = sb_algo_find(name);
    int usable = 0;
    char why[200];
    sb_error err = { SB_OK, "" };
    sb_status st = sb_case_params(algo, algo->warm_stage, seq->rect, params, &usable, why, sizeof why, &err);
    CHECKF(st == SB_OK && usable, "%s's parameters: %s", name, err.msg);
    if (st == SB_OK && algo->warm_mode)
        algo->warm_mode(*params);
    if (st)
        sb_sequence_free(seq);
    return st == SB_OK;
}

int test_kmeans_warm_clip(int n, sb_sequence *seq, void **params) { return test_warm_clip("kmeans", n, seq, params); }

/* The host variants of `name` streaming a clip's warm and cold frames, k in
 * flight: each exact on every frame, counting `work` a frame -- warm
 * fewer than cold where `fewer`.  Then the serial variant with `drop` as
 * its prepare (one that drops the warm start) into *coldonly (its ops in
 * *ops): it must fail its check on the warm frames. */
static void host_warm_rows(const char *name, sb_frames *warm, sb_frames *cold, int k, const char *work, int fewer,
                           sb_status (*drop)(void **, const sb_image *, const void *, void *, const sb_exec *,
                                             sb_error *),
                           sb_variant *coldonly, sb_variant_ops *ops)
{
    sb_error err = { SB_OK, "" };
    const char *names[] = { "cpu", "openmp", "pthread" };
    for (int i = 0; i < 3; i++) {
        sb_stream_opts o = quick_opts(k);
        o.frames = 12;
        o.warm = 1;
        o.threads = i ? 2 : 1;
        sb_stream_result r, c;
        sb_status st = sb_stream_measure(warm->c, 6, sb_variant_find(name, names[i]), &o, &r, &err);
        o.warm = 0;
        st = st ? st : sb_stream_measure(cold->c, 6, sb_variant_find(name, names[i]), &o, &c, &err);
        CHECKF(st == SB_OK && r.agreement.ok && r.warm && r.checked >= 6 && c.agreement.ok && !c.warm,
               "%s, k %d, %s warm: %s %s %s", name, k, names[i], err.msg, r.agreement.metric, c.agreement.metric);
        CHECKF(st || (r.work_per_frame > 0 && (!fewer || r.work_per_frame < c.work_per_frame) &&
                      !strcmp(r.work_key, work)),
               "%s, k %d: %.2f %s a frame warm, %.2f cold", name, k, r.work_per_frame, r.work_key, c.work_per_frame);
    }
    const sb_variant *cpu = sb_variant_find(name, "cpu");
    *ops = *cpu->ops;
    ops->prepare = drop;
    *coldonly = *cpu;
    coldonly->name = "test-coldonly";
    coldonly->ops = ops;
    sb_stream_opts o = quick_opts(k);
    o.frames = 12;
    o.warm = 1;
    sb_stream_result r;
    sb_status st = sb_stream_measure(warm->c, 6, coldonly, &o, &r, &err);
    CHECKF(st == SB_OK && !r.agreement.ok, "%s, k %d: a variant ignoring the warm start passed: %s", name, k,
           r.agreement.metric);
}

/* A SLIC variant that drops the warm start it is given. */
static sb_status slic_coldonly_prepare(void **state, const sb_image *in, const void *params, void *output,
                                       const sb_exec *exec, sb_error *err)
{
    sb_slic_params p = *(const sb_slic_params *)params;
    p.start = NULL;
    return sb_variant_find("slic", "cpu")->ops->prepare(state, in, &p, output, exec, err);
}

/* What a warm-frames test of an algorithm that stops on its own criterion
 * needs: whether its params converge, whether a start is an earlier
 * result's, its work's unit (fewer a frame warm where `fewer`), and a
 * serial variant that drops the start. */
typedef struct warm_case {
    const char *algo, *work;
    int fewer;
    int (*converges)(const void *params);
    int (*starts_from)(const void *start, const void *before);
    sb_status (*drop)(void **, const sb_image *, const void *, void *, const sb_exec *, sb_error *);
} warm_case;

/* Converge mode in cold and warm rows alike; frame d begins from frame
 * d - k's result, the first k cold; then host_warm_rows. */
static void warm_frames_of(const warm_case *w)
{
    sb_sequence seq;
    void *params;
    if (!test_warm_clip(w->algo, 6, &seq, &params))
        return;
    const sb_algo *algo = sb_algo_find(w->algo);
    CHECKF(w->converges(params), "a warm stream's %s does not stop on its own criterion", w->algo);
    sb_error err = { SB_OK, "" };
    sb_frames cold, warm;
    for (int k = 1; k <= 2; k++) {
        sb_status st = sb_frames_open(&cold, algo, algo->warm_stage, params, &seq, 2, &err) ||
                       sb_frames_open_warm(&warm, algo, algo->warm_stage, params, &seq, k, NULL, &err);
        CHECKF(st == SB_OK, "%s", err.msg);
        if (st)
            break;
        for (int d = k; d < 6; d++)
            CHECKF(warm.c[d]->start && w->starts_from(warm.c[d]->start, warm.c[d - k]->reference),
                   "%s, k %d, frame %d: its start is not frame %d's result", w->algo, k, d, d - k);
        sb_variant coldonly;
        sb_variant_ops ops;
        host_warm_rows(w->algo, &warm, &cold, k, w->work, w->fewer, w->drop, &coldonly, &ops);
        sb_frames_close(&cold);
        sb_frames_close(&warm);
    }
    free(params);
    sb_sequence_free(&seq);
}

static int slic_converges(const void *params) { return ((const sb_slic_params *)params)->converge == 1; }
static int slic_starts_from(const void *start, const void *before)
{
    const sb_slic_start *s = start;
    const sb_slic_out *o = before;
    return s->given && s->count == o->centre_count && s->centres == o->centres;
}

/* SLIC's warm frames: each from the centres of frame d - k's result;
 * every host variant exact frame by frame, warm in fewer passes than
 * cold, and a variant that ignores the start fails its check. */
static void test_slic_warm_frames(void)
{
    static const warm_case slic = { "slic", "passes", 1, slic_converges, slic_starts_from, slic_coldonly_prepare };
    warm_frames_of(&slic);
}

/* A GrabCut variant that drops the warm start it is given. */
static sb_status grabcut_coldonly_prepare(void **state, const sb_image *in, const void *params, void *output,
                                          const sb_exec *exec, sb_error *err)
{
    sb_grabcut_params p = *(const sb_grabcut_params *)params;
    p.start = NULL;
    return sb_variant_find("grabcut", "cpu")->ops->prepare(state, in, &p, output, exec, err);
}

static int grabcut_converges(const void *params) { return ((const sb_grabcut_params *)params)->converge == 1; }
static int grabcut_starts_from(const void *start, const void *before)
{
    const sb_gc_start *s = start;
    const sb_gc_out *o = before;
    return s->given && s->mask == o->mask && !memcmp(s->gmm, o->gmm, sizeof s->gmm);
}

/* GrabCut's warm frames: each from the mask and mixtures of frame d - k's
 * result; every host variant exact on every frame (the iteration count
 * and mixtures too), one that drops the start caught.  (Fewer iterations
 * are not required: on a 64x40 clip a warm cut still moves the object's
 * rim and takes its confirming iteration.) */
static void test_grabcut_warm_frames(void)
{
    static const warm_case grabcut = { "grabcut", "iterations", 0, grabcut_converges, grabcut_starts_from,
                                       grabcut_coldonly_prepare };
    warm_frames_of(&grabcut);
}

/* A variant that drops the warm start it is given: the init rule on every
 * frame, right on a cold stream and wrong on a warm one. */
static sb_status coldonly_prepare(void **state, const sb_image *in, const void *params, void *output,
                                  const sb_exec *exec, sb_error *err)
{
    sb_kmeans_params p = *(const sb_kmeans_params *)params;
    p.start = NULL;
    return sb_variant_find("kmeans", "cpu")->ops->prepare(state, in, &p, output, exec, err);
}

/* Warm frames (frames.h): frame d begins from the reference's result of
 * frame d - k, the first k cold; a warm stream of every host variant is
 * exact frame by frame, takes fewer passes a frame than cold on a panning
 * clip, and a variant that ignores the start fails its check. */
static void test_warm_frames(void)
{
    sb_sequence seq;
    void *params;
    if (!test_kmeans_warm_clip(6, &seq, &params))
        return;
    const sb_algo *algo = sb_algo_find("kmeans");
    sb_error err = { SB_OK, "" };
    sb_status st = SB_OK;
    sb_frames cold, warm;
    for (int k = 1; k <= 2 && !st; k++) {
        st = sb_frames_open(&cold, algo, algo->warm_stage, params, &seq, 2, &err) ||
             sb_frames_open_warm(&warm, algo, algo->warm_stage, params, &seq, k, NULL, &err);
        CHECKF(st == SB_OK, "%s", err.msg);
        if (st)
            break;
        for (int d = 0; d < 6; d++) {
            const sb_kmeans_start *start = warm.c[d]->start;
            const sb_kmeans_out *before = d >= k ? warm.c[d - k]->reference : NULL;
            CHECKF(d < k ? !start && !((const sb_kmeans_params *)warm.c[d]->params)->start
                         : start && start->given &&
                               !memcmp(start->centres, before->centres, (size_t)before->k * sizeof before->centres[0]),
                   "k %d, frame %d: its start is not frame %d's result", k, d, d - k);
        }
        sb_variant coldonly;
        sb_variant_ops ops;
        host_warm_rows("kmeans", &warm, &cold, k, "passes", 1, coldonly_prepare, &coldonly, &ops);
        const sb_variant *cpu = sb_variant_find("kmeans", "cpu");
        /* --write-frames: every frame's picture, or none where one disagrees */
        test_sh("rm -rf %s && mkdir -p %s", test_path("pan-out"), test_path("pan-out"));
        sb_error werr = { SB_OK, "" };
        CHECKF(sb_stream_write_frames(&warm, &coldonly, 1, test_path("pan-out"), "pan", &werr) == SB_ERR_AGREEMENT &&
                   strstr(werr.msg, "nothing written") && access(test_path("pan-out/pan-f0000.png"), F_OK) != 0,
               "a disagreeing variant's frames: %s", werr.msg);
        CHECKF(sb_stream_write_frames(&warm, cpu, 1, test_path("pan-out"), "pan", &werr) == SB_OK &&
                   access(test_path("pan-out/pan-f0005.png"), F_OK) == 0 &&
                   access(test_path("pan-out/pan-f0006.png"), F_OK) != 0,
               "the frames' pictures: %s", werr.msg);
        /* --write-frames clip.y4m: the same pictures as one clip, or no file */
        const char *clip = test_path("pan-out/pan.y4m");
        CHECKF(sb_stream_write_frames(&warm, &coldonly, 1, clip, "pan", &werr) == SB_ERR_AGREEMENT &&
                   access(clip, F_OK) != 0,
               "a disagreeing variant's clip: %s", werr.msg);
        sb_y4m y4m;
        memset(&y4m, 0, sizeof y4m);
        sb_image png = { 0 }, frame = { 0 };
        CHECKF(sb_stream_write_frames(&warm, cpu, 1, clip, "pan", &werr) == SB_OK &&
                   sb_y4m_open(clip, &y4m, &werr) == SB_OK && y4m.frames == 6,
               "the clip: %s", werr.msg);
        if (y4m.frame_at && sb_image_load(test_path("pan-out/pan-f0005.png"), SB_LOAD_RGB, &png, &werr) == SB_OK &&
            sb_y4m_read_frame(clip, &y4m, 5, SB_LOAD_RGB, &frame, &werr) == SB_OK) {
            int worst = 0;
            for (size_t i = 0; png.width == frame.width && i < (size_t)png.width * png.height * 3; i++)
                worst = abs((int)png.data[i] - (int)frame.data[i]) > worst ? abs((int)png.data[i] - (int)frame.data[i])
                                                                           : worst;
            CHECKF(png.width == frame.width && png.height == frame.height && worst <= 2,
                   "the clip's frame 6 against its PNG: %dx%d, %d levels off", frame.width, frame.height, worst);
        }
        sb_image_free(&png);
        sb_image_free(&frame);
        if (y4m.frame_at)
            sb_y4m_free(&y4m);
        CHECK(sb_stream_frames_dir_ok(test_path("pan-out/none/pan.y4m"), &werr) == SB_ERR_USAGE &&
              strstr(werr.msg, "make the folder first"));
        test_sh("mkdir -p %s", test_path("pan-out/dir.y4m"));
        CHECK(sb_stream_frames_dir_ok(test_path("pan-out/dir.y4m"), &werr) == SB_ERR_USAGE &&
              strstr(werr.msg, "is a folder, not a y4m file"));
        sb_frames_close(&warm);
        sb_frames_close(&cold);
    }
    free(params);
    sb_sequence_free(&seq);
}

/* A colour row's host bound (stream_bound.c): K frames per the fastest
 * grey; after the timed pass the instances' own fastest grey lowers the
 * caller's where faster (a stream on faster cores beat the caller's by 3-7 %
 * at 3840x2160 on the H200), and the bound follows it; a slower one, or
 * an instance that made none, changes nothing. */
static void test_grey_bound(void)
{
    sb_stream_opts o = quick_opts(2);
    sb_stream_result r;
    memset(&r, 0, sizeof r);
    r.copies_fps = 6000;
    r.kernels_fps = 80000;
    r.host_ms = 4.0;                 /* the caller's fastest grey */
    stream_instance inst[2];
    memset(inst, 0, sizeof inst);
    inst[0].host_luma = inst[1].host_luma = 1;
    inst[0].grey_min_ms = 4.5;
    inst[1].grey_min_ms = INFINITY;  /* made none */
    r.bound_fps = 500;
    stream_bound_greys(inst, 2, &o, &r);
    CHECKF(r.host_ms == 4.0 && r.bound_fps == 500, "a slower instance grey moved the bound: %g ms, %g frames/s",
           r.host_ms, r.bound_fps);
    inst[1].grey_min_ms = 2.5;
    stream_bound_greys(inst, 2, &o, &r);
    CHECKF(r.host_ms == 2.5 && fabs(r.bound_fps - 800) < 1e-9 && !strcmp(r.bound_by, "host"),
           "an instance's faster grey: %g ms, bound %g frames/s by %s", r.host_ms, r.bound_fps, r.bound_by);
    inst[0].grey_min_ms = 0.2;       /* greys faster than the copies: the copies bound it */
    stream_bound_greys(inst, 2, &o, &r);
    CHECKF(r.bound_fps == 6000 && !strcmp(r.bound_by, "copies"), "bound %g frames/s by %s", r.bound_fps, r.bound_by);
}

const sb_test tests_stream[] = {
    { "stream: a colour row's host bound takes the instances' own fastest grey where it beat the caller's",
      test_grey_bound },
    { "stream: GrabCut's warm frames -- converge mode, each frame from the mask and mixtures of the one K before; "
      "every host variant exact; one that drops the start fails",
      test_grabcut_warm_frames },
    { "stream: SLIC's warm frames -- converge mode cold and warm alike, each frame from the centres of the one K "
      "before; every host variant exact, in fewer passes; one that drops the start fails",
      test_slic_warm_frames },
    { "stream: warm frames begin from the result of the frame K before; every host variant exact on them, in "
      "fewer passes; one that drops the start fails, and --write-frames writes none of its pictures (PNGs or a "
      "y4m clip)",
      test_warm_frames },
    { "stream: a YUV4MPEG2 file as --frames: its whole frames, each checked; one cut off at the end left out, said",
      test_y4m_frames },
    { "stream: a variant's rows of one scene share the bound's one-frame parts, each bound at its own K; the "
      "protocol tells its step to a watcher",
      test_stream_bound_parts_shared },
    { "stream: a rung with a file-scope device array is flagged SB_ONE_AT_A_TIME and streams one frame at a time",
      test_one_at_a_time },
    { "stream: CPU frames in flight, each checked against its own frame's reference; rate, latency, bound",
      test_stream_cpu },
    { "stream: a slow row is timed on its checked frames, the references' runs its bound", test_stream_slow_row },
    { "frames: the references side by side, repeats up to one a thread agreeing with their first runs, times kept",
      test_frames_reference_pass },
    { "stream: the serial reference's row takes the references' pass where it is slow and made with its K",
      test_stream_takes_reference_pass },
    { "stream: two instances of a pthread variant at once agree (their shared pool takes turns)",
      test_stream_shared_pool },
    { "stream: a variant that keeps its first frame fails on the second, and nothing is timed", test_stream_stale_frame_caught },
    { "stream: colour frames -- a colour-taking variant agrees, a grey one's host makes the grey (host_ms), "
      "a wrong grey fails, k-means refuses them", test_stream_colour_frames },
    { "sequences: a glob in name order; an empty, mixed-size or broken sequence refused in one line; segbench stream",
      test_sequence_glob },
    { "stream: a scene's frames differ and repeat, a y4m scene is one clip of them; bench --stream only writes "
      "<algo>.stream.csv alone",
      test_scene_and_bench_streams },
};
const int tests_stream_count = sizeof tests_stream / sizeof tests_stream[0];
