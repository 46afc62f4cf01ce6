/* ccl_device.cuh - the last step of connected components from join bits
 * on the device, the same as impl_cpu/ccl.c (include/segbench/ccl.h):
 * every pixel's component named by its smallest index.
 *
 * How the union-find trees are built is a lesson of mean-shift's regions
 * rungs, so it lives in their files: regions_1_global.cu unions straight
 * in global memory, regions_2_tiles.cu in 32x32 shared-memory tiles
 * first.  What no edge changes is here: every pixel follows its links to
 * the root.
 */
#ifndef SEGBENCH_CCL_DEVICE_CUH
#define SEGBENCH_CCL_DEVICE_CUH

#include <cstdint>

#include "segbench/error.h"

#include "../cuda_check.cuh"

/* Enqueue: comp[i] = the root of i in the union-find forest `parent`
 * (roots are their sets' smallest indices: union_find.cuh). */
sb_status ccl_device_roots(unsigned n, const int32_t *parent, int32_t *comp, cudaStream_t stream, const char *who,
                           sb_error *err);

#endif
