/* maxflow_bk.c - Boykov-Kolmogorov max-flow (IEEE PAMI 26(9), 2004) on the
 * 8-connected grid: the reference max-flow.
 *
 * Two search trees grow from the terminals, S from the source and T from
 * the sink, over residual edges.  When they touch, the path through the
 * touching edge is augmented; edges it saturates cut their subtrees off
 * (orphans), which look for a new parent in their tree or become free.
 * Trees are kept between augmentations, which is why BK wins on the
 * short, many paths of image graphs.  Orphans use the paper's heuristic:
 * a parent is valid if its path ends at the terminal, checked with
 * timestamps and distances so each check walks only a short way.
 *
 * Residuals are node-major (8 a node) for locality; terminal residual is
 * one signed number a node (> 0 from the source, < 0 to the sink).
 *
 * The same search also runs inside a band of rows (a bk's y0..y1: edges
 * leaving the band do not exist for it), which is what the parallel
 * solver below builds on (sb_mf_bk_bands).
 */
#include "segbench/maxflow.h"

#include <stdlib.h>
#include <string.h>

enum { FREE = 0, S_TREE = 1, T_TREE = 2 };
enum { TERMINAL = 8, ORPHAN = 9 };          /* parent values beside a direction 0..7 */

typedef struct bk {
    int w, h;
    int y0, y1;             /* the rows this search may use */
    long n;                 /* nodes in those rows: the ring holds n + 1 */
    int32_t *r;             /* r[8 p + k]: residual p -> p + off(k) */
    int32_t *tr;            /* terminal residual */
    uint8_t *tree, *parent, *queued;
    int32_t *ts, *dist;
    int32_t *active;        /* FIFO ring of n + 1 */
    long a_head, a_tail;
    int32_t *orphans;       /* stack */
    long n_orphans;
    int32_t time;
    int64_t flow;
} bk;

static inline long neighbour(const bk *b, long p, int k)
{
    int x = (int)(p % b->w) + sb_mf_dx(k), y = (int)(p / b->w) + sb_mf_dy(k);
    if (x < 0 || y < b->y0 || x >= b->w || y >= b->y1)
        return -1;
    return (long)y * b->w + x;
}

static void activate(bk *b, long p)
{
    if (b->queued[p])
        return;
    b->queued[p] = 1;
    b->active[b->a_tail] = (int32_t)p;
    b->a_tail = (b->a_tail + 1) % (b->n + 1);
}

static void make_orphan(bk *b, long p)
{
    b->parent[p] = ORPHAN;
    b->orphans[b->n_orphans++] = (int32_t)p;
}

/* Residual of the tree edge between p and its parent, in the tree's flow
 * direction (S: parent -> p; T: p -> parent). */
static inline int32_t *tree_edge(bk *b, long p, long *up)
{
    int k = b->parent[p];
    *up = neighbour(b, p, k);
    return b->tree[p] == S_TREE ? &b->r[*up * 8 + (k ^ 4)] : &b->r[p * 8 + k];
}

/* Augment along source ... s -> t ... sink, where s (S tree) and t (T
 * tree) are neighbours in direction k from s. */
static void augment(bk *b, long s, long t, int k)
{
    int32_t bottleneck = b->r[s * 8 + k];
    long v = s, up;
    for (; b->parent[v] != TERMINAL; v = up) {
        int32_t c = *tree_edge(b, v, &up);
        if (c < bottleneck)
            bottleneck = c;
    }
    if (b->tr[v] < bottleneck)
        bottleneck = b->tr[v];
    for (v = t; b->parent[v] != TERMINAL; v = up) {
        int32_t c = *tree_edge(b, v, &up);
        if (c < bottleneck)
            bottleneck = c;
    }
    if (-b->tr[v] < bottleneck)
        bottleneck = -b->tr[v];

    b->r[s * 8 + k] -= bottleneck;
    b->r[t * 8 + (k ^ 4)] += bottleneck;
    for (v = s;; v = up) {                 /* the source half: edges parent -> v */
        if (b->parent[v] == TERMINAL) {
            b->tr[v] -= bottleneck;
            if (b->tr[v] == 0)
                make_orphan(b, v);
            break;
        }
        int kp = b->parent[v];
        up = neighbour(b, v, kp);
        b->r[up * 8 + (kp ^ 4)] -= bottleneck;
        b->r[v * 8 + kp] += bottleneck;
        if (b->r[up * 8 + (kp ^ 4)] == 0)
            make_orphan(b, v);
    }
    for (v = t;; v = up) {                 /* the sink half: edges v -> parent */
        if (b->parent[v] == TERMINAL) {
            b->tr[v] += bottleneck;
            if (b->tr[v] == 0)
                make_orphan(b, v);
            break;
        }
        int kp = b->parent[v];
        up = neighbour(b, v, kp);
        b->r[v * 8 + kp] -= bottleneck;
        b->r[up * 8 + (kp ^ 4)] += bottleneck;
        if (b->r[v * 8 + kp] == 0)
            make_orphan(b, v);
    }
    b->flow += bottleneck;
}

