/* 6_warpagg.cu - cuda-warpagg (formerly cuda-shared).  A branch of
 * cuda-tilesums.  The idea: the lanes of a label add first. */
#include "6_warpagg.cuh"

SLIC_TILE_OPS(slic_tile_pass<GlobalColour>)

SB_CUDA_RUNG("slic", "cuda-warpagg", "cuda-tilesums", "cuda-shared", 0,
             "warp aggregation: the lanes of one label add first, one shared atomic per label per warp",
             rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
