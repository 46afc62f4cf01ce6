/* 3_shared.cu - SLIC with the tile pass of tile_pass.cuh (variant
 * "cuda-shared"): candidate centres and sums in shared memory, warp-
 * aggregated sums, one global flush per tile.  The colour is read from
 * global memory. */
#include "tile_pass.cuh"

static sb_status shared_setup(slic_device *d, sb_error *err)
{
    return slic_tile_allow_shared<GlobalColour>(d, err);
}

static sb_status shared_iterate(slic_device *d, sb_error *err)
{
    GlobalColour load = { d->colour };
    return slic_tile_iterate(d, load, err);
}

static const slic_hooks shared_hooks = { shared_setup, shared_iterate, NULL };

static sb_status shared_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    return slic_cuda_prepare(&shared_hooks, state, in, params, output, exec, err);
}

SB_VARIANT("slic", "cuda-shared", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "32x32 tiles: candidate centres and warp-aggregated sums in shared memory",
           shared_prepare, slic_cuda_upload, slic_cuda_run, slic_cuda_fetch, slic_cuda_release)
