/* ccl_device.cuh - connected components from join bits on the device,
 * the same as impl_cpu/ccl.c (include/segbench/ccl.h): every pixel's
 * component named by its smallest index.
 *
 * Two schemes, so the difference is a lesson of its own:
 *   global  one thread a pixel unions with its joined left and upper
 *           neighbours straight in global memory (union_find.cuh), then
 *           every pixel follows its links to the root;
 *   tiled   the source's three steps: union-find inside 32x32 tiles in
 *           shared memory (runs of a row from a ballot, unions with the
 *           row above, pointer jumping), then unions across the tiles'
 *           edges in global memory, then the roots.  The global trees are
 *           then a tile-local root or two deep, and most unions never
 *           touch global memory.
 */
#ifndef SEGBENCH_CCL_DEVICE_CUH
#define SEGBENCH_CCL_DEVICE_CUH

#include <cstdint>

#include "segbench/error.h"

#include "../cuda_check.cuh"

enum ccl_scheme { CCL_GLOBAL = 0, CCL_TILED = 1 };

/* Enqueue: comp[i] = the smallest index of i's component; parent is scratch. */
sb_status ccl_device_components(ccl_scheme scheme, int width, int height, const uint8_t *join, int32_t *parent,
                                int32_t *comp, cudaStream_t stream, const char *who, sb_error *err);

#endif
