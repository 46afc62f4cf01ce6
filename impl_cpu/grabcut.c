/* grabcut.c - GrabCut's steps and pipeline on the host (grabcut.h), and
 * the serial variants: "cpu" (the reference; Boykov-Kolmogorov cuts) of
 * every step and "cpu-pr" (serial FIFO push-relabel) of the max-flow
 * ("cpu-rounds" has a file of its own, maxflow_rounds.c).
 * The pthread and OpenMP variants reuse all of this with their runner
 * and the synchronous push-relabel rounds. */
#include "grabcut_host.h"

#include "segbench/device.h"

#include <stdlib.h>
#include <string.h>

static const char *const step_needs[] = {
    [SB_GC_STEP_GMM] = "the k-means step's clusters",
    [SB_GC_STEP_GRAPH] = "the GMM step's mixtures",
    [SB_GC_STEP_MAXFLOW] = "the graph step's graph",
};

void sb_gc_host_release(void *state)
{
    sb_gc_host *h = state;
    if (!h)
        return;
    free(h->mask);
    if (h->step != SB_GC_STEP_KMEANS && h->step != SB_GC_STEP_GMM)
        free(h->comp);
    if (h->step == SB_GC_STEP_PIPELINE) {
        free(h->graph.term);
        for (int d = 0; d < SB_GC_NLINKS; d++)
            free(h->graph.nlink[d]);
        free(h->cut.fg);
    }
    sb_mf_rounds_close(h->rounds);
    free(h->last_term);
    free(h->ksums);
    free(h->gsums);
    free(h->dsums);
    free(h->changed);
    free(h);
}

sb_status sb_gc_host_check(sb_gc_step step, const char *who, const sb_image *in, const void *params, sb_error *err)
{
    const sb_grabcut_params *p = params;
    if (in->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs an RGB image (got %d channels)", who, in->channels);
    sb_status st = sb_gc_check_params(p, in->width, in->height, err);
    if (st)
        return st;
    if (step != SB_GC_STEP_KMEANS && step != SB_GC_STEP_PIPELINE && !p->upstream)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs %s (run it through segbench, which computes them)", who,
                       step_needs[step]);
    if (step == SB_GC_STEP_MAXFLOW) {
        const sb_gc_graph *g = p->upstream;
        if (g->width != in->width || g->height != in->height)
            return sb_fail(err, SB_ERR_USAGE, "%s: the graph is %dx%d, the image %dx%d", who, g->width, g->height,
                           in->width, in->height);
    }
    return SB_OK;
}

sb_status sb_gc_host_prepare(void **state, sb_gc_step step, sb_mf_solver solver, const char *who,
                             const sb_image *in, const void *params, void *output, sb_band_runner runner,
                             sb_error *err)
{
    *state = NULL;
    const sb_grabcut_params *p = params;
    sb_status st = sb_gc_host_check(step, who, in, params, err);
    if (st)
        return st;
    sb_gc_host *h = calloc(1, sizeof *h);
    if (!h)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", who);
    h->step = step;
    h->solver = solver;
    h->runner = runner;
    h->in = in;
    h->p = *p;
    h->out = output;
    h->width = in->width;
    h->height = in->height;
    h->n = (long)in->width * in->height;
    size_t n = (size_t)h->n, bands = (size_t)runner.bands;
    int ok = 1;
    h->mask = malloc(n);
    ok &= h->mask != NULL;
    if (step == SB_GC_STEP_KMEANS)
        h->comp = ((sb_gc_kmeans_out *)output)->comp;
    else if (step == SB_GC_STEP_GMM)
        h->comp = ((sb_gc_gmm_out *)output)->comp;
    else
        ok &= (h->comp = malloc(n)) != NULL;
    if (step == SB_GC_STEP_PIPELINE) {
        h->graph.width = in->width;
        h->graph.height = in->height;
        ok &= (h->graph.term = malloc(sizeof(int32_t) * n)) != NULL;
        for (int d = 0; d < SB_GC_NLINKS; d++)
            ok &= (h->graph.nlink[d] = malloc(sizeof(int32_t) * n)) != NULL;
        h->cut.width = in->width;
        h->cut.height = in->height;
        ok &= (h->cut.fg = malloc(n)) != NULL;
    }
    h->ksums = calloc(bands * 2 * SB_GC_K, sizeof(sb_kmeans_sums));
    h->gsums = calloc(bands * 2 * SB_GC_K * 10, sizeof(uint64_t));
    h->dsums = calloc(bands, sizeof(uint64_t));
    h->changed = calloc(bands, sizeof(long));
    ok &= h->ksums && h->gsums && h->dsums && h->changed;
    if (!ok) {
        sb_gc_host_release(h);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for a %dx%d image", who, in->width, in->height);
    }
    if (solver == SB_MF_ROUNDS && (step == SB_GC_STEP_MAXFLOW || step == SB_GC_STEP_PIPELINE) &&
        (st = sb_mf_rounds_open(&h->rounds, in->width, in->height, err))) {
        sb_gc_host_release(h);
        return st;
    }
    if (solver == SB_MF_ROUNDS && step == SB_GC_STEP_PIPELINE && !(h->last_term = malloc(sizeof(int32_t) * n))) {
        sb_gc_host_release(h);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for a %dx%d image", who, in->width, in->height);
    }
    *state = h;
    return SB_OK;
}

