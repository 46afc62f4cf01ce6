/* grabcut.h - GrabCut (Rother, Kolmogorov, Blake 2004, as OpenCV's grabCut
 * builds it), bit-exact on every backend.
 *
 * Input: an 8-bit RGB image and a rectangle.  Outside the rectangle is
 * background for certain (SB_GC_BGD); inside is probable foreground
 * (SB_GC_PR_FGD).  Output: the mask after `iterations` rounds of
 *
 *     assign  every pixel the most likely component of its side's GMM
 *     learn   each side's 5-component GMM from its pixels
 *     graph   t-links from the GMMs, n-links from colour differences
 *     cut     max-flow; inside the rectangle, the canonical cut's
 *             foreground becomes PR_FGD, the rest PR_BGD
 *
 * started by a two-sided k-means (5 clusters per side) and one learn --
 * or, warm, by an earlier frame's mask and mixtures (sb_gc_start).  In
 * converge mode the rounds stop once a cut moves almost no pixel
 * (sb_gc_settled).
 * The steps are benchmarked one by one (grabcut-kmeans, -gmm, -graph,
 * -maxflow) and as the whole loop (grabcut).
 *
 * Why every variant agrees bit for bit -- the rules:
 *   - k-means: kmeans.h's exact rules (integer sums, quarter-level
 *     centres, exact float scores), with each pixel choosing among its
 *     own side's 5 centres.  Start: the spread init (centre i = 255 i / 5
 *     on all channels; OpenCV draws kmeans++ centres at random), at most
 *     SB_GC_KMEANS_PASSES passes, stopping when no label changes.
 *   - GMM learning: per component, the pixel count, the 3 channel sums
 *     and the 6 distinct channel products are integers (uint64), so the
 *     order of accumulation cannot matter.  Weight, mean, covariance,
 *     determinant and inverse are then derived from them by one function
 *     (sb_gc_gmm_finish) in IEEE double: host and device run the same
 *     correctly rounded operations in the same order.
 *   - Every per-pixel double computation (component scores, t-links,
 *     n-links) uses only sb_dadd/sub/mul/div, correctly rounded and
 *     never fused (__dadd_rn ... on the device, -ffp-contract=off on the
 *     host), and this file's own exp and log built from them: libm and
 *     CUDA's exp are each accurate but not to the same bit, ours are the
 *     same function everywhere.
 *   - Scores work in the log domain: component k of a side scores
 *     s_k = log w_k - log(det_k) / 2 - (x - m_k)' S_k^-1 (x - m_k) / 2;
 *     a pixel's component is the first maximum; the side's energy is
 *     -log sum_k exp(s_k) (log-sum-exp about the maximum).  OpenCV
 *     compares and sums the same quantities exponentiated.
 *   - Capacities are integers: SB_GC_SCALE units per unit of energy,
 *     rounded half up; an energy is clamped to +-SB_GC_ENERGY_MAX first.
 *     So max-flow sees the same integer graph everywhere, and every
 *     max-flow variant returns the same flow and canonical cut (maxflow.h).
 */
#ifndef SEGBENCH_GRABCUT_H
#define SEGBENCH_GRABCUT_H

#include <math.h>
#include <stdint.h>

#include "segbench/error.h"
#include "segbench/exact.h"
#include "segbench/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Mask values (OpenCV's). */
enum { SB_GC_BGD = 0, SB_GC_FGD = 1, SB_GC_PR_BGD = 2, SB_GC_PR_FGD = 3 };
/* A mask value's side: 0 background, 1 foreground. */
#define SB_GC_SIDE(m) ((m) & 1)

#define SB_GC_K             5        /* GMM components (and k-means clusters) per side */
#define SB_GC_KMEANS_PASSES 10       /* OpenCV's kMeansItCount */
#define SB_GC_SCALE         1000.0   /* capacity units per unit of energy */
#define SB_GC_ENERGY_MAX    16384.0  /* |t-link energy| clamp: capacities stay below 2^25 */
#define SB_GC_MAX_ITER      100

