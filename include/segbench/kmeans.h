/* kmeans.h - k-means colour quantization, bit-exact on every backend.
 *
 * Input: an 8-bit RGB image of n pixels.  Output: a label in 0..k-1 per
 * pixel, k centres, and the number of passes made.
 *
 * The loop (every variant, CPU or GPU, implements exactly this):
 *
 *     centres = init(image, params)                          (in prepare)
 *     for pass = 1 .. max_iter:
 *         label every pixel with its nearest centre          (assignment)
 *         changed = pixels whose label differs from the last pass
 *                   (every pixel counts as changed on pass 1)
 *         centres = mean colour of each cluster's pixels      (update)
 *         if not fixed and changed == 0: stop
 *     iterations = the passes made
 *
 * A pass with no change is a fixed point (same labels give the same sums,
 * so the same centres), which is why the GPU variants may run a few passes
 * ahead of the convergence test without changing the result.
 *
 * Why every variant agrees bit for bit -- the rules:
 *   - Centres are fixed point: SB_KMEANS_UNIT (4) units per colour level,
 *     so a centre channel is an integer in 0..1020.
 *   - Update: each cluster's channel sums and pixel count are integers
 *     (order of accumulation cannot matter); the new centre channel is
 *     (4 * sum + count / 2) / count in integer division: the mean rounded
 *     to the nearest quarter level, halves up.  An empty cluster keeps its
 *     previous centre.
 *   - Assignment: the nearest centre by squared distance, computed as
 *     score(c) = |C|^2 - 2 P.C  with P = 4p (which is |P - C|^2 - |P|^2,
 *     the same order).  Every operand and every partial sum is an integer
 *     below 2^24 in magnitude (|C|^2 <= 3 * 1020^2 = 3121200, each -2 P_i
 *     C_i >= -2080800), so the float arithmetic below is exact on any
 *     IEEE machine, with or without FMA contraction, in any order.
 *     Ties go to the lowest centre index (strict < while scanning up).
 *   - Init "spread" (the source's): centre i = 255 i / k on all three
 *     channels, rounded to the nearest quarter level.  Init "kmeans++":
 *     the first centre is a pixel drawn with SplitMix64(seed); each next
 *     one a pixel drawn with probability proportional to its integer
 *     squared distance to the nearest centre so far; if every pixel
 *     already sits on a centre, the remaining centres repeat the first
 *     (they stay empty).  Init runs on the host for every variant, for
 *     each frame (at upload, or at run where a variant has no upload).
 *   - A warm start (params.start given: a video's frame beginning from
 *     the result of a frame before it, measure/stream.h) replaces the
 *     init rule: the centres are the start's, as they are.
 */
#ifndef SEGBENCH_KMEANS_H
#define SEGBENCH_KMEANS_H

#include <stddef.h>
#include <stdint.h>

#include "segbench/error.h"
#include "segbench/hd.h"
#include "segbench/image.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SB_KMEANS_STAGE_CONVERGE = 0, SB_KMEANS_STAGE_FIXED10 = 1 };

#define SB_KMEANS_MAX_K    256
#define SB_KMEANS_UNIT     4          /* centre units per colour level */
#define SB_KMEANS_MAX_ITER 100000

typedef enum sb_kmeans_init { SB_KMEANS_INIT_SPREAD = 0, SB_KMEANS_INIT_PLUSPLUS = 1 } sb_kmeans_init;

/* Where a warm frame begins: a result's centres (given), or, not given,
 * the init rule -- one record a frame in flight, read at each frame. */
typedef struct sb_kmeans_start {
    int given;
    int32_t centres[SB_KMEANS_MAX_K][3];
} sb_kmeans_start;

typedef struct sb_kmeans_params {
    int k;                  /* 1..256 */
    int init;               /* sb_kmeans_init */
    uint64_t seed;          /* kmeans++ only */
    int max_iter;           /* 1..SB_KMEANS_MAX_ITER */
    int fixed;              /* 1: always make max_iter passes (benchmarking) */
    const sb_kmeans_start *start;   /* a warm start, or NULL: the init rule (cold) */
} sb_kmeans_params;

typedef struct sb_kmeans_out {
    int width, height, k;
    uint8_t *labels;                            /* width * height, rows packed */
    int32_t centres[SB_KMEANS_MAX_K][3];        /* R, G, B in quarter levels */
    int iterations;
} sb_kmeans_out;

/* Per-cluster integer sums: R, G, B and the pixel count. */
typedef uint64_t sb_kmeans_sums[4];

/* A centre as the assignment uses it (16 bytes, a float4 on the GPU). */
typedef struct sb_kmeans_prepped {
    float r, g, b;          /* C, in quarter levels */
    float cc;               /* |C|^2 */
} sb_kmeans_prepped;

SB_HD sb_kmeans_prepped sb_kmeans_prep(const int32_t c[3])
{
    sb_kmeans_prepped p;
    p.r = (float)c[0];
    p.g = (float)c[1];
    p.b = (float)c[2];
    p.cc = (float)(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    return p;
}

/* score = |C|^2 - 2 P.C for a pixel given as m = -2 P = -8 p per channel
 * (see the rules above: exact). */
SB_HD float sb_kmeans_score(sb_kmeans_prepped c, float mr, float mg, float mb)
{
    return c.cc + mr * c.r + mg * c.g + mb * c.b;
}

SB_HD float sb_kmeans_pixel_weight(unsigned v) { return -2.0f * SB_KMEANS_UNIT * (float)v; }

/* The update rule for one channel of a non-empty cluster. */
SB_HD int32_t sb_kmeans_mean(uint64_t sum, uint64_t count)
{
    return (int32_t)((SB_KMEANS_UNIT * sum + count / 2) / count);
}

/* A centre channel as an 8-bit colour (nearest level, halves up). */
SB_HD uint8_t sb_kmeans_level(int32_t c) { return (uint8_t)((c + SB_KMEANS_UNIT / 2) / SB_KMEANS_UNIT); }

/* ---- host building blocks (impl_cpu/kmeans.c), shared by every variant ---- */

/* Check parameters; the message names the bad one. */
sb_status sb_kmeans_check_params(const sb_kmeans_params *p, sb_error *err);

/* The initial centres: a given warm start's, else the init rule's (above). */
sb_status sb_kmeans_initial(const sb_image *rgb, const sb_kmeans_params *p, int32_t centres[][3], sb_error *err);


/* Only the sums of rows [y0, y1) for given labels (cuda-seed's host half). */
void sb_kmeans_accumulate_rows(const sb_image *rgb, int y0, int y1, const uint8_t *labels, sb_kmeans_sums *sums);

/* The update rule: centres from sums; empty clusters keep their centre. */
void sb_kmeans_update(int k, const sb_kmeans_sums *sums, int32_t centres[][3]);

/* One pass over the whole image: labels written, sums filled (they arrive
 * zeroed), *changed set (its value only matters as zero / not zero). */
typedef sb_status (*sb_kmeans_pass_fn)(void *ctx, const sb_kmeans_prepped *centres, int first_pass,
                                       sb_kmeans_sums *sums, long *changed, sb_error *err);

/* The loop above, driven from the host: every CPU variant and cuda-seed.
 * out->centres start as `initial`; out->iterations is set. */
sb_status sb_kmeans_host_loop(const sb_kmeans_params *p, const int32_t initial[][3], sb_kmeans_pass_fn pass,
                              void *ctx, sb_kmeans_out *out, sb_error *err);


/* The serial reference on a whole image (also used for gallery pictures). */
sb_status sb_kmeans_serial(const sb_image *rgb, const sb_kmeans_params *p, sb_kmeans_out *out, sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
