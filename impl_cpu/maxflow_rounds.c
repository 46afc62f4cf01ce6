/* maxflow_rounds.c - GrabCut's cut by the synchronous push-relabel rounds
 * on one thread (grabcut-maxflow variant "cpu-rounds").
 *
 * The root of the threaded max-flow ladder: maxflow.h's rounds written as
 * plain loops.  A round is two sweeps over every node -- push (phase A),
 * then take in what was pushed and relabel (phase B), writing the new
 * heights into a second buffer -- and a global relabel (a BFS back from
 * the sink) comes first and again every SB_MF_RELABEL_EVERY rounds.  The
 * solve ends when a sweep finds no active node (excess left, the sink
 * still reachable): the network then holds a maximum preflow, which gives
 * the flow value and the canonical cut.
 *
 * Each sweep reads only the heights of the round before and writes a
 * node's own state, plus the inflow of its neighbours (an atomic add) and
 * the reverse residuals no one else touches in that phase.  So the order
 * in which a sweep visits the nodes cannot change a bit of the result:
 * the lesson that grows from this file (pthread) cuts each sweep into
 * bands of rows on threads, and takes the very same rounds.
 */
#include "grabcut_host.h"

#include <stdlib.h>

typedef struct rounds_state {
    const sb_gc_graph *graph;
    sb_gc_cut_out *out;
    long n;
    sb_mf_net net;
    int32_t *h[2];              /* the heights of this round and of the next */
    int cur;                    /* h[cur] is this round's */
    int32_t *inflow;            /* what phase A pushed into each node */
    int32_t *queue;             /* the BFS's and the cut's */
} rounds_state;

/* Phase A: every active node pushes; returns how many were active. */
static long push_sweep(rounds_state *s)
{
    long active = 0;
    const int32_t *h = s->h[s->cur];
    for (long p = 0; p < s->n; p++)
        if (s->net.excess[p] > 0 && h[p] < SB_MF_INF) {
            active++;
            sb_mf_push(&s->net, h, s->inflow, s->n, p);
        }
    return active;
}

/* Phase B: every node takes in its inflow and relabels into the other
 * buffer; returns how many are active after. */
static long relabel_sweep(rounds_state *s)
{
    long active = 0;
    const int32_t *h = s->h[s->cur];
    int32_t *h_next = s->h[!s->cur];
    for (long p = 0; p < s->n; p++) {
        int32_t e = s->net.excess[p] + s->inflow[p];
        s->inflow[p] = 0;
        s->net.excess[p] = e;
        h_next[p] = sb_mf_relabel(&s->net, h, s->n, p, e);
        active += e > 0 && h_next[p] < SB_MF_INF;
    }
    return active;
}

static sb_status rounds_run(void *state, sb_error *err)
{
    (void)err;
    rounds_state *s = state;
    sb_mf_net_init(s->graph, &s->net);
    s->cur = 0;
    int rounds = 0, relabels = 0, done = 0;
    while (!done) {
        sb_mf_global_relabel(&s->net, s->h[s->cur], s->queue);
        relabels++;
        for (int i = 0; i < SB_MF_RELABEL_EVERY && !done; i++) {
            if ((done = push_sweep(s) == 0))
                break;
            rounds++;
            done = relabel_sweep(s) == 0;
            s->cur = !s->cur;
        }
    }
    s->out->rounds = rounds;
    s->out->relabels = relabels;
    s->out->flow = sb_mf_sink_flow(s->graph, s->net.sink, s->n);
    sb_mf_canonical_cut(s->net.width, s->net.height, s->net.r, 1, s->n, s->net.sink, 0, s->out->fg, s->queue);
    return SB_OK;
}

static void rounds_release(void *state)
{
    rounds_state *s = state;
    if (!s)
        return;
    free(s->net.r);
    free(s->net.sink);
    free(s->net.excess);
    free(s->h[0]);
    free(s->h[1]);
    free(s->inflow);
    free(s->queue);
    free(s);
}

static sb_status rounds_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    sb_status st = sb_gc_host_check(SB_GC_STEP_MAXFLOW, exec->who, in, params, err);
    if (st)
        return st;
    rounds_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", exec->who);
    s->graph = ((const sb_grabcut_params *)params)->upstream;
    s->out = output;
    s->n = (long)in->width * in->height;
    size_t n = (size_t)s->n;
    s->net.r = malloc(8 * n * sizeof *s->net.r);
    s->net.sink = malloc(n * sizeof *s->net.sink);
    s->net.excess = malloc(n * sizeof *s->net.excess);
    s->h[0] = malloc(n * sizeof *s->h[0]);
    s->h[1] = malloc(n * sizeof *s->h[1]);
    s->inflow = calloc(n, sizeof *s->inflow);      /* phase B leaves it zero for the next round */
    s->queue = malloc(n * sizeof *s->queue);
    if (!s->net.r || !s->net.sink || !s->net.excess || !s->h[0] || !s->h[1] || !s->inflow || !s->queue) {
        rounds_release(s);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for a %dx%d network", exec->who, in->width,
                       in->height);
    }
    *state = s;
    return SB_OK;
}

SB_VARIANT("grabcut-maxflow", "cpu-rounds", "cpu", NONE, 0, ALL_STAGES,
           "the synchronous push-relabel rounds of the parallel variants, on one thread",
           rounds_prepare, NULL, rounds_run, sb_gc_host_fetch, rounds_release)
SB_RUNG("grabcut-maxflow", "cpu-rounds", NULL,
        "the root of the threaded max-flow ladder: the synchronous push-relabel rounds as two sweeps a round, on one thread")