/* One side's Gaussian mixture.  Empty components have weight 0 and are
 * never chosen. */
typedef struct sb_gc_component {
    uint64_t count;
    double weight, mean[3], cov[9], det, inv[9];
    double log_norm;      /* log weight - log(det) / 2, the score's constant */
} sb_gc_component;
typedef struct sb_gc_gmm {
    sb_gc_component c[SB_GC_K];
} sb_gc_gmm;

/* A warm start (a video's frame begun from an earlier frame's result,
 * `segbench stream --warm`): the earlier result's mask as this frame's
 * first labelling (sb_gc_warm_mask) and its mixtures as the first
 * assignment's, in place of the k-means init and its learn.  The
 * rectangle is the same in both frames.  The mask is the earlier result's
 * own (the harness keeps it while the frame runs). */
typedef struct sb_gc_start {
    int given;
    int width, height;                /* the earlier frame's: this frame's too, or refused */
    const uint8_t *mask;              /* width * height, the earlier frame's */
    sb_gc_gmm gmm[2];
} sb_gc_start;

typedef struct sb_grabcut_params {
    int rect[4];          /* x, y, w, h of the object's rectangle; clipped to the image */
    int iterations;       /* assign-learn-cut rounds, 1..SB_GC_MAX_ITER (5) */
    int converge;         /* 1: stop after an iteration whose cut moved at most 0.1 % of the
                             rectangle's pixels to the other side (sb_gc_settled), `iterations` at most */
    const sb_gc_start *start;   /* a warm start, or NULL: the k-means init (cold) */
    double gamma;         /* n-link weight (50) */
    double lambda;        /* hard-constraint weight (9 gamma = 450) */
    /* Pipeline steps: the reference output of the step before (set by
     * the harness through the step's feed, NULL otherwise; not owned). */
    const void *upstream;
    /* grabcut-maxflow, tests only (NULL in every benchmark): t-links for
     * upstream's n-links whose cut a warm-starting solver makes first, so
     * that upstream's cut starts from a deliberately stale flow. */
    const int32_t *stale_term;
} sb_grabcut_params;

/* A side's integer sums: per component the count, sums of R, G, B, and
 * of RR, RG, RB, GG, GB, BB. */
typedef uint64_t sb_gc_sums[SB_GC_K][10];

/* ---- outputs of the steps ---- */

typedef struct sb_gc_kmeans_out {        /* grabcut-kmeans */
    int width, height;
    uint8_t *comp;                       /* cluster 0..4 of each pixel, in its side */
    int32_t centres[2][SB_GC_K][3];      /* [side][cluster], quarter levels */
    int passes;
} sb_gc_kmeans_out;

typedef struct sb_gc_gmm_out {           /* grabcut-gmm */
    int width, height;
    uint8_t *comp;                       /* the component each pixel was assigned */
    sb_gc_gmm gmm[2];                    /* learned from those: [background, foreground] */
} sb_gc_gmm_out;

/* The graph of one cut: a node per pixel, 8-neighbour n-links, and a net
 * t-link per pixel: term > 0 is capacity from the source (foreground),
 * term < 0 capacity to the sink (background).  OpenCV's graph gives each
 * pixel both; only their difference affects the cut, so the common part
 * is dropped (and with it a constant from the flow value). */
enum { SB_GC_NLINKS = 4 };               /* E, SE, S, SW of each pixel (maxflow.h) */
typedef struct sb_gc_graph {
    int width, height;
    int32_t *term;                       /* width * height */
    int32_t *nlink[SB_GC_NLINKS];        /* planes; 0 where the neighbour is outside */
    double beta;
} sb_gc_graph;

typedef struct sb_gc_cut_out {           /* grabcut-maxflow */
    int width, height;
    uint8_t *fg;                         /* 1: cannot reach the sink in the residual graph */
    int64_t flow;
    int rounds, relabels;                /* push-relabel rounds and global relabels (0 for BK) */
} sb_gc_cut_out;

