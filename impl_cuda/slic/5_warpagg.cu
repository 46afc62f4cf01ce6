/* 5_warpagg.cu - SLIC with warp-aggregated sums (variant "cuda-warpagg";
 * it was "cuda-shared").
 *
 * Against cuda-tilesums: the lanes of a warp -- 32 pixels of one row,
 * which carry only a few labels -- add their values together first, and
 * one lane per label adds the totals: 6 shared atomics per label per warp
 * instead of per pixel (WarpAggregated).  What it should buy: the shared
 * atomics' serialisation on a tile's few slots.  What it bought on the
 * H100 (run 20261123T025827Z-bcdf, 10 iterations): a loss where superpixels are
 * small -- at S = 16 a warp's row carries 2-3 labels, 0.622 -> 0.728 ms at
 * 1920x1080, 2.18 -> 2.58 ms at 3840x2160 -- and a gain where they are
 * large, 2.70 -> 2.34 ms for 1000 superpixels at 3840x2160.
 */
#include "tile_pass.cuh"

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(slic_device), in, params, output, exec, err);
    return st ? st : slic_tile_allow_shared<GlobalColour, WarpAggregated>((slic_device *)*state, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    GlobalColour load = { d->colour };
    return slic_run(d, [&](sb_error *e) { return slic_tile_iterate<WarpAggregated>(d, load, e); }, err);
}

SB_VARIANT("slic", "cuda-warpagg", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tilesums with warp-aggregated sums: the lanes of one label add first",
           rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
SB_RUNG("slic", "cuda-warpagg", "cuda-tilesums",
        "warp aggregation: the lanes of one label add first, one shared atomic per label per warp")