/* Does q's path of parents still end at the terminal?  Returns its length
 * (or -1), and stamps the path so later checks stop early. */
static int32_t origin_distance(bk *b, long q)
{
    int32_t d = 0;
    long v = q;
    for (;;) {
        if (b->ts[v] == b->time) {
            d += b->dist[v];
            break;
        }
        if (b->parent[v] == TERMINAL) {
            d += 1;
            break;
        }
        if (b->parent[v] == ORPHAN)
            return -1;
        d++;
        v = neighbour(b, v, b->parent[v]);
    }
    /* stamp the path with its distances */
    int32_t dd = d;
    for (v = q; b->ts[v] != b->time; v = neighbour(b, v, b->parent[v])) {
        b->ts[v] = b->time;
        b->dist[v] = dd--;
        if (b->parent[v] == TERMINAL)
            break;
    }
    return d;
}

static void adopt(bk *b, long p)
{
    int tree = b->tree[p];
    int best_k = -1;
    int32_t best_d = 0x7fffffff;
    for (int k = 0; k < SB_MF_DIRS; k++) {
        long q = neighbour(b, p, k);
        if (q < 0 || b->tree[q] != tree)
            continue;
        int32_t c = tree == S_TREE ? b->r[q * 8 + (k ^ 4)] : b->r[p * 8 + k];
        if (c <= 0)
            continue;
        int32_t d = origin_distance(b, q);
        if (d >= 0 && d < best_d) {
            best_d = d;
            best_k = k;
        }
    }
    if (best_k >= 0) {
        b->parent[p] = (uint8_t)best_k;
        b->ts[p] = b->time;
        b->dist[p] = best_d + 1;
        return;
    }
    /* no parent: p leaves its tree; neighbours that could reach it become
     * active, its children become orphans */
    for (int k = 0; k < SB_MF_DIRS; k++) {
        long q = neighbour(b, p, k);
        if (q < 0 || b->tree[q] != tree)
            continue;
        int32_t c = tree == S_TREE ? b->r[q * 8 + (k ^ 4)] : b->r[p * 8 + k];
        if (c > 0)
            activate(b, q);
        if (b->parent[q] < TERMINAL && neighbour(b, q, b->parent[q]) == p)
            make_orphan(b, q);
    }
    b->tree[p] = FREE;
}

static void solve(bk *b)
{
    while (b->a_head != b->a_tail) {
        long p = b->active[b->a_head];
        int found = 0;
        if (b->tree[p] != FREE) {
            for (int k = 0; k < SB_MF_DIRS && !found; k++) {
                long q = neighbour(b, p, k);
                if (q < 0)
                    continue;
                int32_t c = b->tree[p] == S_TREE ? b->r[p * 8 + k] : b->r[q * 8 + (k ^ 4)];
                if (c <= 0)
                    continue;
                if (b->tree[q] == FREE) {
                    b->tree[q] = b->tree[p];
                    b->parent[q] = (uint8_t)(k ^ 4);
                    b->ts[q] = b->ts[p];
                    b->dist[q] = b->dist[p] + 1;
                    activate(b, q);
                } else if (b->tree[q] != b->tree[p]) {
                    b->time++;
                    if (b->tree[p] == S_TREE)
                        augment(b, p, q, k);
                    else
                        augment(b, q, p, k ^ 4);
                    while (b->n_orphans > 0)
                        adopt(b, b->orphans[--b->n_orphans]);
                    found = 1;   /* p stays at the front: scan it again */
                }
            }
        }
        if (!found) {
            b->queued[p] = 0;
            b->a_head = (b->a_head + 1) % (b->n + 1);
        }
    }
}

