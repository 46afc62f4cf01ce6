/* regions_10_seams.cuh - what cuda-seams (regions_10_seams.cu) lends the
 * floods after it: the seams' joins with the repeated ones left out, and
 * its whole flood (cuda-fused's tiles and roots around those seams). */
#ifndef SEGBENCH_MS_REGIONS_10_SEAMS_CUH
#define SEGBENCH_MS_REGIONS_10_SEAMS_CUH

#include "ms_device.cuh"

/* Enqueue the unions across the tiles' seams, decided from `colour`, into
 * d->parent. */
void ms_seams_joins(ms_device *d, const uint32_t *colour);

/* cuda-seams' flood: colour -> labels, the region count in d->flags[0]
 * (an ms_regions' flood). */
sb_status ms_seams_flood(ms_device *d, const uint32_t *colour, int32_t *labels, sb_error *err);

#endif
