/* integral.c - the serial reference integral image (variant "cpu").
 *
 * One pass in row order: keep the running sum of the current row and add
 * it to the finished row above.  Each output is written once and the row
 * above is still in L1, so this runs close to the speed at which one core
 * can store 4 (or 4 + 8) bytes per pixel.  Plain C, no intrinsics: it is
 * the reference every other variant is checked against, and it must not
 * be a straw man either (the goal is within 1.5x of OpenCV's SIMD
 * cv::integral on the same core).
 */
#include "segbench/integral.h"

#include "segbench/variant.h"

#include <stdlib.h>

/* One row: dst[x] = above[x] + (src[0] + ... + src[x]).  Four pixels at a
 * time: their partial sums p0..p3 do not depend on the running total, so
 * only one add per four pixels sits on the loop-carried dependency chain
 * and the core can overlap the rest.  above == NULL means a row of zeros. */
static void integral_row_u32(const uint8_t *src, const uint32_t *above, uint32_t *dst, int width)
{
    uint32_t run = 0;
    int x = 0;
    for (; x + 4 <= width; x += 4) {
        uint32_t p0 = src[x], p1 = p0 + src[x + 1], p2 = p1 + src[x + 2], p3 = p2 + src[x + 3];
        dst[x + 0] = (above ? above[x + 0] : 0) + run + p0;
        dst[x + 1] = (above ? above[x + 1] : 0) + run + p1;
        dst[x + 2] = (above ? above[x + 2] : 0) + run + p2;
        dst[x + 3] = (above ? above[x + 3] : 0) + run + p3;
        run += p3;
    }
    for (; x < width; x++) {
        run += src[x];
        dst[x] = (above ? above[x] : 0) + run;
    }
}

/* The same for squared values into 64-bit sums. */
static void integral_row_u64_sq(const uint8_t *src, const uint64_t *above, uint64_t *dst, int width)
{
    uint64_t run = 0;
    int x = 0;
    for (; x + 4 <= width; x += 4) {
        uint32_t q0 = (uint32_t)src[x] * src[x], q1 = q0 + (uint32_t)src[x + 1] * src[x + 1];
        uint32_t q2 = q1 + (uint32_t)src[x + 2] * src[x + 2], q3 = q2 + (uint32_t)src[x + 3] * src[x + 3];
        dst[x + 0] = (above ? above[x + 0] : 0) + run + q0;
        dst[x + 1] = (above ? above[x + 1] : 0) + run + q1;
        dst[x + 2] = (above ? above[x + 2] : 0) + run + q2;
        dst[x + 3] = (above ? above[x + 3] : 0) + run + q3;
        run += q3;
    }
    for (; x < width; x++) {
        run += (uint32_t)src[x] * src[x];
        dst[x] = (above ? above[x] : 0) + run;
    }
}

void sb_integral_serial_rows(const uint8_t *in, size_t in_stride, int width, int y0, int y1,
                             const uint32_t *above, const uint64_t *above_sq,
                             uint32_t *sum, uint64_t *sqsum)
{
    for (int y = y0; y < y1; y++) {
        const uint8_t *src = in + (size_t)y * in_stride;
        uint32_t *dst = sum + (size_t)y * (size_t)width;
        integral_row_u32(src, above, dst, width);
        above = dst;
        if (sqsum) {
            uint64_t *dst_sq = sqsum + (size_t)y * (size_t)width;
            integral_row_u64_sq(src, above_sq, dst_sq, width);
            above_sq = dst_sq;
        }
    }
}

void sb_integral_serial(const uint8_t *in, size_t in_stride, int width, int height,
                        uint32_t *sum, uint64_t *sqsum)
{
    sb_integral_serial_rows(in, in_stride, width, 0, height, NULL, NULL, sum, sqsum);
}

/* ---- the variant: computes straight into the harness's output ---- */

typedef struct cpu_state {
    const sb_image *in;
    sb_integral_out *out;
    int squares;
} cpu_state;

static sb_status cpu_prepare(void **state, const sb_image *in, const void *params, void *output,
                             const sb_exec *exec, sb_error *err)
{
    (void)exec;
    cpu_state *s = malloc(sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "integral/cpu: out of memory");
    s->in = in;
    s->out = output;
    s->squares = ((const sb_integral_params *)params)->squares;
    *state = s;
    return SB_OK;
}

static sb_status cpu_run(void *state, sb_error *err)
{
    (void)err;
    cpu_state *s = state;
    sb_integral_serial(s->in->data, s->in->stride, s->in->width, s->in->height, s->out->sum,
                       s->squares ? s->out->sqsum : NULL);
    return SB_OK;
}

static sb_status cpu_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

static void cpu_release(void *state) { free(state); }

const sb_variant_ops sb_integral_cpu_ops = { cpu_prepare, cpu_run, cpu_fetch, cpu_release };
