/* regions_9_fused.cuh - what cuda-fused (regions_9_fused.cu) lends the
 * floods after it: the tile kernel that decides its joins from the
 * colours, and the last pass that finds every pixel's root and counts
 * the roots (cuda-warproots brings its own). */
#ifndef SEGBENCH_MS_REGIONS_9_FUSED_CUH
#define SEGBENCH_MS_REGIONS_9_FUSED_CUH

#include "ms_device.cuh"

/* Enqueue the unions inside the tiles, their joins decided from
 * `colour`, into d->parent; the region count d->flags[0] set to zero. */
void ms_fused_tiles(ms_device *d, const uint32_t *colour);

/* Enqueue every pixel's root into `labels`, the roots counted into
 * d->flags[0]. */
void ms_fused_roots(ms_device *d, int32_t *labels);

#endif