/* The per-node arrays of the whole graph, filled from g: every node in
 * its terminal's tree (or free), nothing active yet. */
static sb_status bk_open(bk *b, const sb_gc_graph *g, const char *who, sb_error *err)
{
    memset(b, 0, sizeof *b);
    b->w = g->width;
    b->h = g->height;
    b->y0 = 0;
    b->y1 = g->height;
    b->n = (long)g->width * g->height;
    size_t n = (size_t)b->n;
    b->r = malloc(sizeof(int32_t) * 8 * n);
    b->tr = malloc(sizeof(int32_t) * n);
    b->tree = malloc(n);
    b->parent = malloc(n);
    b->queued = calloc(n, 1);
    b->ts = calloc(n, sizeof(int32_t));
    b->dist = calloc(n, sizeof(int32_t));
    if (!b->r || !b->tr || !b->tree || !b->parent || !b->queued || !b->ts || !b->dist)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for a %dx%d graph", who, g->width, g->height);
    for (long p = 0; p < b->n; p++) {
        for (int k = 0; k < SB_MF_DIRS; k++) {
            long q = neighbour(b, p, k);
            b->r[p * 8 + k] = q < 0 ? 0 : k < 4 ? g->nlink[k][p] : g->nlink[k - 4][q];
        }
        b->tr[p] = g->term[p];
        b->tree[p] = g->term[p] > 0 ? S_TREE : g->term[p] < 0 ? T_TREE : FREE;
        b->parent[p] = g->term[p] != 0 ? TERMINAL : ORPHAN;
        b->dist[p] = 1;
    }
    return SB_OK;
}

/* A search over rows y0..y1 of `all`'s graph: the node arrays shared, the
 * queue and the orphan stack its own (room for (y1 - y0) * w + 1 and + 8
 * entries, slices of buffers allocated once per solve). */
static void bk_band(bk *b, const bk *all, int y0, int y1, int32_t time, int32_t *queue, int32_t *orphans)
{
    *b = *all;
    b->y0 = y0;
    b->y1 = y1;
    b->n = (long)(y1 - y0) * all->w;
    b->a_head = b->a_tail = 0;
    b->n_orphans = 0;
    b->time = time;
    b->flow = 0;
    b->active = queue;
    b->orphans = orphans;
}

static void bk_free(bk *b)
{
    free(b->r);
    free(b->tr);
    free(b->tree);
    free(b->parent);
    free(b->queued);
    free(b->ts);
    free(b->dist);
    free(b->active);
    free(b->orphans);
}

sb_status sb_mf_bk(const sb_gc_graph *g, sb_gc_cut_out *out, sb_error *err)
{
    bk b;
    sb_status st = bk_open(&b, g, "maxflow/bk", err);
    b.active = malloc(sizeof(int32_t) * ((size_t)b.n + 1));
    b.orphans = malloc(sizeof(int32_t) * ((size_t)b.n + 8));
    if (!st && (!b.active || !b.orphans))
        st = sb_fail(err, SB_ERR_NOMEM, "maxflow/bk: out of memory for a %dx%d graph", g->width, g->height);
    if (st) {
        bk_free(&b);
        return st;
    }
    for (long p = 0; p < b.n; p++)
        if (g->term[p] != 0)
            activate(&b, p);
    solve(&b);
    out->flow = b.flow;
    out->rounds = 0;
    out->relabels = 0;
    sb_mf_canonical_cut(b.w, b.h, b.r, 8, 1, b.tr, 1, out->fg, b.active);
    bk_free(&b);
    return SB_OK;
}

