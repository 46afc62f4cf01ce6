/* maxflow_rounds_pthread.c - GrabCut's cut by the synchronous push-relabel
 * rounds in row bands on the thread pool (grabcut-maxflow variant
 * "pthread").
 *
 * Grows from cpu-rounds.  The idea: a sweep whose result does not depend
 * on the order of its nodes can be cut into bands, one a thread, with no
 * lock at all -- the pool's join is the barrier between push and relabel,
 * and between a relabel and the next round's push.  Each band counts its
 * own active nodes into its own slot, and the caller adds the slots after
 * the join (a shared counter would need an atomic per node).  The one add
 * two threads may make to the same word, a push into a neighbour's inflow
 * across a band's edge, is already atomic (sb_mf_push).  The global
 * relabel stays serial: a BFS is a chain of dependent steps, and it runs
 * once every SB_MF_RELABEL_EVERY rounds.  Every thread count takes the
 * same rounds to the same preflow as cpu-rounds.
 *
 */
#include "grabcut_host.h"

#include "pool.h"

#include <stdlib.h>

typedef struct rounds_state {
    sb_pool *pool;
    int threads;
    long *active;               /* threads: each band's count of active nodes */
    const sb_gc_graph *graph;
    sb_gc_cut_out *out;
    long n;
    sb_mf_net net;
    int32_t *h[2];              /* the heights of this round and of the next */
    int cur;                    /* h[cur] is this round's */
    int32_t *inflow;            /* what phase A pushed into each node */
    int32_t *queue;             /* the BFS's and the cut's */
} rounds_state;

/* Nodes [p0, p1) of band i of n: whole rows. */
static void band_nodes(const rounds_state *s, int i, int n, long *p0, long *p1)
{
    long y0, y1;
    sb_pool_split(s->net.height, i, n, 1, &y0, &y1);
    *p0 = y0 * s->net.width;
    *p1 = y1 * s->net.width;
}

/* Phase A in band i: its active nodes push; counts them. */
static void push_band(void *ctx, int i, int n)
{
    rounds_state *s = ctx;
    long p0, p1, active = 0;
    band_nodes(s, i, n, &p0, &p1);
    const int32_t *h = s->h[s->cur];
    for (long p = p0; p < p1; p++)
        if (s->net.excess[p] > 0 && h[p] < SB_MF_INF) {
            active++;
            sb_mf_push(&s->net, h, s->inflow, s->n, p);
        }
    s->active[i] = active;
}

/* Phase B in band i: its nodes take in their inflow and relabel into the
 * other buffer; counts the active ones after. */
static void relabel_band(void *ctx, int i, int n)
{
    rounds_state *s = ctx;
    long p0, p1, active = 0;
    band_nodes(s, i, n, &p0, &p1);
    const int32_t *h = s->h[s->cur];
    int32_t *h_next = s->h[!s->cur];
    for (long p = p0; p < p1; p++) {
        int32_t e = s->net.excess[p] + s->inflow[p];
        s->inflow[p] = 0;
        s->net.excess[p] = e;
        h_next[p] = sb_mf_relabel(&s->net, h, s->n, p, e);
        active += e > 0 && h_next[p] < SB_MF_INF;
    }
    s->active[i] = active;
}

/* A sweep: every band on its thread, then the bands' counts added. */
static long sweep(rounds_state *s, sb_pool_fn phase)
{
    sb_pool_run(s->pool, phase, s);
    long active = 0;
    for (int i = 0; i < s->threads; i++)
        active += s->active[i];
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
            if ((done = sweep(s, push_band) == 0))
                break;
            rounds++;
            done = sweep(s, relabel_band) == 0;
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
    free(s->active);
    free(s);   /* the pool is shared and outlives the variant */
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
    if ((st = sb_pool_shared(&s->pool, exec->threads, err))) {
        free(s);
        return st;
    }
    s->threads = exec->threads;
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
    s->active = calloc((size_t)s->threads, sizeof *s->active);
    if (!s->net.r || !s->net.sink || !s->net.excess || !s->h[0] || !s->h[1] || !s->inflow || !s->queue ||
        !s->active) {
        rounds_release(s);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for a %dx%d network", exec->who, in->width,
                       in->height);
    }
    *state = s;
    return SB_OK;
}

SB_VARIANT("grabcut-maxflow", "pthread", "pthread", NONE, SB_THREADED | SB_LADDER_TOP, ALL_STAGES,
           "synchronous push-relabel rounds in row bands on a thread pool, serial BFS relabel",
           rounds_prepare, NULL, rounds_run, sb_gc_host_fetch, rounds_release)
SB_RUNG("grabcut-maxflow", "pthread", "cpu-rounds",
        "each sweep cut into row bands on the thread pool: its join the barrier, a count of active nodes per band")
