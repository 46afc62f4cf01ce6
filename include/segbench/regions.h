/* regions.h - connected components of a label map, and SLIC's "full"
 * connectivity enforcement built on them.  Host side (impl_cpu/regions.c),
 * band-parallel through a runner (bands.h); the device side is
 * impl_cuda/regions/ and implements the very same rules.
 *
 * Components: maximal sets of pixels with equal labels joined through the
 * 4 neighbours.  Each is named by its root, the smallest pixel index
 * (y * width + x) in it -- a name every algorithm arrives at, whatever
 * the order in which it joins pixels, so components compare exactly.
 *
 * Enforcement (Achanta et al.'s rule made order-free, so that it is the
 * same on every backend):
 *   1. components of the label map, with their sizes;
 *   2. a component smaller than `min_piece` pixels points to its largest
 *      4-adjacent component (ties: the smaller root), but only if that one
 *      is larger than itself by the same order -- so pointers climb and
 *      never cycle; every other component points to itself;
 *   3. every component follows the pointers to the end (a "kept" one);
 *   4. the kept components, in the order of their roots, are numbered
 *      0, 1, 2, ...; every pixel takes the number of its kept component.
 * Every output label is one connected piece (each merged piece touches
 * the one it points to), every piece of min_piece pixels or more keeps
 * its own label, and the labels depend only on the input map.
 * (Achanta's SLIC merges each small piece into the label met just before
 * it in a raster scan; that depends on the scan order, so it cannot be
 * reproduced by a parallel algorithm bit for bit.)
 */
#ifndef SEGBENCH_REGIONS_H
#define SEGBENCH_REGIONS_H

#include <stdint.h>

#include "segbench/bands.h"
#include "segbench/error.h"
#include "segbench/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The order of step 2: larger size first, then smaller root. */
SB_HD uint64_t sb_regions_key(uint32_t size, uint32_t root)
{
    return ((uint64_t)size << 32) | (uint32_t)~root;
}
SB_HD uint32_t sb_regions_key_root(uint64_t key) { return ~(uint32_t)key; }

/* Scratch for one image size: 24 bytes a pixel. */
typedef struct sb_regions {
    int width, height;
    int32_t *parent;    /* union-find links, then step 2's pointers */
    int32_t *comp;      /* each pixel's root */
    int32_t *size;      /* sizes by root, then the numbers of step 4 */
    int32_t *final;     /* step 3, by root */
    uint64_t *best;     /* step 2's largest neighbour key, by root */
    int *band_count;    /* kept roots per band: enforce's runner may have at most `bands` bands */
} sb_regions;

sb_status sb_regions_alloc(sb_regions *r, int width, int height, int bands, sb_error *err);
void sb_regions_free(sb_regions *r);

/* Components only: r->comp holds each pixel's root afterwards; returns
 * the number of components. */
long sb_regions_components(sb_regions *r, const sb_band_runner *run, const int32_t *labels);

/* Enforcement in place; returns the number of labels (0..count-1). */
int sb_regions_enforce(sb_regions *r, const sb_band_runner *run, int32_t *labels, int min_piece);

#ifdef __cplusplus
}
#endif
#endif
