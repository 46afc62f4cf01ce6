/* slic.h - SLIC superpixels (gSLICr style), bit-exact on every backend.
 *
 * Input: an 8-bit RGB image (R, G, B in that order: the PNG loader's
 * order, never BGR).  Output: a label per pixel, the centres after the
 * last update, and the number of superpixels.
 *
 * The algorithm (every variant, CPU or GPU, implements exactly this):
 *
 *     S       = params.size, or the least S with S^2 * segments >= W*H
 *     grid    = ceil(W/S) x ceil(H/S) cells, one centre each
 *     colour  = convert(pixel)                      (fixed point, below)
 *     centre  = the cell's middle, clamped inside the image, with the
 *               colour of the pixel there
 *     repeat `iterations` times:
 *         label every pixel with the nearest of the 9 centres of the 3x3
 *             cells around its own cell (x / S, y / S)     (assignment)
 *         every centre with pixels = the mean of its pixels  (update)
 *         converge mode: stop after an update that left at most 1 % of
 *             the centres unsettled (moved by more than a pixel in x or y
 *             or one colour unit in a channel: SB_SLIC_SETTLED_*; a few
 *             centres in noise never settle, so not every one is asked)
 *     connectivity: full (regions.h: every label one connected piece),
 *         majority (the source's 5x5 filter, twice), or none
 *
 * Why every variant agrees bit for bit -- the rules:
 *   - Colour: sRGB is linearised through a 256-entry table (built once on
 *     the host, uploaded to the device), then XYZ and CIELAB are computed
 *     with the source's constants using only correctly rounded float
 *     operations (sb_fadd and sb_fmul below, __fadd_rn and
 *     __fmul_rn on the device, so nothing can be contracted into an FMA;
 *     no division, which is costly on the GPU); the cube root is Newton's
 *     method from a bit-pattern guess, built from the same operations.  The result is quantized to fixed point: 64 units per
 *     Lab (or RGB) unit, a and b offset by 128; 16384 units per XYZ unit.
 *     Each channel is a uint16.
 *   - Positions: a centre's x, y are in 1/16 pixel (SB_SLIC_XY_UNIT).
 *   - A warm start (params.start given: a video's frame beginning from
 *     the result of a frame before it, measure/stream.h) replaces the
 *     initial centres: the centres are the start's, as they are (their
 *     count must be the grid's).  The passes made are out.iterations:
 *     `iterations` unless converge mode stopped sooner.
 *   - Update: integer sums of x, y, the three channels and the count;
 *     the mean is (unit * sum + count / 2) / count (rounded, halves up).
 *     A centre with no pixels keeps its place and colour (the source reset
 *     it to (0,0), where it died).
 *   - Assignment: D = dc * cn + dxy * wxy, with dc = d0^2 + d1^2 + d2^2
 *     and dxy = dx^2 + dy^2 in float from exact differences (positions
 *     and colours are integers below 2^24, held exactly in floats), and
 *     cn, wxy float constants computed once on the host.  Every operation is correctly rounded and
 *     happens in the order written (sb_slic_distance), so the value is the
 *     same on CPU and GPU.  The source takes a square root of D; it is
 *     monotonic, so it is left out.  Candidates are scanned row by row
 *     (dy = -1..1, then dx = -1..1) with strict <: ties keep the first.
 *   - Constants: xy normaliser (1 / (1.4242 S))^2 times `weight`; colour
 *     normaliser Lab (15 / (1.7321 * 128))^2, XYZ (5 / 1.7321)^2, RGB
 *     (5 / (1.7321 * 255))^2 -- the source's -- each divided by the
 *     square of its fixed-point unit.
 */
#ifndef SEGBENCH_SLIC_H
#define SEGBENCH_SLIC_H

#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "segbench/bands.h"
#include "segbench/error.h"
#include "segbench/exact.h"
#include "segbench/image.h"
#include "segbench/regions.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SB_SLIC_STAGE_S16 = 0, SB_SLIC_STAGE_N1000 = 1, SB_SLIC_STAGE_N1000_MAJORITY = 2 };

