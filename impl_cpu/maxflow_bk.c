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
 */
#include "segbench/maxflow.h"

#include <stdlib.h>
#include <string.h>

enum { FREE = 0, S_TREE = 1, T_TREE = 2 };
enum { TERMINAL = 8, ORPHAN = 9 };          /* parent values beside a direction 0..7 */

typedef struct bk {
    int w, h;
    long n;
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
    if (x < 0 || y < 0 || x >= b->w || y >= b->h)
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
    memset(&b, 0, sizeof b);
    b.w = g->width;
    b.h = g->height;
    b.n = (long)g->width * g->height;
    size_t n = (size_t)b.n;
    b.r = malloc(sizeof(int32_t) * 8 * n);
    b.tr = malloc(sizeof(int32_t) * n);
    b.tree = malloc(n);
    b.parent = malloc(n);
    b.queued = calloc(n, 1);
    b.ts = calloc(n, sizeof(int32_t));
    b.dist = calloc(n, sizeof(int32_t));
    b.active = malloc(sizeof(int32_t) * (n + 1));
    b.orphans = malloc(sizeof(int32_t) * (n + 8));
    if (!b.r || !b.tr || !b.tree || !b.parent || !b.queued || !b.ts || !b.dist || !b.active || !b.orphans) {
        bk_free(&b);
        return sb_fail(err, SB_ERR_NOMEM, "maxflow/bk: out of memory for a %dx%d graph", g->width, g->height);
    }
    for (long p = 0; p < b.n; p++) {
        for (int k = 0; k < SB_MF_DIRS; k++) {
            long q = neighbour(&b, p, k);
            b.r[p * 8 + k] = q < 0 ? 0 : k < 4 ? g->nlink[k][p] : g->nlink[k - 4][q];
        }
        b.tr[p] = g->term[p];
        b.tree[p] = g->term[p] > 0 ? S_TREE : g->term[p] < 0 ? T_TREE : FREE;
        b.parent[p] = g->term[p] != 0 ? TERMINAL : ORPHAN;
        b.dist[p] = 1;
        if (g->term[p] != 0)
            activate(&b, p);
    }
    solve(&b);
    out->flow = b.flow;
    out->rounds = 0;
    out->relabels = 0;
    sb_mf_canonical_cut(b.w, b.h, b.r, 8, 1, b.tr, 1, out->fg, b.active);
    bk_free(&b);
    return SB_OK;
}
