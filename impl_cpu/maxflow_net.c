/* maxflow_net.c - the residual network, the canonical cut, and the
 * synchronous push-relabel rounds on the host (maxflow.h). */
#include "segbench/maxflow.h"

#include <stdlib.h>
#include <string.h>

void sb_mf_net_init(const sb_gc_graph *g, sb_mf_net *net)
{
    long n = (long)g->width * g->height;
    net->width = g->width;
    net->height = g->height;
    for (int y = 0; y < g->height; y++)
        for (int x = 0; x < g->width; x++) {
            long p = (long)y * g->width + x;
            for (int k = 0; k < SB_MF_DIRS; k++) {
                int qx = x + sb_mf_dx(k), qy = y + sb_mf_dy(k);
                int32_t c = 0;
                if (qx >= 0 && qy >= 0 && qx < g->width && qy < g->height)
                    c = k < 4 ? g->nlink[k][p] : g->nlink[k - 4][(long)qy * g->width + qx];
                net->r[(size_t)k * n + p] = c;
            }
            int32_t t = g->term[p];
            net->excess[p] = t > 0 ? t : 0;
            net->sink[p] = t < 0 ? -t : 0;
        }
}

void sb_mf_canonical_cut(int width, int height, const int32_t *r, long node_stride, long dir_stride,
                         const int32_t *term, int sink_negative, uint8_t *fg, int32_t *queue)
{
    long n = (long)width * height, head = 0, tail = 0;
    for (long p = 0; p < n; p++) {
        int to_sink = sink_negative ? term[p] < 0 : term[p] > 0;
        fg[p] = !to_sink;
        if (to_sink)
            queue[tail++] = (int32_t)p;
    }
    while (head < tail) {
        long w = queue[head++];
        int x = (int)(w % width), y = (int)(w / width);
        for (int k = 0; k < SB_MF_DIRS; k++) {
            int vx = x + sb_mf_dx(k), vy = y + sb_mf_dy(k);
            if (vx < 0 || vy < 0 || vx >= width || vy >= height)
                continue;
            long v = (long)vy * width + vx;
            /* v reaches w, hence the sink, over v's edge in direction k ^ 4 */
            if (fg[v] && r[v * node_stride + (k ^ 4) * dir_stride] > 0) {
                fg[v] = 0;
                queue[tail++] = (int32_t)v;
            }
        }
    }
}

int64_t sb_mf_sink_flow(const sb_gc_graph *g, const int32_t *sink_residual, long n)
{
    int64_t flow = 0;
    for (long p = 0; p < n; p++)
        flow += (int64_t)(g->term[p] < 0 ? -g->term[p] : 0) - sink_residual[p];
    return flow;
}

/* ---- the synchronous rounds ---- */

struct sb_mf_rounds {
    int width, height;
    long n;
    sb_mf_net net;
    int32_t *h[2], *inflow, *queue;
    long *active;                /* per band */
    int bands;
    int cur;                     /* h[cur] is the heights of now */
};

sb_status sb_mf_rounds_open(sb_mf_rounds **out, int width, int height, sb_error *err)
{
    sb_mf_rounds *mr = calloc(1, sizeof *mr);
    long n = (long)width * height;
    if (mr) {
        mr->width = width;
        mr->height = height;
        mr->n = n;
        mr->net.r = malloc(sizeof(int32_t) * 8 * (size_t)n);
        mr->net.sink = malloc(sizeof(int32_t) * (size_t)n);
        mr->net.excess = malloc(sizeof(int32_t) * (size_t)n);
        mr->h[0] = malloc(sizeof(int32_t) * (size_t)n);
        mr->h[1] = malloc(sizeof(int32_t) * (size_t)n);
        mr->inflow = calloc((size_t)n, sizeof(int32_t));
        mr->queue = malloc(sizeof(int32_t) * (size_t)n);
    }
    if (!mr || !mr->net.r || !mr->net.sink || !mr->net.excess || !mr->h[0] || !mr->h[1] || !mr->inflow ||
        !mr->queue) {
        sb_mf_rounds_close(mr);
        return sb_fail(err, SB_ERR_NOMEM, "maxflow: out of memory for a %dx%d network", width, height);
    }
    *out = mr;
    return SB_OK;
}

void sb_mf_rounds_close(sb_mf_rounds *mr)
{
    if (!mr)
        return;
    free(mr->net.r);
    free(mr->net.sink);
    free(mr->net.excess);
    free(mr->h[0]);
    free(mr->h[1]);
    free(mr->inflow);
    free(mr->queue);
    free(mr->active);
    free(mr);
}

