/* 4_transposed.cu - cuda-transposed.  Grows from cuda-tilescan.  The idea: a
 * tile's 32 row totals as one transposed warp reduction, not 32 separate
 * ones. */
#include "2_smemscan.cuh"

enum { SCAN_ROUND = 32 };   /* rows a round of the carries' scan (3_tilescan.cuh) */

#include "3_tilescan.cuh"
#include "3_tilescan_sat.cuh"
#include "4_transposed_totals.cuh"

/* ---- the variant ------------------------------------------------------------------- */

SB_CUDA_RUNG("integral", "cuda-transposed", "cuda-tilescan", "cuda-shared", 0,
             "a tile's 32 row totals in one transposed warp reduction: 31 shuffles instead of 160",
             tile_prepare, integral_cuda_upload, tile_run, integral_cuda_fetch, tile_release)