typedef struct sb_gc_out {               /* grabcut, the pipeline */
    int width, height;
    uint8_t *mask;                       /* SB_GC_* per pixel */
    sb_gc_gmm gmm[2];                    /* the mixtures the last cut's t-links came from */
    int iterations;                      /* made (fewer than asked in converge mode); flow etc. 0 past them */
    int64_t flow[SB_GC_MAX_ITER];        /* each iteration's max-flow value */
    int rounds[SB_GC_MAX_ITER], relabels[SB_GC_MAX_ITER];
} sb_gc_out;

/* ---- the per-pixel rules, shared by host and device (exact.h's arithmetic) --- */

/* Energy -> capacity units: clamp, scale, round half up. */
SB_HD int32_t sb_gc_quantize(double energy)
{
    if (energy > SB_GC_ENERGY_MAX)
        energy = SB_GC_ENERGY_MAX;
    if (energy < -SB_GC_ENERGY_MAX)
        energy = -SB_GC_ENERGY_MAX;
    double v = sb_dadd(sb_dmul(energy, SB_GC_SCALE), 0.5);
    int32_t q = (int32_t)v;              /* truncation toward zero ... */
    return (double)q > v ? q - 1 : q;    /* ... made floor */
}

/* A warm frame's first mask value of a pixel: outside the rectangle
 * certain background; inside, the side the earlier frame's mask gave it,
 * as probable. */
SB_HD uint8_t sb_gc_warm_mask(int inside, uint8_t before)
{
    return !inside ? SB_GC_BGD : SB_GC_SIDE(before) ? SB_GC_PR_FGD : SB_GC_PR_BGD;
}

/* Converge mode: an iteration whose cut moved `moved` pixels to the other
 * side settles the run when that is at most 0.1 % of the rectangle's
 * pixels.  A cut that moves none is the strict rule, and is reached too,
 * one confirming iteration later: on the default scene at 1920x1080 a
 * cold run's second cut still moves 0.10-0.22 % (its third none), a warm
 * run's second 0.004-0.02 %. */
enum { SB_GC_SETTLED_PER_MILLE = 1 };
SB_HD int sb_gc_settled(long long moved, long long rect_pixels)
{
    return moved * 1000 <= rect_pixels * SB_GC_SETTLED_PER_MILLE;
}

/* The k-means start: centre k of either side is grey level 255 k / K, in
 * quarter levels (kmeans.h's SB_KMEANS_UNIT = 4), rounded. */
SB_HD int32_t sb_gc_kmeans_start(int k) { return (4 * 255 * k + SB_GC_K / 2) / SB_GC_K; }

/* (x - m)' S^-1 (x - m) for a pixel, in a fixed order. */
SB_HD double sb_gc_mahalanobis(const sb_gc_component *c, const uint8_t *px)
{
    double d0 = sb_dsub((double)px[0], c->mean[0]);
    double d1 = sb_dsub((double)px[1], c->mean[1]);
    double d2 = sb_dsub((double)px[2], c->mean[2]);
    const double *v = c->inv;
    double r0 = sb_dadd(sb_dadd(sb_dmul(d0, v[0]), sb_dmul(d1, v[3])), sb_dmul(d2, v[6]));
    double r1 = sb_dadd(sb_dadd(sb_dmul(d0, v[1]), sb_dmul(d1, v[4])), sb_dmul(d2, v[7]));
    double r2 = sb_dadd(sb_dadd(sb_dmul(d0, v[2]), sb_dmul(d1, v[5])), sb_dmul(d2, v[8]));
    return sb_dadd(sb_dadd(sb_dmul(d0, r0), sb_dmul(d1, r1)), sb_dmul(d2, r2));
}

/* Score every component of a side for a pixel; returns the first best
 * component (or -1 if the side has no pixels) and, through energy, the
 * side's -log likelihood: -(best + log sum_k exp(s_k - best)). */