static sb_status host_cut(sb_gc_host *h, const sb_gc_graph *g, sb_gc_cut_out *cut, sb_error *err)
{
    switch (h->solver) {
    case SB_MF_BK:
        return sb_mf_bk(g, cut, err);
    case SB_MF_FIFO:
        return sb_mf_push_relabel(g, cut, err);
    case SB_MF_BK_BANDS:
        return sb_mf_bk_bands(g, &h->runner, cut, err);
    default:
        return sb_mf_rounds_solve(h->rounds, g, &h->runner, cut, err);
    }
}

/* The loop (grabcut.h): a cold start's k-means and learn, or a warm
 * start's mask and mixtures; then the iterations, all of them or, in
 * converge mode, until a cut settles. */
static sb_status run_pipeline(sb_gc_host *h, sb_error *err)
{
    sb_gc_out *out = h->out;
    const sb_gc_start *start = h->p.start && h->p.start->given ? h->p.start : NULL;
    sb_gc_mask_first(&h->p, h->width, h->height, h->mask);
    if (start) {
        memcpy(h->gmm, start->gmm, sizeof h->gmm);
    } else {
        sb_gc_host_kmeans(h);
        sb_gc_host_learn(h);
    }
    sb_gc_host_nlinks(h, &h->graph);
    long long rect_pixels = sb_gc_rect_pixels(&h->p, h->width, h->height);
    int it = 0, settled = 0;
    for (; it < h->p.iterations && !settled; it++) {
        sb_gc_host_assign(h);
        sb_gc_host_learn(h);
        sb_gc_host_tlinks(h, &h->graph);
        /* the rounds start cuts 2.. from the flow the cut before left
         * (maxflow.h's warm start: the n-links never change) */
        sb_status st = h->last_term && it > 0
                           ? sb_mf_rounds_solve_warm(h->rounds, h->last_term, &h->graph, &h->runner, &h->cut, err)
                           : host_cut(h, &h->graph, &h->cut, err);
        if (st)
            return st;
        if (h->last_term)
            memcpy(h->last_term, h->graph.term, sizeof(int32_t) * (size_t)h->n);
        long long moved = sb_gc_host_update_mask(h, h->cut.fg);
        settled = h->p.converge && sb_gc_settled(moved, rect_pixels);
        out->flow[it] = h->cut.flow;
        out->rounds[it] = h->cut.rounds;
        out->relabels[it] = h->cut.relabels;
    }
    out->iterations = it;
    for (int i = it; i < SB_GC_MAX_ITER; i++)
        out->flow[i] = out->rounds[i] = out->relabels[i] = 0;
    memcpy(out->gmm, h->gmm, sizeof out->gmm);
    memcpy(out->mask, h->mask, (size_t)h->n);
    return SB_OK;
}

