/* regions_1_global.cuh - what cuda-global (regions_1_global.cu) lends the
 * regions rungs after it: its region sums (a warp's leaders add to global
 * memory), kept by cuda-tiles, and its merge driven by the host, kept by
 * cuda-tiles and cuda-blocksums. */
#ifndef SEGBENCH_MS_REGIONS_1_GLOBAL_CUH
#define SEGBENCH_MS_REGIONS_1_GLOBAL_CUH

#include "filter_1_global.cuh"

/* Every region's pixel count and colour sums, label -> d->count, d->sum
 * (an ms_regions' region_sums). */
sb_status ms_warp_region_sums(ms_device *d, const int32_t *label, const uint32_t *colour, sb_error *err);

/* The merge with its pruning rounds driven by the host (an ms_regions'
 * merge). */
sb_status ms_host_merge(ms_device *d, const uint32_t *colour, const int32_t *flood, int32_t *labels,
                        sb_error *err);

#endif
