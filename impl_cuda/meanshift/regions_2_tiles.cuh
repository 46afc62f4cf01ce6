/* regions_2_tiles.cuh - what cuda-tiles (regions_2_tiles.cu) lends the
 * regions rungs after it: the union-find in 32x32 shared-memory tiles,
 * kept by cuda-blocksums and cuda-graph, and the seams between the tiles,
 * kept up to cuda-coop. */
#ifndef SEGBENCH_MS_REGIONS_2_TILES_CUH
#define SEGBENCH_MS_REGIONS_2_TILES_CUH

#include "ms_device.cuh"

enum { CCL_TILE = 32 };

/* The pixels on the tiles' seams: a thread each, vertical seams first. */
static inline unsigned ms_seam_count(const ms_device *d)
{
    return (unsigned)((d->width - 1) / CCL_TILE) * d->height + (unsigned)((d->height - 1) / CCL_TILE) * d->width;
}

/* Enqueue the unions across the seams, from the join bits, into d->parent
 * (the caller checks the launch). */
void ms_seam_unions(ms_device *d, const uint8_t *join);

/* Components by the tiled union-find, then the seams, then the roots (an
 * ms_regions' components). */
sb_status ms_tiles_components(ms_device *d, const uint8_t *join, int32_t *comp, sb_error *err);

#endif