typedef enum sb_slic_space { SB_SLIC_LAB = 0, SB_SLIC_XYZ = 1, SB_SLIC_RGB = 2 } sb_slic_space;
typedef enum sb_slic_connect {
    SB_SLIC_CONNECT_FULL = 0,      /* regions.h: components, small ones merged */
    SB_SLIC_CONNECT_MAJORITY = 1,  /* the source's 5x5 majority filter, twice */
    SB_SLIC_CONNECT_NONE = 2
} sb_slic_connect;

#define SB_SLIC_XY_UNIT        16      /* centre positions in 1/16 pixel */
#define SB_SLIC_MAX_ITER       1000
#define SB_SLIC_MERGE_DIVISOR  4       /* full connectivity: pieces under S^2/4 pixels merge (Achanta's) */
#define SB_SLIC_SETTLED_XY     SB_SLIC_XY_UNIT   /* converge mode: a centre has settled when it moved at most */
#define SB_SLIC_SETTLED_COLOUR 64                /* a pixel in x and y and one unit (64) in each channel; */
#define SB_SLIC_UNSETTLED_PCT  1                 /* the run stops when at most 1 % of the centres have not */

/* A centre: 16 bytes, read as one int4 on the GPU. */
typedef struct sb_slic_centre {
    int32_t x, y;          /* 1/16 pixel */
    uint16_t colour[3];    /* fixed point, as the pixels */
    uint16_t pad;          /* zero */
} sb_slic_centre;

/* Where a warm frame begins: a result's centres (given), or, not given,
 * the grid's initial centres -- one record a frame in flight, read at
 * each frame.  The centres are the earlier result's own (the harness
 * keeps it while the frame runs). */
typedef struct sb_slic_start {
    int given;
    int count;                      /* the centres' number: the grid's */
    const sb_slic_centre *centres;
} sb_slic_start;

typedef struct sb_slic_params {
    int segments;          /* wanted superpixels (no_segs); 0: use `size` */
    int size;              /* superpixel side S in pixels, when segments == 0 */
    int iterations;        /* assignment + update rounds (10) */
    float weight;          /* compactness weight (0.6) */
    int space;             /* sb_slic_space */
    int connectivity;      /* sb_slic_connect */
    int converge;          /* 1: stop after an update that left at most 1 % of the centres unsettled,
                              `iterations` at most */
    const sb_slic_start *start;   /* a warm start, or NULL: the grid's initial centres (cold) */
} sb_slic_params;

typedef struct sb_slic_out {
    int width, height;
    int32_t *labels;           /* width * height, rows packed */
    uint16_t *labels16;        /* the same in 16 bits, in place of labels (NULL there), from a
                                  variant that writes the narrow output (SB_NARROW); only
                                  where every label fits (at most 65,536 superpixels) */
    int centre_count;          /* grid_w * grid_h */
    sb_slic_centre *centres;   /* after the last update */
    int superpixels;           /* distinct labels (full: labels are 0..superpixels-1) */
    int iterations;            /* the passes made (assignment + update) */
} sb_slic_out;

/* Everything derived from the parameters and the image size. */
typedef struct sb_slic_geometry {
    int width, height;
    int S;                     /* superpixel side */
    int grid_w, grid_h;        /* cells */
    int centres;
    float cn, wxy;             /* the distance's constants (fixed-point units) */
    int min_piece;             /* full connectivity: pieces below this many pixels merge */
} sb_slic_geometry;

/* Per-centre integer sums of one update: x, y, the 3 channels, count. */
typedef uint64_t sb_slic_sums[6];

/* ---- the per-pixel rules, shared by host and device (exact.h's arithmetic) --- */

/* CIELAB's f(t) with the source's epsilon and kappa. */
SB_HD float sb_slic_lab_f(float t)
{
    return t > 0.008856f ? sb_fcbrt(t) : sb_fmul(sb_fadd(sb_fmul(903.3f, t), 16.0f), 1.0f / 116.0f);
}