sb_status sb_gc_host_run(void *state, sb_error *err)
{
    sb_gc_host *h = state;
    switch (h->step) {
    case SB_GC_STEP_KMEANS: {
        sb_gc_kmeans_out *out = h->out;
        sb_gc_mask_init(&h->p, h->width, h->height, h->mask);
        out->passes = sb_gc_host_kmeans(h);
        memcpy(out->centres, h->centres, sizeof out->centres);
        return SB_OK;
    }
    case SB_GC_STEP_GMM: {
        sb_gc_gmm_out *out = h->out;
        const sb_gc_kmeans_out *clusters = h->p.upstream;
        sb_gc_mask_init(&h->p, h->width, h->height, h->mask);
        memcpy(h->comp, clusters->comp, (size_t)h->n);
        sb_gc_host_learn(h);
        sb_gc_host_assign(h);
        sb_gc_host_learn(h);
        memcpy(out->gmm, h->gmm, sizeof out->gmm);
        return SB_OK;
    }
    case SB_GC_STEP_GRAPH: {
        const sb_gc_gmm_out *mixtures = h->p.upstream;
        sb_gc_mask_init(&h->p, h->width, h->height, h->mask);
        memcpy(h->gmm, mixtures->gmm, sizeof h->gmm);
        sb_gc_host_nlinks(h, h->out);
        sb_gc_host_tlinks(h, h->out);
        return SB_OK;
    }
    case SB_GC_STEP_MAXFLOW:
        return host_cut(h, h->p.upstream, h->out, err);
    default:
        return run_pipeline(h, err);
    }
}

sb_status sb_gc_host_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

/* The serial variants: a prepare for each step and solver, then their
 * registrations. */
#define GC_CPU_PREPARE(fn, step, solver)                                                                \
    static sb_status fn(void **state, const sb_image *in, const void *params, void *output,             \
                        const sb_exec *exec, sb_error *err)                                              \
    {                                                                                                    \
        return sb_gc_host_prepare(state, step, solver, exec->who, in, params, output, sb_band_serial(), \
                                  err);                                                                  \
    }
GC_CPU_PREPARE(kmeans_prepare, SB_GC_STEP_KMEANS, SB_MF_BK)
GC_CPU_PREPARE(gmm_prepare, SB_GC_STEP_GMM, SB_MF_BK)
GC_CPU_PREPARE(graph_prepare, SB_GC_STEP_GRAPH, SB_MF_BK)
GC_CPU_PREPARE(maxflow_prepare, SB_GC_STEP_MAXFLOW, SB_MF_BK)
GC_CPU_PREPARE(maxflow_fifo_prepare, SB_GC_STEP_MAXFLOW, SB_MF_FIFO)
GC_CPU_PREPARE(pipeline_prepare, SB_GC_STEP_PIPELINE, SB_MF_BK)

SB_VARIANT("grabcut-kmeans", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: each pixel's side's 5 centres, integer sums, at most 10 passes",
           kmeans_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-gmm", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: integer moment sums, double mixtures, log-domain scores",
           gmm_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-graph", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: beta from integer sums, n-links and t-links quantized",
           graph_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-maxflow", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: Boykov-Kolmogorov search trees",
           maxflow_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut-maxflow", "cpu-pr", "cpu", NONE, 0, ALL_STAGES,
           "serial FIFO push-relabel, global relabel after every n relabels",
           maxflow_fifo_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)
SB_VARIANT("grabcut", "cpu", "cpu", NONE, 0, ALL_STAGES,
           "serial reference: the steps in turn, Boykov-Kolmogorov cuts",
           pipeline_prepare, NULL, sb_gc_host_run, sb_gc_host_fetch, sb_gc_host_release)

/* The serial reference of the whole pipeline, outside the harness (the
 * gallery and `segbench run`). */
sb_status sb_gc_serial(const sb_image *rgb, const sb_grabcut_params *p, sb_gc_out *out, sb_error *err)
{
    void *state;
    sb_status st = sb_gc_host_prepare(&state, SB_GC_STEP_PIPELINE, SB_MF_BK, "grabcut", rgb, p, out,
                                      sb_band_serial(), err);
    if (st)
        return st;
    st = sb_gc_host_run(state, err);
    sb_gc_host_release(state);
    return st;
}
