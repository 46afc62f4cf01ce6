/* meanshift.h - mean-shift segmentation (Comaniciu & Meer 2002, after a
 * course report's CPU, pthread and CUDA re-implementation), exact on every
 * backend.
 *
 * A pipeline of three steps, each a benchmarked algorithm of its own, and
 * the pipeline itself:
 *   meanshift-filter  RGB -> LUV -> every pixel's mode       (packed LUV)
 *   meanshift-flood   filtered LUV -> regions of similar neighbours
 *   meanshift-merge   filtered LUV + flood regions -> fused, pruned regions
 *   meanshift         RGB -> region labels 0..count-1 (all three)
 *
 * What the source leaves open, pinned down (every variant does exactly
 * this, so every variant agrees bit for bit):
 *
 * Colour.  sRGB is linearised through slic.h's table, then XYZ (D65) and
 *   CIELUV with correctly rounded float operations only (exact.h's add,
 *   multiply, division and cube root).  Then one byte a channel, packed in a uint32 as L | u << 8 | v << 16:
 *       L = round(L*)                        0..100
 *       u = round((u* + 134) * 255 / 354)    OpenCV's 8-bit u
 *       v = round((v* + 140) * 255 / 262)    OpenCV's 8-bit v
 *   The source read OpenCV's 8-bit LUV and worked in L8 * 100 / 255 (= L*)
 *   and u8 - 128, v8 - 128; the offsets cancel in every difference, so its
 *   distances are these, with L rounded once instead of twice.  Everything
 *   after the conversion is integer arithmetic.
 * Distance.  d2(a, b) = dL^2 + du^2 + dv^2, squared, in integers.  "Within
 *   range" is d2 <= range^2 everywhere.  (The source's filter compared the
 *   squared distance with color_range = 100 using <=, its union-find with <;
 *   range 10 here is its 100.)
 * Filter, for each pixel (x, y): centre (cx, cy) = (x, y), mode m = its
 *   colour; then up to max_iter times:
 *       window: the square [cx - r, cx + r] x [cy - r, cy + r] clipped to
 *               the image (no padding, no wrap)
 *       over the window's pixels q with d2(colour(q), m) <= range^2:
 *               n, sum(qx - cx), sum(qy - cy), sum L, sum u, sum v
 *       n == 0: stop (the source divided by zero)
 *       cx += round(sum dx / n), cy += round(sum dy / n),
 *       m = (round(sum L / n), ...), rounding halves up (sb_ms_round_div)
 *       shift2 = dcx^2 + dcy^2 + d2(new m, old m); stop when shift2 <= 3
 *               (the source's test)
 *   and the output is m.  The window moves with the mean, as in Comaniciu
 *   and Meer; the source's kernel left it at the pixel, so its spatial
 *   average never moved anything.
 * Joining (flood and fusion) uses half the range: d2 <= floor(range^2 / 4)
 *   (sb_ms_join2).  Converged modes of one cluster lie well within that;
 *   with the full range, joins chain across smooth gradients (on the
 *   fruits photo the whole bowl became one region: 39 regions in all,
 *   against 103 with half).
 * Flood.  A pixel and its left (upper) neighbour are joined when their
 *   filtered colours are within the join range; a region is a connected set of
 *   joined pixels, labelled by its smallest pixel index y * width + x
 *   (the label every order of joining arrives at).  4-neighbours only: the
 *   source's flood looked "left and up within a radius", which lets a region
 *   leak across a thin line of another colour.
 * Merge, given the flood labels (each in 0..W*H-1):
 *   1. every flood region's mean filtered colour (integer sums, rounded);
 *   2. fusion: 4-neighbours are joined when they share a flood region or
 *      their regions' means are within the join range; components as in flood;
 *   3. pruning, in rounds: every region under min_area pixels that has a
 *      neighbour points to its most similar 4-adjacent region (least d2 of
 *      the mean colours, ties: the smaller label); of two that point at
 *      each other the smaller label points to itself (no longer cycle can
 *      form); pointers are followed to the end, each group takes its
 *      smallest pixel index and the means are recomputed; rounds repeat
 *      until no region merges (at most SB_MS_MAX_PRUNE);
 *   4. regions are numbered 0, 1, ... in the order of their smallest pixel.
 * The labels out of flood and merge depend only on the partition, so they
 * are compared as partitions (sb_ms_same_partition) and in fact are equal.
 */
#ifndef SEGBENCH_MEANSHIFT_H
#define SEGBENCH_MEANSHIFT_H

#include <stdint.h>

#include "segbench/bands.h"
#include "segbench/error.h"
#include "segbench/exact.h"
#include "segbench/image.h"
#include "segbench/slic.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SB_MS_FILTER = 0, SB_MS_FLOOD = 1, SB_MS_MERGE = 2, SB_MS_PIPELINE = 3 };

#define SB_MS_MAX_RADIUS   64     /* window side up to 129: sums stay far below 2^31 */
#define SB_MS_MAX_RANGE    442    /* above the largest LUV distance: everything joins */
#define SB_MS_MAX_ITER     100
#define SB_MS_SHIFT_STOP   3      /* stop when shift^2 <= this (the source's) */
#define SB_MS_MAX_PRUNE    32     /* pruning rounds at most */

typedef struct sb_ms_params {
    int radius;          /* spatial window radius r (16) */
    int range;           /* colour range (10: the source's 100, squared) */
    int max_iter;        /* filter iterations at most (5, the source's) */
    int min_area;        /* merge: regions smaller than this join a neighbour (20) */
    /* merge only: the flood step's labels, W*H, each in 0..W*H-1 (set by
     * the harness from the reference flood; not a user option) */
    const int32_t *flood;
} sb_ms_params;

