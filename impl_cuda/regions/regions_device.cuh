/* regions_device.cuh - regions.h on the device: connected components of a
 * label map and the order-free connectivity enforcement, the same rules
 * as impl_cpu/regions.c, so the labels agree bit for bit.
 *
 * Components: union-find, first inside 32x32 tiles in shared memory,
 * then across the tiles' edges in global memory (so the global trees are
 * a tile-local root or two deep, not a piece's diameter).  A union
 * links the larger of two roots under the smaller with atomicMin and
 * retries until it sticks, so the root of a component is its smallest index whatever the order in
 * which threads ran (the scheme of Oliveira and Lotufo 2010 and Playne and
 * Hawick 2018).  Then the enforcement's steps, one kernel each: sizes,
 * the largest neighbour of each small component (a 64-bit atomicMax of
 * regions.h's key), the pointers, their ends, and a numbering of the kept
 * roots in index order.  The roots and the kept roots are bits of two
 * bitmaps: the pointers' ends are followed a word of roots a thread, not
 * a pixel a thread, and a root's number is the kept roots in the words
 * before its own (an exclusive scan of the words' popcounts, from CUB,
 * which ships with the toolkit) and the kept bits below it in its word.
 */
#ifndef SEGBENCH_REGIONS_DEVICE_CUH
#define SEGBENCH_REGIONS_DEVICE_CUH

#include <cstdint>

#include "segbench/error.h"

#include "../cuda_check.cuh"

struct rg_device {
    int width, height;
    unsigned n;                   /* pixels */
    unsigned words;               /* of the kept bitmap: n / 32, rounded up */
    int32_t *parent;              /* links, then the pointers of step 2 */
    int32_t *comp;                /* each pixel's root */
    int32_t *size;                /* sizes by root */
    int32_t *final_root;          /* step 3, by root */
    unsigned *is_root;            /* a bit a pixel index, set for the roots */
    unsigned *kept;               /* the same for the kept roots (step 4) */
    int32_t *kept_in_word;        /* the kept roots in each word of the bitmap */
    int32_t *before_word;         /* their exclusive scan: the kept roots before each word */
    unsigned long long *best;     /* step 2's largest neighbour key, by root */
    void *scan_temp;
    size_t scan_bytes;
};

sb_status rg_device_alloc(rg_device *r, int width, int height, const char *who, sb_error *err);
void rg_device_free(rg_device *r);

/* Enqueue enforcement of `labels` (device, in place) on the stream; the
 * number of labels goes to *count (device). */
sb_status rg_device_enforce(rg_device *r, int32_t *labels, int min_piece, int *count, cudaStream_t stream,
                            const char *who, sb_error *err);

#endif
