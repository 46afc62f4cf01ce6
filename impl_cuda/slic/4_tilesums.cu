/* 4_tilesums.cu - SLIC with each tile's sums in shared memory (variant "cuda-tilesums").
 *
 * Against cuda-tilecentres: the sums go to shared memory first, one slot
 * per candidate centre, with 6 shared 32-bit atomics a pixel
 * (TileAtomics); each tile then adds its non-empty slots to the global
 * sums once: about 150 global atomics per 1024 pixels instead of 6144.
 * What it should buy: the global atomic traffic and its serialisation on
 * the few addresses a warp shares.  What it bought on the H100 (run 20261123T025827Z-bcdf,
 * 10 iterations, S = 16): 2.652 -> 0.622 ms at 1920x1080, 9.66 -> 2.18 ms
 * at 3840x2160; 48.0 -> 2.70 ms for 1000 superpixels at 3840x2160.
 */
#include "tile_pass.cuh"

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(slic_device), in, params, output, exec, err);
    return st ? st : slic_tile_allow_shared<GlobalColour, TileAtomics>((slic_device *)*state, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    GlobalColour load = { d->colour };
    return slic_run(d, [&](sb_error *e) { return slic_tile_iterate<TileAtomics>(d, load, e); }, err);
}

SB_VARIANT("slic", "cuda-tilesums", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tilecentres with each tile's sums in shared memory: shared atomics a pixel, one flush a tile",
           rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
SB_RUNG("slic", "cuda-tilesums", "cuda-tilecentres",
        "the sums in shared memory too: shared atomics a pixel, one flush a tile")