void sb_mf_global_relabel(const sb_mf_net *net, int32_t *h, int32_t *queue)
{
    long head = 0, tail = 0, n = (long)net->width * net->height;
    for (long p = 0; p < n; p++) {
        h[p] = net->sink[p] > 0 ? 1 : SB_MF_INF;
        if (h[p] == 1)
            queue[tail++] = (int32_t)p;
    }
    while (head < tail) {
        long w = queue[head++];
        int x = (int)(w % net->width), y = (int)(w / net->width);
        for (int k = 0; k < SB_MF_DIRS; k++) {
            int vx = x + sb_mf_dx(k), vy = y + sb_mf_dy(k);
            if (vx < 0 || vy < 0 || vx >= net->width || vy >= net->height)
                continue;
            long v = (long)vy * net->width + vx;
            if (h[v] == SB_MF_INF && net->r[(size_t)(k ^ 4) * n + v] > 0) {
                h[v] = h[w] + 1;
                queue[tail++] = (int32_t)v;
            }
        }
    }
}

static void nodes_of_band(const sb_mf_rounds *mr, int band, int bands, long *p0, long *p1)
{
    int y0, y1;
    sb_band_rows(mr->height, band, bands, &y0, &y1);
    *p0 = (long)y0 * mr->width;
    *p1 = (long)y1 * mr->width;
}

static void push_band(void *ctx, int band, int bands)
{
    sb_mf_rounds *mr = ctx;
    long p0, p1, active = 0;
    nodes_of_band(mr, band, bands, &p0, &p1);
    const int32_t *h = mr->h[mr->cur];
    for (long p = p0; p < p1; p++)
        if (mr->net.excess[p] > 0 && h[p] < SB_MF_INF) {
            active++;
            sb_mf_push(&mr->net, h, mr->inflow, mr->n, p);
        }
    mr->active[band] = active;
}

static void relabel_band(void *ctx, int band, int bands)
{
    sb_mf_rounds *mr = ctx;
    long p0, p1, active = 0;
    nodes_of_band(mr, band, bands, &p0, &p1);
    const int32_t *h = mr->h[mr->cur];
    int32_t *h_new = mr->h[!mr->cur];
    for (long p = p0; p < p1; p++) {
        int32_t e = mr->net.excess[p] + mr->inflow[p];
        mr->inflow[p] = 0;
        mr->net.excess[p] = e;
        h_new[p] = sb_mf_relabel(&mr->net, h, mr->n, p, e);
        active += e > 0 && h_new[p] < SB_MF_INF;
    }
    mr->active[band] = active;
}

static long active_total(const sb_mf_rounds *mr)
{
    long a = 0;
    for (int b = 0; b < mr->bands; b++)
        a += mr->active[b];
    return a;
}

static sb_status fit_bands(sb_mf_rounds *mr, const sb_band_runner *runner, sb_error *err)
{
    if (mr->bands != runner->bands) {
        free(mr->active);
        mr->active = calloc((size_t)runner->bands, sizeof(long));
        if (!mr->active)
            return sb_fail(err, SB_ERR_NOMEM, "maxflow: out of memory");
        mr->bands = runner->bands;
    }
    return SB_OK;
}

/* The rounds from whatever preflow mr->net holds, to the flow and cut. */
static void solve_from(sb_mf_rounds *mr, const sb_gc_graph *g, const sb_band_runner *runner, sb_gc_cut_out *out)
{
    mr->cur = 0;
    int rounds = 0, relabels = 0, done = 0;
    while (!done) {
        sb_mf_global_relabel(&mr->net, mr->h[mr->cur], mr->queue);
        relabels++;
        for (int i = 0; i < SB_MF_RELABEL_EVERY; i++) {
            sb_band_run(runner, push_band, mr);
            if (active_total(mr) == 0) {
                done = 1;
                break;
            }
            rounds++;
            sb_band_run(runner, relabel_band, mr);
            mr->cur = !mr->cur;
            if (active_total(mr) == 0) {
                done = 1;
                break;
            }
        }
    }
    out->rounds = rounds;
    out->relabels = relabels;
    out->flow = sb_mf_sink_flow(g, mr->net.sink, mr->n);
    /* the cut: the sink residuals are a plane */
    sb_mf_canonical_cut(mr->width, mr->height, mr->net.r, 1, mr->n, mr->net.sink, 0, out->fg, mr->queue);
}

sb_status sb_mf_rounds_solve(sb_mf_rounds *mr, const sb_gc_graph *g, const sb_band_runner *runner,
                             sb_gc_cut_out *out, sb_error *err)
{
    sb_status st = fit_bands(mr, runner, err);
    if (st)
        return st;
    sb_mf_net_init(g, &mr->net);
    solve_from(mr, g, runner, out);
    return SB_OK;
}

sb_status sb_mf_rounds_solve_warm(sb_mf_rounds *mr, const int32_t *prev_term, const sb_gc_graph *g,
                                  const sb_band_runner *runner, sb_gc_cut_out *out, sb_error *err)
{
    if (g->width != mr->width || g->height != mr->height)
        return sb_fail(err, SB_ERR_USAGE, "maxflow: a warm start needs the last graph's size (%dx%d, got %dx%d)",
                       mr->width, mr->height, g->width, g->height);
    sb_status st = fit_bands(mr, runner, err);
    if (st)
        return st;
    for (long p = 0; p < mr->n; p++)
        sb_mf_rewarm(&mr->net.excess[p], &mr->net.sink[p], prev_term[p], g->term[p]);
    solve_from(mr, g, runner, out);
    return SB_OK;
}
