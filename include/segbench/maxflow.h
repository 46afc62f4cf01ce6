/* maxflow.h - maximum flow on GrabCut's 8-connected grid graph, exactly.
 *
 * The graph (grabcut.h's sb_gc_graph): a node per pixel, a terminal
 * capacity per node (term > 0 from the source, term < 0 to the sink) and
 * an undirected n-link of integer capacity to each of the 8 neighbours.
 * Directions k = 0..7 are E, SE, S, SW, W, NW, N, NE: k and k ^ 4 are
 * opposite, and the graph stores directions 0..3 (each pair once).
 *
 * The exact contract, every variant: the flow value (int64), and the
 * canonical cut: a pixel is background when it can reach the sink in the
 * residual graph, foreground otherwise.  For every maximum flow -- indeed
 * every maximum preflow, which is where push-relabel's first phase stops
 * -- that set is the same: the smallest sink side of a minimum cut.  (A
 * maximum preflow saturates every minimum cut, so no residual path
 * crosses one from the source side; and the set is itself the sink side
 * of a minimum cut.)  So variants may compute different flows and still
 * must agree to the pixel.
 *
 * The synchronous push-relabel below ("rounds") is what the pthread,
 * OpenMP and cuda-global variants share, node function for node function:
 *
 *   global relabel: h(v) = BFS distance to the sink in the residual graph
 *                   (1 for a node with residual sink capacity), or
 *                   SB_MF_INF when there is no path
 *   round, phase A (push): every active node (excess > 0, h < INF) pushes,
 *       sink first (when h == 1), then k = 0..7 to neighbours with h one
 *       lower, while excess lasts.  The pushed amount leaves its own
 *       residual, is added to the reverse residual (which no one else
 *       reads or writes in this phase: the reverse edge goes uphill) and
 *       to the neighbour's inflow (an atomic add: several may push to it).
 *   round, phase B (gather, relabel): excess += inflow; an active node
 *       with no admissible edge left takes h = 1 + the lowest neighbour
 *       over residual edges (reading the heights of before the phase,
 *       writing a second buffer), INF when there is none.
 *
 * Heights read in phase A and B are those of the round before, writes
 * touch only a node's own state (plus the atomic inflow and the one
 * reverse residual), so the result does not depend on the order in which
 * nodes are visited: every runner takes the same rounds to the same flow.
 */
#ifndef SEGBENCH_MAXFLOW_H
#define SEGBENCH_MAXFLOW_H

#include <stdint.h>

#include "segbench/bands.h"
#include "segbench/error.h"
#include "segbench/grabcut.h"
#include "segbench/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_MF_DIRS 8
#define SB_MF_INF  0x3fffffff           /* "cannot reach the sink" height */

SB_HD int sb_mf_dx(int k) { return k == 0 || k == 1 || k == 7 ? 1 : k >= 3 && k <= 5 ? -1 : 0; }
SB_HD int sb_mf_dy(int k) { return k >= 1 && k <= 3 ? 1 : k >= 5 ? -1 : 0; }

/* The residual network in planes: r[k * n + p] is p's residual capacity
 * toward its neighbour in direction k (0 at the border), sink[p] its
 * residual capacity to the sink, excess[p] what it holds. */
typedef struct sb_mf_net {
    int width, height;
    int32_t *r;                 /* 8 * n */
    int32_t *sink;              /* n */
    int32_t *excess;            /* n */
} sb_mf_net;

/* ---- host solvers (impl_cpu/maxflow_*.c) ---- */

/* The residual network of a graph, before any flow: excess = term > 0,
 * sink = -term > 0.  net's arrays are the caller's (8n, n, n). */
void sb_mf_net_init(const sb_gc_graph *g, sb_mf_net *net);

