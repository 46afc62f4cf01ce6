/* 5_shared.cu - SLIC with warp-aggregated sums (variant "cuda-shared").
 *
 * Against cuda-tilesums: the lanes of a warp -- 32 pixels of one row,
 * which carry only a few labels -- add their values together first, and
 * one lane per label adds the totals: 6 shared atomics per label per warp
 * instead of per pixel (WarpAggregated).  What it should buy: the shared
 * atomics' serialisation on a tile's few slots.  What it bought on the
 * H100: NOTES.md's ladder.
 */
#include "tile_pass.cuh"

static sb_status rung_setup(slic_device *d, sb_error *err)
{
    return slic_tile_allow_shared<GlobalColour, WarpAggregated>(d, err);
}

static sb_status rung_iterate(slic_device *d, sb_error *err)
{
    GlobalColour load = { d->colour };
    return slic_tile_iterate<WarpAggregated>(d, load, err);
}

static const slic_hooks rung_hooks = { rung_setup, rung_iterate, NULL };

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return slic_cuda_prepare(&rung_hooks, state, in, params, output, exec, err);
}

SB_VARIANT("slic", "cuda-shared", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tilesums with warp-aggregated sums: the lanes of one label add first",
           rung_prepare, slic_cuda_upload, slic_cuda_run, slic_cuda_fetch, slic_cuda_release)
