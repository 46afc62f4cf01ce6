/* gc_device.cuh - GrabCut on the device: the state every CUDA variant
 * keeps and the per-pixel steps (gc_device.cu).  The max-flow solver is
 * what a rung supplies (a gc_cut: 1_global.cu, 3_tiles.cu), with its k-means
 * and GMM sums (a gc_sums).
 * The arithmetic is grabcut.h's and maxflow.h's, the same functions the
 * host runs, so results are equal to the bit. */
#ifndef SEGBENCH_GC_DEVICE_CUH
#define SEGBENCH_GC_DEVICE_CUH

#include "../cuda_check.cuh"

#include "segbench/grabcut.h"
#include "segbench/kmeans.h"
#include "segbench/maxflow.h"
#include "segbench/variant.h"

enum gc_dev_step { GC_KMEANS, GC_GMM, GC_GRAPH, GC_MAXFLOW, GC_PIPELINE };

struct gc_dev;

/* A rung's k-means pass and GMM moment sums, each enqueued on d->stream:
 * a block's totals gathered in shared memory first (gc_block_sums, the
 * root's), every pixel adding straight to the global totals
 * (grabcut-models/2_atomics.cu), or a warp's first (gc_warp_sums,
 * grabcut-models/3_warpsums.cuh). */
struct gc_sums {
    void (*kmeans_pass)(gc_dev *d);
    void (*learn_sums)(gc_dev *d);
};

/* How a rung cuts: the max-flow solver it supplies.  solve() cuts d's
 * graph (d->term, d->nlink) into d->fg with the residual buffers gc_dev
 * owns (d->r, d->sink, d->excess, d->h, d->inflow) and writes the flow,
 * rounds and relabels into d->stats at iteration `it`. */
struct gc_cut {
    sb_status (*prepare)(gc_dev *d, sb_error *err);           /* once, after the buffers exist */
    sb_status (*solve)(gc_dev *d, int it, sb_error *err);     /* enqueue one cut */
    void (*release)(gc_dev *d);                               /* frees d->cut_state */
    int warm;                          /* cuts after a run's first start from the last one's flow */
};

/* What the device writes for the host to fetch. */
struct gc_dev_stats {
    long long flow[SB_GC_MAX_ITER];
    int rounds[SB_GC_MAX_ITER], relabels[SB_GC_MAX_ITER];
    int passes;
};

/* Counters the steps use between kernels (device memory, zeroed as needed). */
struct gc_dev_scratch {
    unsigned long long ksums[2 * SB_GC_K][4];     /* k-means: R, G, B, count */
    unsigned long long gsums[2][SB_GC_K][10];     /* GMM moments */
    unsigned long long dsum;                      /* beta: squared differences */
    unsigned long long changed;                   /* k-means: labels changed this pass */
    unsigned long long moved;                     /* converge mode: pixels the last cut moved */
    int kdone;                                    /* k-means converged */
    int32_t centres[2][SB_GC_K][3];
    sb_gc_gmm gmm[2];
    int counter[3];                               /* max-flow: rotating grid-wide counters */
    long long flow;
};

struct gc_dev {
    const char *who;
    int step;
    const gc_cut *cut;                 /* the rung's max-flow solver */
    const gc_sums *sums;               /* the rung's k-means and GMM sums */
    int width, height;
    long n;
    cudaStream_t stream;
    sb_grabcut_params p;
    int rect[4];
    const sb_image *host_in;           /* the frame gc_dev_upload copies */
    void *out;                         /* the harness's output */
    /* device buffers */
    uint8_t *rgb, *mask, *comp, *comp0, *fg;   /* comp0: grabcut-gmm's input clusters */
    uint8_t *before;                   /* the pipeline's: a warm start's mask (sb_gc_start) */
    int32_t *term, *nlink[SB_GC_NLINKS];
    int32_t *r, *sink, *excess, *h[2], *inflow;
    int32_t *test_term[2];             /* grabcut-maxflow given stale_term: the stale and the true t-links */
    gc_dev_scratch *s;
    gc_dev_stats *stats;               /* device */
    gc_dev_stats *stats_host;          /* pinned */
    void *cut_state;                   /* the solver's own, from its prepare() */
    long long rect_pixels;             /* converge mode's denominator (sb_gc_settled) */
    int iterations;                    /* the pipeline's last run: the iterations made */
};

/* Launch geometry of the per-pixel kernels: a thread a pixel. */
enum { GC_BLOCK = 256 };
static inline unsigned gc_blocks(const gc_dev *d) { return sb_div_up((unsigned long long)d->n, GC_BLOCK); }

/* The nearest of a side's SB_GC_K prepared centres to an RGB pixel
 * (kmeans.h's score; the first of equals), for the k-means passes. */
__device__ __forceinline__ int gc_kmeans_nearest(const sb_kmeans_prepped *c, const uint8_t *px)
{
    float mr = sb_kmeans_pixel_weight(px[0]), mg = sb_kmeans_pixel_weight(px[1]), mb = sb_kmeans_pixel_weight(px[2]);
    int best = 0;
    float best_score = sb_kmeans_score(c[0], mr, mg, mb);
    for (int k = 1; k < SB_GC_K; k++) {
        float sc = sb_kmeans_score(c[k], mr, mg, mb);
        if (sc < best_score) {
            best_score = sc;
            best = k;
        }
    }
    return best;
}

/* The sums every rung keeps unless its idea changes them: cuda-global's,
 * a block's totals gathered in shared memory first (gc_device.cu). */
extern const gc_sums gc_block_sums;

/* gc_device.cu */
int gc_dev_cuts(const gc_dev *d);      /* how many cuts a run makes (at most, in converge mode) */
sb_status gc_dev_open(gc_dev **out, int step, const gc_cut *cut, const gc_sums *sums, const sb_image *in,
                      const void *params, void *output, const sb_exec *exec, sb_error *err);
void gc_dev_close(gc_dev *d);
sb_status gc_dev_upload(gc_dev *d, sb_error *err);
sb_status gc_dev_run(gc_dev *d, sb_error *err);
sb_status gc_dev_fetch(gc_dev *d, sb_error *err);

/* A rung's five ops for one step, around gc_dev, its cut and its sums. */
#define GC_CUDA_OPS(prefix, step, cut, sums)                                                            \
    static sb_status prefix##_prepare(void **state, const sb_image *in, const void *params, void *output, \
                                      const sb_exec *exec, sb_error *err)                               \
    {                                                                                                   \
        return gc_dev_open((gc_dev **)state, step, &cut, &sums, in, params, output, exec, err);         \
    }                                                                                                   \
    static sb_status prefix##_upload(void *s, sb_error *err) { return gc_dev_upload((gc_dev *)s, err); } \
    static sb_status prefix##_run(void *s, sb_error *err) { return gc_dev_run((gc_dev *)s, err); }      \
    static sb_status prefix##_fetch(void *s, sb_error *err) { return gc_dev_fetch((gc_dev *)s, err); }  \
    static void prefix##_release(void *s) { gc_dev_close((gc_dev *)s); }

#endif