/* The canonical cut of a residual network: fg[p] = 1 unless p reaches the
 * sink (a breadth-first search backwards from it).  The residual of p
 * toward direction k is r[p * node_stride + k * dir_stride] (planes: 1, n;
 * node-major: 8, 1); p has residual sink capacity where term[p] > 0, or
 * where term[p] < 0 when sink_negative.  queue: n ints. */
void sb_mf_canonical_cut(int width, int height, const int32_t *r, long node_stride, long dir_stride,
                         const int32_t *term, int sink_negative, uint8_t *fg, int32_t *queue);
/* The flow value of a network after the solve: what reached the sink,
 * sum over p of max(-term, 0) - sink (a warm-started network may leave
 * sink residual on a node whose term > 0: sb_mf_rewarm). */
int64_t sb_mf_sink_flow(const sb_gc_graph *g, const int32_t *sink_residual, long n);
/* The rounds' global relabel: h(p) = the exact BFS distance to the sink
 * over residual edges (1 with residual sink capacity), SB_MF_INF where
 * there is no path.  Serial, O(n); queue: n ints.  The device reaches the
 * same distances by relaxation sweeps (sb_mf_relax). */
void sb_mf_global_relabel(const sb_mf_net *net, int32_t *h, int32_t *queue);

/* Boykov-Kolmogorov (the reference): flow value and canonical cut. */
sb_status sb_mf_bk(const sb_gc_graph *g, sb_gc_cut_out *out, sb_error *err);
/* BK in the runner's bands of rows at once, then neighbouring regions
 * joined pairwise, level by level, to the whole graph (maxflow_bk.c):
 * the same flow and canonical cut as sb_mf_bk. */
sb_status sb_mf_bk_bands(const sb_gc_graph *g, const sb_band_runner *runner, sb_gc_cut_out *out, sb_error *err);
/* Serial FIFO push-relabel with global relabelling. */
sb_status sb_mf_push_relabel(const sb_gc_graph *g, sb_gc_cut_out *out, sb_error *err);

/* The synchronous rounds on the host, with a band runner (bands.h):
 * serial, pthread pool or OpenMP.  The state is allocated once per image
 * size and reused. */
typedef struct sb_mf_rounds sb_mf_rounds;
sb_status sb_mf_rounds_open(sb_mf_rounds **mr, int width, int height, sb_error *err);
sb_status sb_mf_rounds_solve(sb_mf_rounds *mr, const sb_gc_graph *g, const sb_band_runner *runner,
                             sb_gc_cut_out *out, sb_error *err);
/* Warm start: solve g from the preflow the last solve left in mr (g of
 * the same size and n-links), whose t-links were prev_term (sb_mf_rewarm
 * on every node, then the same rounds). */
sb_status sb_mf_rounds_solve_warm(sb_mf_rounds *mr, const int32_t *prev_term, const sb_gc_graph *g,
                                  const sb_band_runner *runner, sb_gc_cut_out *out, sb_error *err);
void sb_mf_rounds_close(sb_mf_rounds *mr);

/* How many rounds between global relabels, for every rounds-based
 * variant (host and device), so they all take the same rounds. */
#define SB_MF_RELABEL_EVERY 32

/* ---- the node functions of the rounds (host and device) ---- */

SB_HD void sb_mf_atomic_add(int32_t *at, int32_t d)
{
#if defined(__CUDA_ARCH__)
    atomicAdd((int *)at, (int)d);
#else
    __atomic_fetch_add(at, d, __ATOMIC_RELAXED);
#endif
}

/* Phase A for node p: push its excess, sink first, then down the heights.
 * The height test comes before the capacity read: r(p->q) with q higher
 * may be being raised by q's own push at this moment. */