/* floor(v * scale + offset + 0.5), clamped to a uint16. */
SB_HD uint16_t sb_slic_quantize(float v, float scale, float offset)
{
    float q = floorf(sb_fadd(sb_fadd(sb_fmul(v, scale), offset), 0.5f));
    return (uint16_t)(q < 0.0f ? 0.0f : q > 65535.0f ? 65535.0f : q);
}

/* One pixel to fixed-point colour.  `linear` is sb_slic_linear_table(). */
SB_HD void sb_slic_convert(const float *linear, int space, unsigned r, unsigned g, unsigned b,
                                uint16_t out[3])
{
    if (space == SB_SLIC_RGB) {
        out[0] = (uint16_t)(64u * r);
        out[1] = (uint16_t)(64u * g);
        out[2] = (uint16_t)(64u * b);
        return;
    }
    float lr = linear[r], lg = linear[g], lb = linear[b];
    /* sRGB (D65) to XYZ, the source's matrix, summed left to right */
    float X = sb_fadd(sb_fadd(sb_fmul(0.412453f, lr), sb_fmul(0.357580f, lg)),
                          sb_fmul(0.180423f, lb));
    float Y = sb_fadd(sb_fadd(sb_fmul(0.212671f, lr), sb_fmul(0.715160f, lg)),
                          sb_fmul(0.072169f, lb));
    float Z = sb_fadd(sb_fadd(sb_fmul(0.019334f, lr), sb_fmul(0.119193f, lg)),
                          sb_fmul(0.950227f, lb));
    if (space == SB_SLIC_XYZ) {
        out[0] = sb_slic_quantize(X, 16384.0f, 0.0f);
        out[1] = sb_slic_quantize(Y, 16384.0f, 0.0f);
        out[2] = sb_slic_quantize(Z, 16384.0f, 0.0f);
        return;
    }
    float fx = sb_slic_lab_f(sb_fmul(X, 1.0f / 0.950456f));   /* D65 white */
    float fy = sb_slic_lab_f(Y);                                     /* white Y = 1.0 */
    float fz = sb_slic_lab_f(sb_fmul(Z, 1.0f / 1.088754f));
    float L = Y > 0.008856f ? sb_fadd(sb_fmul(116.0f, fy), -16.0f) : sb_fmul(903.3f, Y);
    float A = sb_fmul(500.0f, sb_fadd(fx, -fy));
    float B = sb_fmul(200.0f, sb_fadd(fy, -fz));
    out[0] = sb_slic_quantize(L, 64.0f, 0.0f);
    out[1] = sb_slic_quantize(A, 64.0f, 8192.0f);         /* (a + 128) * 64 */
    out[2] = sb_slic_quantize(B, 64.0f, 8192.0f);
}

/* The assignment distance (see the rules above).  Every argument is an
 * integer held exactly in a float: positions in 1/16 pixel (below 2^20),
 * colours in fixed point (below 2^16); so each difference is exact, and
 * only the squares and sums round -- the same way on CPU and GPU. */
/* The distance with dx^2 already squared (dx2 = sb_fmul(dx, dx)): the
 * same operations, so the same value; a pass that holds a centre for
 * several pixels of one column squares dx once. */
SB_HD float sb_slic_distance_dx2(float cn, float wxy, float dx2, float py, const float pc[3], float cy,
                                 const float cc[3])
{
    float dy = sb_fadd(py, -cy);
    float d0 = sb_fadd(pc[0], -cc[0]), d1 = sb_fadd(pc[1], -cc[1]), d2 = sb_fadd(pc[2], -cc[2]);
    float dc = sb_fadd(sb_fadd(sb_fmul(d0, d0), sb_fmul(d1, d1)), sb_fmul(d2, d2));
    float dxy = sb_fadd(dx2, sb_fmul(dy, dy));
    return sb_fadd(sb_fmul(dc, cn), sb_fmul(dxy, wxy));
}

