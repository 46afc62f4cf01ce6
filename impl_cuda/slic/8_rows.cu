/* 8_rows.cu - cuda-rows.  Grows from cuda-tilesums.  The idea: a thread's 4
 * rows consecutive, so its pixels nearly always share one cell and its 9
 * candidates. */
#include "8_rows.cuh"

static __global__ void __launch_bounds__(TILE_THREADS)
    slic_tile_pass(GlobalColour load, sb_slic_geometry g, const sb_slic_centre *centres, int32_t *labels,
                   unsigned long long *sums)
{
    slic_rows_tile(load, g, centres, labels, sums, blockIdx.x, blockIdx.y);   /* 8_rows.cuh */
}

SLIC_TILE_OPS(slic_tile_pass)

/* The pass and its shared memory, for cuda-labels16, which keeps them. */
sb_status slic_rows_iterate(slic_device *d, GlobalColour load, sb_error *err)
{
    return slic_tile_iterate(d, slic_tile_pass, load, err);
}

sb_status slic_rows_allow_shared(const slic_device *d, sb_error *err)
{
    return slic_allow_shared(slic_tile_pass, slic_tile_shared_bytes(d->geo.S), d, err);
}

SB_CUDA_RUNG("slic", "cuda-rows", "cuda-tilesums", "cuda-shared", SB_LADDER_TOP,
             "a thread takes 4 consecutive rows, not every 8th: its pixels share one cell's candidates",
             rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
