/* integral.h - the integral image (summed-area table).
 *
 * Input: an 8-bit grey image (colour is converted with sb_luma_u8).
 * Output: for every pixel (x, y) the inclusive sums
 *     sum(x, y)   = sum of I(x', y')   over x' <= x, y' <= y   (uint32)
 *     sqsum(x, y) = sum of I(x', y')^2 over the same rectangle (uint64)
 * both W x H with packed rows.  The uint32 table is exact modulo 2^32:
 * images above 16.8 Mpx of white wrap, as unsigned arithmetic does, and
 * box sums (four lookups) stay exact for any box of under 16.8 Mpx.  The
 * uint64 table never wraps within the size limits.
 *
 * Stages: "sum" computes sum only; "sqsum" computes both tables.
 * Agreement contract: bit-exact, every variant, every image.
 */
#ifndef SEGBENCH_INTEGRAL_H
#define SEGBENCH_INTEGRAL_H

#include <stddef.h>
#include <stdint.h>

#include "segbench/error.h"
#include "segbench/image.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SB_INTEGRAL_STAGE_SUM = 0, SB_INTEGRAL_STAGE_SQSUM = 1 };

typedef struct sb_integral_params {
    int squares;            /* 1: also compute sqsum (stage "sqsum") */
} sb_integral_params;

typedef struct sb_integral_out {
    int width, height;
    uint32_t *sum;          /* width * height */
    uint64_t *sqsum;        /* width * height, or NULL when not requested */
} sb_integral_out;

/* The serial reference, plain portable C: one pass, each row's running sum
 * added to the row above.  sqsum may be NULL. */
void sb_integral_serial(const uint8_t *in, size_t in_stride, int width, int height,
                        uint32_t *sum, uint64_t *sqsum);


#ifdef __cplusplus
}
#endif
#endif