/* Filter output: the mode of every pixel, packed LUV (rows packed). */
typedef struct sb_ms_luv {
    int width, height;
    uint32_t *luv;
} sb_ms_luv;

/* Flood, merge and pipeline output. */
typedef struct sb_ms_regions {
    int width, height;
    int32_t *labels;     /* flood: smallest pixel index; merge: 0..count-1 */
    int count;           /* regions */
} sb_ms_regions;

/* ---- the integer rules, shared by host and device --------------------------- */

SB_HD uint32_t sb_ms_pack(unsigned L, unsigned u, unsigned v) { return L | u << 8 | v << 16; }

/* d2 of two packed colours. */
SB_HD int sb_ms_d2(uint32_t a, uint32_t b)
{
    int dl = (int)(a & 255u) - (int)(b & 255u);
    int du = (int)(a >> 8 & 255u) - (int)(b >> 8 & 255u);
    int dv = (int)(a >> 16 & 255u) - (int)(b >> 16 & 255u);
    return dl * dl + du * du + dv * dv;
}

/* round(s / n) for n > 0, halves up (floor((2s + n) / 2n)), for any sign of s. */
SB_HD int sb_ms_round_div(int s, int n)
{
    int a = 2 * s + n, b = 2 * n;
    return a >= 0 ? a / b : -((b - 1 - a) / b);
}

/* The sums of one window pass. */
typedef struct sb_ms_sums {
    int n, dx, dy, L, u, v;
} sb_ms_sums;

/* One filter step from the sums: moves (cx, cy, m); returns whether to go on. */
SB_HD int sb_ms_step(const sb_ms_sums *s, int *cx, int *cy, uint32_t *m)
{
    if (s->n == 0)
        return 0;
    int mx = sb_ms_round_div(s->dx, s->n), my = sb_ms_round_div(s->dy, s->n);
    uint32_t nm = sb_ms_pack((unsigned)sb_ms_round_div(s->L, s->n), (unsigned)sb_ms_round_div(s->u, s->n),
                             (unsigned)sb_ms_round_div(s->v, s->n));
    int shift2 = mx * mx + my * my + sb_ms_d2(nm, *m);
    *cx += mx;
    *cy += my;
    *m = nm;
    return shift2 > SB_MS_SHIFT_STOP;
}

/* round(v * scale + offset) clamped to a byte, from correctly rounded operations. */
SB_HD unsigned sb_ms_byte(float v, float scale, float offset)
{
    float q = floorf(sb_fadd(sb_fadd(sb_fmul(v, scale), offset), 0.5f));
    return q < 0.0f ? 0u : q > 255.0f ? 255u : (unsigned)q;
}

/* One RGB pixel to packed LUV.  `linear` is sb_slic_linear_table(). */
SB_HD uint32_t sb_ms_luv_of(const float *linear, unsigned r, unsigned g, unsigned b)
{
    float lr = linear[r], lg = linear[g], lb = linear[b];
    float X = sb_fadd(sb_fadd(sb_fmul(0.412453f, lr), sb_fmul(0.357580f, lg)), sb_fmul(0.180423f, lb));
    float Y = sb_fadd(sb_fadd(sb_fmul(0.212671f, lr), sb_fmul(0.715160f, lg)), sb_fmul(0.072169f, lb));
    float Z = sb_fadd(sb_fadd(sb_fmul(0.019334f, lr), sb_fmul(0.119193f, lg)), sb_fmul(0.950227f, lb));
    float L = Y > 0.008856f ? sb_fadd(sb_fmul(116.0f, sb_fcbrt(Y)), -16.0f) : sb_fmul(903.3f, Y);
    float d = sb_fadd(sb_fadd(X, sb_fmul(15.0f, Y)), sb_fmul(3.0f, Z));
    float u = 0.0f, v = 0.0f;
    if (d > 0.0f) {   /* black: u* = v* = 0 */
        float up = sb_fdiv(sb_fmul(4.0f, X), d), vp = sb_fdiv(sb_fmul(9.0f, Y), d);
        u = sb_fmul(sb_fmul(13.0f, L), sb_fadd(up, -0.19793943f));   /* D65 white u'n, v'n */
        v = sb_fmul(sb_fmul(13.0f, L), sb_fadd(vp, -0.46831096f));
    }
    return sb_ms_pack(sb_ms_byte(L, 1.0f, 0.0f), sb_ms_byte(u, 255.0f / 354.0f, 134.0f * 255.0f / 354.0f),
                      sb_ms_byte(v, 255.0f / 262.0f, 140.0f * 255.0f / 262.0f));
}

/* The squared distance under which flood and fusion join (see above). */
SB_HD int sb_ms_join2(int range) { return range * range / 4; }

/* The key that picks a small region's most similar neighbour: least d2, then smaller label. */
SB_HD uint64_t sb_ms_prune_key(int d2, int32_t label) { return (uint64_t)(uint32_t)d2 << 32 | (uint32_t)label; }

/* ---- host side (impl_cpu/meanshift*.c) ------------------------------------- */

sb_status sb_ms_check_params(const sb_ms_params *p, int step, sb_error *err);

/* Packed LUV back to sRGB bytes, for pictures only (plain float). */
void sb_ms_luv_to_rgb(uint32_t luv, uint8_t rgb[3]);

/* The serial reference of one step, on whole buffers (tests, the gallery,
 * the inputs of the steps after it).  `in` is RGB for FILTER and PIPELINE,
 * packed LUV (4 channels) for FLOOD and MERGE; out is sb_ms_luv for FILTER,
 * sb_ms_regions otherwise. */
sb_status sb_ms_serial(int step, const sb_image *in, const sb_ms_params *p, void *out, sb_error *err);


#ifdef __cplusplus
}
#endif
#endif
