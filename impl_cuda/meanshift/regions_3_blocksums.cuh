/* regions_3_blocksums.cuh - what cuda-blocksums (regions_3_blocksums.cu)
 * lends the regions rungs after it, up to cuda-roots: its region sums,
 * a table a block in shared memory first. */
#ifndef SEGBENCH_MS_REGIONS_3_BLOCKSUMS_CUH
#define SEGBENCH_MS_REGIONS_3_BLOCKSUMS_CUH

#include "ms_device.cuh"

/* Every region's pixel count and colour sums, label -> d->count, d->sum
 * (an ms_regions' region_sums). */
sb_status ms_block_region_sums(ms_device *d, const int32_t *label, const uint32_t *colour, sb_error *err);

#endif
