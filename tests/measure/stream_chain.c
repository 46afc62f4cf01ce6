/* stream_chain.c - warm frames chained (measure/stream.h, segbench/
 * warm_chain.h): each frame's start taken from the run of the frame just
 * before it, runs in turn.  The device ops need a GPU (test_gpu.c streams
 * them); here a host variant with a chain op of its own stands in for
 * them, so the harness's part -- the runs in frame order, the chain
 * called between them, the upload given a cold record -- is tested on
 * every machine. */
#include "test.h"
#include "test_groups.h"

#include "cases/dataset.h"
#include "cases/frames.h"
#include "measure/stream.h"
#include "variants/registry.h"

#include "segbench/kmeans.h"

#include <stdlib.h>
#include <string.h>

/* kmeans/cpu with what a device rung keeps: its own copy of the centres
 * its last run ended on, and the start record its parameters point at. */
typedef struct chained_cpu {
    void *inner;
    sb_kmeans_start *start;
    const sb_kmeans_out *out;
    int k;
    int32_t ended[SB_KMEANS_MAX_K][3];
} chained_cpu;

static const sb_variant *serial(void) { return sb_variant_find("kmeans", "cpu"); }

static sb_status chained_prepare(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    chained_cpu *c = calloc(1, sizeof *c);
    if (!(*state = c))
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    const sb_kmeans_params *p = params;
    c->start = (sb_kmeans_start *)p->start;    /* the instance's own record (stream_pass.c) */
    c->out = output;
    c->k = p->k;
    return serial()->ops->prepare(&c->inner, in, params, output, exec, err);
}

static sb_status chained_run(void *state, sb_error *err)
{
    chained_cpu *c = state;
    sb_status st = serial()->ops->run(c->inner, err);
    if (!st)
        memcpy(c->ended, c->out->centres, (size_t)c->k * sizeof c->ended[0]);
    return st;
}

static sb_status chained_fetch(void *state, sb_error *err) { return serial()->ops->fetch(((chained_cpu *)state)->inner, err); }

static void chained_release(void *state)
{
    chained_cpu *c = state;
    if (c && c->inner)
        serial()->ops->release(c->inner);
    free(c);
}

/* The chain op: the run before's centres into this frame's start. */
static sb_status take_before(void *state, const void *before, sb_error *err)
{
    (void)err;
    chained_cpu *c = state;
    const chained_cpu *b = before;
    c->start->given = 1;
    memcpy(c->start->centres, b->ended, (size_t)c->k * sizeof c->ended[0]);
    return SB_OK;
}

/* A chain op that takes nothing: the frame runs from the cold record. */
static sb_status take_nothing(void *state, const void *before, sb_error *err)
{
    (void)state;
    (void)before;
    (void)err;
    return SB_OK;
}

static const sb_variant_ops chained_ops = { chained_prepare, NULL, chained_run, chained_fetch, chained_release };

/* One row of the clip's frames, k in flight, chained by `chain`. */
static sb_status chained_row(const sb_frames *fr, int k, sb_warm_chain chain, int in_turn, sb_stream_result *r,
                             sb_error *err)
{
    sb_variant v = *serial();
    v.name = "test-chained";
    v.ops = &chained_ops;
    sb_stream_opts o;
    sb_stream_defaults(&o);
    o.in_flight = k;
    o.warmup_ms = 1;
    o.frames = 18;
    o.warm = 1;
    o.runs_in_turn = in_turn;
    o.chain = chain;
    return sb_stream_measure(fr->c, fr->count, &v, &o, r, err);
}

/* Frame d's reference began from frame d - 1's: a chained row is exact on
 * every frame with 1..3 in flight (the runs in frame order, each warm one
 * from the run just before it, whichever instance ran it); a chain that
 * takes nothing fails its check (the upload's record is cold); and a
 * chain without runs in turn is refused. */
static void test_chained_frames(void)
{
    sb_sequence seq;
    void *params;
    if (!test_kmeans_warm_clip(6, &seq, &params))
        return;
    const sb_algo *algo = sb_algo_find("kmeans");
    sb_frames fr;
    sb_error err = { SB_OK, "" };
    sb_status st = sb_frames_open_warm(&fr, algo, algo->warm_stage, params, &seq, 1, NULL, &err);
    CHECKF(st == SB_OK, "%s", err.msg);
    for (int k = 1; k <= 3 && !st; k++) {
        sb_stream_result r;
        sb_status s = chained_row(&fr, k, take_before, 1, &r, &err);
        CHECKF(s == SB_OK && r.chained && r.warm && r.agreement.ok && r.checked >= 6,
               "k %d, chained: %s %s (%d checked)", k, err.msg, r.agreement.metric, r.checked);
        s = chained_row(&fr, k, take_nothing, 1, &r, &err);
        CHECKF(s == SB_OK && !r.agreement.ok, "k %d: a chain that takes no start passed: %s", k, r.agreement.metric);
    }
    if (!st) {
        sb_stream_result r;
        CHECKF(chained_row(&fr, 2, take_before, 0, &r, &err) == SB_ERR_USAGE && strstr(err.msg, "runs in turn"),
               "a chain with runs overlapping: %s", err.msg);
        sb_frames_close(&fr);
    }
    free(params);
    sb_sequence_free(&seq);
}

const sb_test tests_stream_chain[] = {
    { "stream: chained warm frames run in frame order, each from the run just before it (1..3 in flight); a chain "
      "that takes nothing fails its check; a chain without runs in turn is refused",
      test_chained_frames },
};
const int tests_stream_chain_count = sizeof tests_stream_chain / sizeof tests_stream_chain[0];
