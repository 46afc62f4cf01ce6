/* grabcut_host.h - the host steps of GrabCut (grabcut.h), shared by
 * impl_cpu/grabcut*.c and the pthread and OpenMP variants, which reach it
 * (as "grabcut_host.h") on the -Iimpl_cpu path the Makefile gives
 * impl_pthread/ and the tests.  Each step is band-parallel phases
 * (bands.h): the variants differ only in the runner and, for the cut, in
 * the max-flow solver. */
#ifndef SEGBENCH_GRABCUT_HOST_H
#define SEGBENCH_GRABCUT_HOST_H

#include "segbench/bands.h"
#include "segbench/grabcut.h"
#include "segbench/kmeans.h"
#include "segbench/maxflow.h"
#include "segbench/variant.h"

/* The benchmarked algorithms, each a step of the pipeline or all of it. */
typedef enum sb_gc_step {
    SB_GC_STEP_KMEANS,
    SB_GC_STEP_GMM,
    SB_GC_STEP_GRAPH,
    SB_GC_STEP_MAXFLOW,
    SB_GC_STEP_PIPELINE
} sb_gc_step;

typedef enum sb_mf_solver { SB_MF_BK, SB_MF_FIFO, SB_MF_ROUNDS, SB_MF_BK_BANDS } sb_mf_solver;

/* The pipeline's first mask: sb_gc_mask_init's, or a warm start's
 * (grabcut.h's sb_gc_warm_mask) where params carry one. */
void sb_gc_mask_first(const sb_grabcut_params *p, int width, int height, uint8_t *mask);
/* The clipped rectangle's pixel count (converge mode's denominator). */
long long sb_gc_rect_pixels(const sb_grabcut_params *p, int width, int height);

/* The initial k-means centres (the spread init), both sides. */
void sb_gc_kmeans_initial(int32_t centres[2][SB_GC_K][3]);

typedef struct sb_gc_host {
    sb_gc_step step;
    sb_mf_solver solver;
    sb_band_runner runner;
    const sb_image *in;
    sb_grabcut_params p;
    void *out;
    int width, height;
    long n;
    uint8_t *mask, *comp;
    int32_t centres[2][SB_GC_K][3];
    sb_gc_gmm gmm[2];
    sb_gc_graph graph;               /* the pipeline's and the graph step's own */
    sb_gc_cut_out cut;               /* the pipeline's */
    sb_mf_rounds *rounds;            /* SB_MF_ROUNDS only */
    int32_t *last_term;              /* pipeline, SB_MF_ROUNDS: the t-links the kept flow is for */
    /* per band */
    sb_kmeans_sums *ksums;           /* bands * 2 * K */
    uint64_t *gsums;                 /* bands * 2 * K * 10 */
    uint64_t *dsums;                 /* bands: squared colour differences */
    long *changed;                   /* bands */
} sb_gc_host;

/* What every step's prepare checks first: an RGB image, sane parameters,
 * and for a step after k-means the upstream step's output (for the cut, a
 * graph of the image's size); `who` names the variant in messages. */
sb_status sb_gc_host_check(sb_gc_step step, const char *who, const sb_image *in, const void *params,
                           sb_error *err);
/* prepare(): check parameters, allocate, and point the state at the input
 * and output; `who` names the variant in messages. */
sb_status sb_gc_host_prepare(void **state, sb_gc_step step, sb_mf_solver solver, const char *who,
                             const sb_image *in, const void *params, void *output, sb_band_runner runner,
                             sb_error *err);
sb_status sb_gc_host_run(void *state, sb_error *err);
sb_status sb_gc_host_fetch(void *state, sb_error *err);
void sb_gc_host_release(void *state);

/* The steps (impl_cpu/grabcut_steps.c). */
int sb_gc_host_kmeans(sb_gc_host *h);                     /* comp, centres; returns the passes */
void sb_gc_host_learn(sb_gc_host *h);                     /* gmm from mask and comp */
void sb_gc_host_assign(sb_gc_host *h);                    /* comp from gmm */
void sb_gc_host_nlinks(sb_gc_host *h, sb_gc_graph *g);    /* beta and n-links */
void sb_gc_host_tlinks(sb_gc_host *h, sb_gc_graph *g);    /* term from mask and gmm */
long long sb_gc_host_update_mask(sb_gc_host *h, const uint8_t *fg);   /* returns the pixels moved */

#endif