SB_HD float sb_slic_distance(float cn, float wxy, float px, float py, const float pc[3], float cx, float cy,
                                  const float cc[3])
{
    float dx = sb_fadd(px, -cx);
    return sb_slic_distance_dx2(cn, wxy, sb_fmul(dx, dx), py, pc, cy, cc);
}

/* The update rule for one coordinate or channel of a non-empty centre. */
SB_HD uint32_t sb_slic_mean(uint64_t sum, uint64_t count, uint32_t unit)
{
    return (uint32_t)((unit * sum + count / 2) / count);
}

/* Converge mode: has the centre moved by more than it may and still be
 * settled?  Integers, so every variant answers alike. */
SB_HD int sb_slic_unsettled(const sb_slic_centre *was, const sb_slic_centre *now)
{
    int d = 0;
    d |= abs(now->x - was->x) > SB_SLIC_SETTLED_XY || abs(now->y - was->y) > SB_SLIC_SETTLED_XY;
    for (int ch = 0; ch < 3; ch++)
        d |= abs((int)now->colour[ch] - (int)was->colour[ch]) > SB_SLIC_SETTLED_COLOUR;
    return d;
}

/* Converge mode: does the run stop after an update that left `unsettled`
 * of `centres` unsettled? */
SB_HD int sb_slic_settled(long unsettled, long centres) { return unsettled * 100 <= centres * SB_SLIC_UNSETTLED_PCT; }

/* The update of one centre from its sums (kept when empty). */
SB_HD void sb_slic_update_centre(sb_slic_centre *c, const uint64_t sums[6])
{
    uint64_t n = sums[5];
    if (n == 0)
        return;
    c->x = (int32_t)sb_slic_mean(sums[0], n, SB_SLIC_XY_UNIT);
    c->y = (int32_t)sb_slic_mean(sums[1], n, SB_SLIC_XY_UNIT);
    for (int ch = 0; ch < 3; ch++)
        c->colour[ch] = (uint16_t)sb_slic_mean(sums[2 + ch], n, 1);
}

/* The initial centre of cell (gx, gy): the cell's middle clamped inside the
 * image, in 1/16 pixel; its colour is the pixel's there (the caller's). */
SB_HD void sb_slic_initial_position(int gx, int gy, int S, int width, int height, int *px, int *py)
{
    int x = gx * S + S / 2, y = gy * S + S / 2;
    *px = x < width ? x : width - 1;
    *py = y < height ? y : height - 1;
}

/* The source's majority filter at (x, y): a pixel at least 2 from every
 * border takes the last label (in row order) of its 5x5 window that
 * differs from its own when 16 or more of the 25 differ. */
SB_HD int32_t sb_slic_majority(const int32_t *labels, int width, int height, int x, int y)
{
    int32_t own = labels[(size_t)y * width + x];
    if (x < 2 || y < 2 || x >= width - 2 || y >= height - 2)
        return own;
    int differ = 0;
    int32_t other = own;
    for (int j = -2; j <= 2; j++)
        for (int i = -2; i <= 2; i++) {
            int32_t l = labels[(size_t)(y + j) * width + x + i];
            if (l != own) {
                differ++;
                other = l;
            }
        }
    return differ >= 16 ? other : own;
}

/* ---- host building blocks (impl_cpu/slic.c) -------------------------------- */

sb_status sb_slic_check_params(const sb_slic_params *p, sb_error *err);
/* The grid and constants for a width x height image; names what is wrong
 * (more segments than pixels, a side of 0, ...). */
sb_status sb_slic_geometry_init(sb_slic_geometry *g, int width, int height, const sb_slic_params *p,
                                sb_error *err);
/* The sRGB linearisation table (256 floats), the same on every call. */
const float *sb_slic_linear_table(void);


/* The serial reference on a whole image (also the gallery's pictures). */
sb_status sb_slic_serial(const sb_image *rgb, const sb_slic_params *p, sb_slic_out *out, sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