SB_HD int sb_gc_score(const sb_gc_gmm *g, const uint8_t *px, double *energy)
{
    double s[SB_GC_K];
    int best = -1;
    for (int k = 0; k < SB_GC_K; k++) {
        if (g->c[k].count == 0)
            continue;
        s[k] = sb_dsub(g->c[k].log_norm, sb_dmul(0.5, sb_gc_mahalanobis(&g->c[k], px)));
        if (best < 0 || s[k] > s[best])
            best = k;
    }
    if (best < 0) {
        *energy = SB_GC_ENERGY_MAX;      /* an empty side explains nothing */
        return -1;
    }
    double sum = 0.0;
    for (int k = 0; k < SB_GC_K; k++)
        if (g->c[k].count != 0)
            sum = sb_dadd(sum, sb_dexp(sb_dsub(s[k], s[best])));
    *energy = -sb_dadd(s[best], sb_dlog(sum));
    return best;
}

/* One side's GMM from its integer sums (OpenCV's endLearning): weight
 * n / total, mean, covariance E[xx'] - mm'; a covariance whose determinant
 * is <= DBL_EPSILON gets 0.01 added to its diagonal; then the inverse by
 * cofactors and log_norm. */
SB_HD void sb_gc_gmm_finish(const uint64_t sums[SB_GC_K][10], sb_gc_gmm *g)
{
    uint64_t total = 0;
    for (int k = 0; k < SB_GC_K; k++)
        total += sums[k][0];
    for (int k = 0; k < SB_GC_K; k++) {
        sb_gc_component *c = &g->c[k];
        const uint64_t *s = sums[k];
        for (int i = 0; i < 9; i++)
            c->cov[i] = c->inv[i] = 0.0;
        c->count = s[0];
        c->mean[0] = c->mean[1] = c->mean[2] = 0.0;
        c->weight = c->det = c->log_norm = 0.0;
        if (s[0] == 0)
            continue;
        double n = (double)s[0];
        c->weight = sb_ddiv(n, (double)total);
        for (int i = 0; i < 3; i++)
            c->mean[i] = sb_ddiv((double)s[1 + i], n);
        /* products RR RG RB GG GB BB at s[4..9]; entry (i, j) with i <= j
         * sits at 4 + (the pairs before row i) + (j - i) */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                int lo = i < j ? i : j, hi = i < j ? j : i;
                int at = 4 + (lo == 0 ? 0 : lo == 1 ? 3 : 5) + (hi - lo);
                c->cov[3 * i + j] = sb_dsub(sb_ddiv((double)s[at], n), sb_dmul(c->mean[i], c->mean[j]));
            }
        const double *a = c->cov;
        double co0 = sb_dsub(sb_dmul(a[4], a[8]), sb_dmul(a[5], a[7]));
        double co1 = sb_dsub(sb_dmul(a[5], a[6]), sb_dmul(a[3], a[8]));
        double co2 = sb_dsub(sb_dmul(a[3], a[7]), sb_dmul(a[4], a[6]));
        double det = sb_dadd(sb_dadd(sb_dmul(a[0], co0), sb_dmul(a[1], co1)), sb_dmul(a[2], co2));
        if (det <= 2.220446049250313e-16) {
            c->cov[0] = sb_dadd(c->cov[0], 0.01);
            c->cov[4] = sb_dadd(c->cov[4], 0.01);
            c->cov[8] = sb_dadd(c->cov[8], 0.01);
            co0 = sb_dsub(sb_dmul(a[4], a[8]), sb_dmul(a[5], a[7]));
            co1 = sb_dsub(sb_dmul(a[5], a[6]), sb_dmul(a[3], a[8]));
            co2 = sb_dsub(sb_dmul(a[3], a[7]), sb_dmul(a[4], a[6]));
            det = sb_dadd(sb_dadd(sb_dmul(a[0], co0), sb_dmul(a[1], co1)), sb_dmul(a[2], co2));
        }
        c->det = det;
        /* the inverse: the adjugate (transposed cofactors) over det */
        double *v = c->inv;
        v[0] = sb_ddiv(co0, det);
        v[3] = sb_ddiv(co1, det);
        v[6] = sb_ddiv(co2, det);
        v[1] = sb_ddiv(sb_dsub(sb_dmul(a[2], a[7]), sb_dmul(a[1], a[8])), det);
        v[4] = sb_ddiv(sb_dsub(sb_dmul(a[0], a[8]), sb_dmul(a[2], a[6])), det);
        v[7] = sb_ddiv(sb_dsub(sb_dmul(a[1], a[6]), sb_dmul(a[0], a[7])), det);
        v[2] = sb_ddiv(sb_dsub(sb_dmul(a[1], a[5]), sb_dmul(a[2], a[4])), det);
        v[5] = sb_ddiv(sb_dsub(sb_dmul(a[2], a[3]), sb_dmul(a[0], a[5])), det);
        v[8] = sb_ddiv(sb_dsub(sb_dmul(a[0], a[4]), sb_dmul(a[1], a[3])), det);
        c->log_norm = sb_dsub(sb_dlog(c->weight), sb_dmul(0.5, sb_dlog(det)));
    }
}