/* ---- BK in bands, merged pairwise (after Liu and Sun, CVPR 2010) ----
 *
 * Level 0: each band of rows runs BK on its own part of the graph, edges
 * to other bands left out; the bands share nothing, so they run at once.
 * Each later level joins neighbouring pairs of the last level's regions:
 * their trees stay valid (their paths lie inside the joined region), the
 * queue of a finished search is empty, and only the two rows either side
 * of the seam gained edges, so the joined search starts from the tree
 * nodes on those rows.  Its clock starts past both halves' clocks, so no
 * stale stamp can pass for a fresh one (origin_distance).  The last level
 * is one region, the whole graph: a maximum flow, and the canonical cut
 * is the same for every maximum flow. */

typedef struct bands_job {
    const bk *all;
    const int *edge;           /* band i: rows edge[i] .. edge[i + 1] */
    int bands, span;           /* this level's regions are `span` bands wide */
    int32_t *time;             /* by band: the clock of the region it starts */
    int64_t *flow;             /* by band: the flow its searches found */
    /* n + bands and n + 8 bands entries: the region of bands first..last
     * (rows y0..y1) takes its queue from y0 w + first and its orphan stack
     * from y0 w + 8 first, so the regions of a level never overlap */
    int32_t *queues, *orphans;
} bands_job;

static void bands_level(void *ctx, int i, int count)
{
    (void)count;
    bands_job *j = ctx;
    int first = i * j->span, half = j->span / 2;
    if (first >= j->bands || (j->span > 1 && first + half >= j->bands))
        return;                                         /* no region, or nothing to join */
    int last = first + j->span < j->bands ? first + j->span : j->bands;
    int y0 = j->edge[first], y1 = j->edge[last];
    if (y0 == y1)
        return;
    int32_t time = j->time[first];
    if (j->span > 1 && j->time[first + half] > time)
        time = j->time[first + half];
    bk b;
    long at = (long)y0 * j->all->w;
    bk_band(&b, j->all, y0, y1, time + 1, j->queues + at + first, j->orphans + at + 8L * first);
    if (j->span == 1) {
        for (long p = (long)y0 * b.w; p < (long)y1 * b.w; p++)
            if (b.tr[p] != 0)
                activate(&b, p);
    } else {
        int seam = j->edge[first + half];
        for (long p = (long)(seam - 1) * b.w; p < (long)(seam + 1) * b.w; p++)
            if (p >= (long)y0 * b.w && p < (long)y1 * b.w && b.tree[p] != FREE)
                activate(&b, p);
    }
    solve(&b);
    j->time[first] = b.time;
    j->flow[first] += b.flow;
}

sb_status sb_mf_bk_bands(const sb_gc_graph *g, const sb_band_runner *runner, sb_gc_cut_out *out, sb_error *err)
{
    int bands = runner->bands;
    bk b;
    sb_status st = bk_open(&b, g, "maxflow/bk-bands", err);
    int *edge = malloc(sizeof(int) * ((size_t)bands + 1));
    int32_t *time = calloc((size_t)bands, sizeof(int32_t));
    int64_t *flow = calloc((size_t)bands, sizeof(int64_t));
    size_t n = (size_t)g->width * g->height;
    int32_t *queues = malloc(sizeof(int32_t) * (n + (size_t)bands));
    int32_t *orphans = malloc(sizeof(int32_t) * (n + 8 * (size_t)bands));
    if (!st && (!edge || !time || !flow || !queues || !orphans))
        st = sb_fail(err, SB_ERR_NOMEM, "maxflow/bk-bands: out of memory");
    bands_job j = { &b, edge, bands, 1, time, flow, queues, orphans };
    if (!st) {
        for (int i = 0; i <= bands; i++)
            edge[i] = (int)((long)g->height * i / bands);
        for (j.span = 1;; j.span *= 2) {
            sb_band_run(runner, bands_level, &j);
            if (j.span >= bands)
                break;
        }
    }
    if (!st) {
        out->flow = 0;
        for (int i = 0; i < bands; i++)
            out->flow += flow[i];
        out->rounds = 0;
        out->relabels = 0;
        sb_mf_canonical_cut(b.w, b.h, b.r, 8, 1, b.tr, 1, out->fg, queues);
    }
    free(edge);
    free(time);
    free(flow);
    free(queues);
    free(orphans);
    bk_free(&b);
    return st;
}
