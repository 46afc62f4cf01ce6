/* 8_rows.cuh - what cuda-rows (8_rows.cu) lends cuda-labels16, which
 * keeps its pass whole and narrows the labels after it: the pass over the
 * image (then the centres' update), and the shared memory it needs. */
#ifndef SEGBENCH_SLIC_8_ROWS_CUH
#define SEGBENCH_SLIC_8_ROWS_CUH

#include "slic_tiles.cuh"

sb_status slic_rows_iterate(slic_device *d, GlobalColour load, sb_error *err);
sb_status slic_rows_allow_shared(const slic_device *d, sb_error *err);

#endif
