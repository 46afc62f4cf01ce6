/* maxflow_fifo.c - serial push-relabel (Goldberg-Tarjan) with a FIFO of
 * active nodes and global relabelling: the classic serial form of what
 * the parallel variants do in rounds.
 *
 * A node discharges completely (pushes, relabels, pushes ...) when it
 * reaches the front.  Heights are made exact BFS distances to the sink
 * at the start and again after every n relabels (the global relabel of
 * Cherkassky and Goldberg), which also parks every node that cannot reach
 * the sink at SB_MF_INF, where its excess stays: the result is a maximum
 * preflow, enough for the flow value and the canonical cut (maxflow.h).
 */
#include "segbench/maxflow.h"

#include <stdlib.h>
#include <string.h>

typedef struct fifo_pr {
    int w, h;
    long n;
    int32_t *r, *sink, *excess, *height;   /* r node-major: r[8 p + k] */
    int32_t *queue;                        /* ring of n + 1 */
    uint8_t *queued;
    long head, tail;
} fifo_pr;

static inline long neighbour(const fifo_pr *f, long p, int k)
{
    int x = (int)(p % f->w) + sb_mf_dx(k), y = (int)(p / f->w) + sb_mf_dy(k);
    if (x < 0 || y < 0 || x >= f->w || y >= f->h)
        return -1;
    return (long)y * f->w + x;
}

static void enqueue(fifo_pr *f, long p)
{
    if (f->queued[p] || f->excess[p] <= 0 || f->height[p] >= SB_MF_INF)
        return;
    f->queued[p] = 1;
    f->queue[f->tail] = (int32_t)p;
    f->tail = (f->tail + 1) % (f->n + 1);
}

/* Exact distances to the sink; the FIFO restarts from the active nodes. */
static void global_relabel(fifo_pr *f, int32_t *bfs)
{
    long head = 0, tail = 0;
    for (long p = 0; p < f->n; p++) {
        f->height[p] = f->sink[p] > 0 ? 1 : SB_MF_INF;
        if (f->sink[p] > 0)
            bfs[tail++] = (int32_t)p;
    }
    while (head < tail) {
        long w = bfs[head++];
        for (int k = 0; k < SB_MF_DIRS; k++) {
            long v = neighbour(f, w, k);
            if (v >= 0 && f->height[v] == SB_MF_INF && f->r[v * 8 + (k ^ 4)] > 0) {
                f->height[v] = f->height[w] + 1;
                bfs[tail++] = (int32_t)v;
            }
        }
    }
    memset(f->queued, 0, (size_t)f->n);
    f->head = f->tail = 0;
    for (long p = 0; p < f->n; p++)
        enqueue(f, p);
}

/* Push and relabel p until its excess is gone or it can reach no sink;
 * returns the relabels made. */
static long discharge(fifo_pr *f, long p)
{
    long relabels = 0;
    while (f->excess[p] > 0) {
        int32_t hp = f->height[p];
        if (hp == 1 && f->sink[p] > 0) {
            int32_t d = f->excess[p] < f->sink[p] ? f->excess[p] : f->sink[p];
            f->sink[p] -= d;
            f->excess[p] -= d;
        }
        int32_t lowest = SB_MF_INF;
        for (int k = 0; k < SB_MF_DIRS && f->excess[p] > 0; k++) {
            int32_t c = f->r[p * 8 + k];
            if (c <= 0)
                continue;
            long q = neighbour(f, p, k);
            if (f->height[q] == hp - 1) {
                int32_t d = f->excess[p] < c ? f->excess[p] : c;
                f->r[p * 8 + k] -= d;
                f->r[q * 8 + (k ^ 4)] += d;
                f->excess[p] -= d;
                f->excess[q] += d;
                enqueue(f, q);
            }
            if (f->r[p * 8 + k] > 0 && f->height[q] < lowest)
                lowest = f->height[q];
        }
        if (f->excess[p] == 0)
            break;
        /* every admissible edge is saturated: relabel */
        relabels++;
        f->height[p] = f->sink[p] > 0 ? 1 : lowest >= SB_MF_INF - 1 ? SB_MF_INF : lowest + 1;
        if (f->height[p] >= SB_MF_INF)
            break;
    }
    return relabels;
}

sb_status sb_mf_push_relabel(const sb_gc_graph *g, sb_gc_cut_out *out, sb_error *err)
{
    fifo_pr f;
    memset(&f, 0, sizeof f);
    f.w = g->width;
    f.h = g->height;
    f.n = (long)g->width * g->height;
    size_t n = (size_t)f.n;
    f.r = malloc(sizeof(int32_t) * 8 * n);
    f.sink = malloc(sizeof(int32_t) * n);
    f.excess = malloc(sizeof(int32_t) * n);
    f.height = malloc(sizeof(int32_t) * n);
    f.queue = malloc(sizeof(int32_t) * (n + 1));
    f.queued = malloc(n);
    int32_t *bfs = malloc(sizeof(int32_t) * n);
    sb_status st = SB_OK;
    if (!f.r || !f.sink || !f.excess || !f.height || !f.queue || !f.queued || !bfs) {
        st = sb_fail(err, SB_ERR_NOMEM, "maxflow/push-relabel: out of memory for a %dx%d graph", g->width, g->height);
        goto out;
    }
    for (long p = 0; p < f.n; p++) {
        for (int k = 0; k < SB_MF_DIRS; k++) {
            long q = neighbour(&f, p, k);
            f.r[p * 8 + k] = q < 0 ? 0 : k < 4 ? g->nlink[k][p] : g->nlink[k - 4][q];
        }
        f.excess[p] = g->term[p] > 0 ? g->term[p] : 0;
        f.sink[p] = g->term[p] < 0 ? -g->term[p] : 0;
    }
    global_relabel(&f, bfs);
    int relabels = 1;
    long since = 0;
    while (f.head != f.tail) {
        long p = f.queue[f.head];
        f.head = (f.head + 1) % (f.n + 1);
        f.queued[p] = 0;
        since += discharge(&f, p);
        if (since >= f.n) {           /* heights have drifted: make them exact again */
            global_relabel(&f, bfs);
            relabels++;
            since = 0;
        }
    }
    out->flow = sb_mf_sink_flow(g, f.sink, f.n);
    out->rounds = 0;
    out->relabels = relabels;
    sb_mf_canonical_cut(f.w, f.h, f.r, 8, 1, f.sink, 0, out->fg, bfs);
out:
    free(f.r);
    free(f.sink);
    free(f.excess);
    free(f.height);
    free(f.queue);
    free(f.queued);
    free(bfs);
    return st;
}