/* Add pixel px to component k's sums. */
SB_HD void sb_gc_sums_add(uint64_t s[10], const uint8_t *px)
{
    uint64_t r = px[0], g = px[1], b = px[2];
    s[0] += 1;
    s[1] += r;
    s[2] += g;
    s[3] += b;
    s[4] += r * r;
    s[5] += r * g;
    s[6] += r * b;
    s[7] += g * g;
    s[8] += g * b;
    s[9] += b * b;
}

/* The n-link weight of a pixel pair: gamma exp(-beta |dc|^2) / distance,
 * in capacity units (diagonal: distance sqrt 2). */
SB_HD int32_t sb_gc_nlink(double gamma_over_dist, double beta, int d2)
{
    return sb_gc_quantize(sb_dmul(gamma_over_dist, sb_dexp(-sb_dmul(beta, (double)d2))));
}

/* beta from the sum of squared differences over all 8-neighbour pairs
 * (each pair once) and their count: 1 / (2 mean), or 0 for a flat image. */
SB_HD double sb_gc_beta(uint64_t sum_d2, uint64_t pairs)
{
    if (sum_d2 == 0 || pairs == 0)
        return 0.0;
    return sb_ddiv(1.0, sb_dmul(2.0, sb_ddiv((double)sum_d2, (double)pairs)));
}

/* The net t-link of a pixel from its mask value and the two sides'
 * energies (-log likelihoods): fromSource = E_bg, toSink = E_fg for
 * probable pixels, lambda for certain ones.  Returns q(fromSource) -
 * q(toSink). */
SB_HD int32_t sb_gc_term(int mask, double e_bg, double e_fg, double lambda)
{
    if (mask == SB_GC_BGD)
        return -sb_gc_quantize(lambda);
    if (mask == SB_GC_FGD)
        return sb_gc_quantize(lambda);
    return sb_gc_quantize(e_bg) - sb_gc_quantize(e_fg);
}

/* ---- host building blocks (impl_cpu/grabcut*.c) ---- */

/* Check parameters against an image: the message names the bad one.  The
 * rectangle is clipped to the image; one with no pixel inside is an error. */
sb_status sb_gc_check_params(const sb_grabcut_params *p, int width, int height, sb_error *err);
/* The clipped rectangle (x0, y0, x1, y1), x1 and y1 exclusive. */
void sb_gc_rect_clip(const sb_grabcut_params *p, int width, int height, int r[4]);
/* The initial mask: PR_FGD inside the rectangle, BGD outside. */
void sb_gc_mask_init(const sb_grabcut_params *p, int width, int height, uint8_t *mask);
/* The serial reference of the whole pipeline (out's mask allocated by the
 * caller, width * height). */
sb_status sb_gc_serial(const sb_image *rgb, const sb_grabcut_params *p, sb_gc_out *out, sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