SB_HD void sb_mf_push(sb_mf_net *net, const int32_t *h, int32_t *inflow, long n, long p)
{
    int32_t e = net->excess[p];
    int32_t hp = h[p];
    if (e <= 0 || hp >= SB_MF_INF)
        return;
    if (hp == 1 && net->sink[p] > 0) {
        int32_t d = e < net->sink[p] ? e : net->sink[p];
        net->sink[p] -= d;
        e -= d;
    }
    int x = (int)(p % net->width), y = (int)(p / net->width);
    for (int k = 0; k < SB_MF_DIRS && e > 0; k++) {
        int qx = x + sb_mf_dx(k), qy = y + sb_mf_dy(k);
        if (qx < 0 || qy < 0 || qx >= net->width || qy >= net->height)
            continue;
        long q = (long)qy * net->width + qx;
        if (h[q] != hp - 1)
            continue;
        int32_t c = net->r[(size_t)k * n + p];
        if (c <= 0)
            continue;
        int32_t d = e < c ? e : c;
        net->r[(size_t)k * n + p] = c - d;
        net->r[(size_t)(k ^ 4) * n + q] += d;         /* the reverse edge: only p writes it now */
        sb_mf_atomic_add(&inflow[q], d);
        e -= d;
    }
    net->excess[p] = e;
}

/* Phase B for node p: returns its new height (h_old is the round's). */
SB_HD int32_t sb_mf_relabel(const sb_mf_net *net, const int32_t *h_old, long n, long p, int32_t excess)
{
    int32_t hp = h_old[p];
    if (excess <= 0 || hp >= SB_MF_INF)
        return hp;
    if (net->sink[p] > 0)
        return 1;                        /* the sink (height 0) is a residual neighbour */
    int32_t lowest = SB_MF_INF;
    for (int k = 0; k < SB_MF_DIRS; k++) {
        if (net->r[(size_t)k * n + p] <= 0)
            continue;
        int32_t hq = h_old[p + sb_mf_dx(k) + (long)sb_mf_dy(k) * net->width];
        if (hq == hp - 1)
            return hp;                   /* still admissible: no relabel */
        if (hq < lowest)
            lowest = hq;
    }
    return lowest >= SB_MF_INF - 1 ? SB_MF_INF : lowest + 1;
}

/* Warm start: move node p's part of a preflow from the t-link old_term to
 * new_term, the n-links unchanged (GrabCut's iterations change only the
 * t-links).  What a node holds minus what it may still send to the sink,
 * excess - sink, is its t-link minus its net n-link outflow; so the
 * network stays a valid preflow if that difference moves by new_term -
 * old_term and is split back into excess (>= 0) and sink residual (>= 0).
 * The split is the network of new_term with some d >= 0 added to both of
 * p's terminal capacities (Kohli and Torr's repair for dynamic graph
 * cuts): every cut then costs d more, so the minimum cuts, the canonical
 * cut, and the maximum flow less d are those of new_term, which is why
 * sb_mf_sink_flow counts max(-term, 0) - sink over every node.  Then
 * push-relabel goes on from there, after a global relabel. */
SB_HD void sb_mf_rewarm(int32_t *excess, int32_t *sink, int32_t old_term, int32_t new_term)
{
    int64_t v = (int64_t)*excess - *sink + ((int64_t)new_term - old_term);
    *excess = v > 0 ? (int32_t)v : 0;
    *sink = v < 0 ? (int32_t)-v : 0;
}

/* One Bellman-Ford relaxation of node p toward the sink: the global
 * relabel's distances, reached by sweeping this until nothing changes
 * (the device) or by a queue (the host). */
SB_HD int32_t sb_mf_relax(const sb_mf_net *net, const int32_t *h, long n, long p)
{
    int32_t best = net->sink[p] > 0 ? 1 : h[p];
    for (int k = 0; k < SB_MF_DIRS; k++)
        if (net->r[(size_t)k * n + p] > 0) {
            int32_t hq = h[p + sb_mf_dx(k) + (long)sb_mf_dy(k) * net->width];
            if (hq + 1 < best)
                best = hq + 1;
        }
    return best;
}

#ifdef __cplusplus
}
#endif
#endif
