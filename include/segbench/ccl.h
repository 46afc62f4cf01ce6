/* ccl.h - connected components from join bits, on the host.
 *
 * Whatever decides that two neighbouring pixels belong together (equal
 * labels, colours within a range, ...) is first reduced to two bits a
 * pixel: SB_CCL_LEFT (joined with x - 1) and SB_CCL_UP (joined with
 * y - 1).  The union-find below reads only those bits, so one component
 * labelling serves every predicate; impl_cuda/meanshift/ccl_device.cuh is
 * the same on the device.
 *
 * Every pixel's component is named by its smallest index y * width + x:
 * unions always keep the smaller root, so the name does not depend on the
 * order of the unions, and every backend arrives at the same labels.
 * Band-parallel (bands.h): each band joins its own rows, the seams between
 * bands are joined on the calling thread, then every pixel finds its root.
 */
#ifndef SEGBENCH_CCL_H
#define SEGBENCH_CCL_H

#include <stdint.h>

#include "segbench/bands.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SB_CCL_LEFT = 1, SB_CCL_UP = 2 };

/* comp[i] = the smallest index of pixel i's component.  parent: W*H scratch. */
void sb_ccl(const sb_band_runner *run, int width, int height, const uint8_t *join, int32_t *parent, int32_t *comp);

#ifdef __cplusplus
}
#endif
#endif
