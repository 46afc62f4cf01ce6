/* integral_host.h - the host internals of the integral image (integral.h)
 * that the CPU variants share: the serial scan of a band of rows.
 * Reached only by impl_cpu/, impl_pthread/ and the tests, as
 * "integral_host.h" on the -Iimpl_cpu path the Makefile gives them; the
 * public header keeps the contract. */
#ifndef SEGBENCH_INTEGRAL_HOST_H
#define SEGBENCH_INTEGRAL_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Serial scan of rows [y0, y1) continuing from `above` (the sum row just
 * above y0, or NULL for none): the building block of the banded CPU
 * variants.  above_sq likewise for squares (both NULL or both set when
 * sqsum is requested). */
void sb_integral_serial_rows(const uint8_t *in, size_t in_stride, int width, int y0, int y1,
                             const uint32_t *above, const uint64_t *above_sq,
                             uint32_t *sum, uint64_t *sqsum);

#ifdef __cplusplus
}
#endif
#endif
