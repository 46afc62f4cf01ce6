/* 4_tilesums.cu - SLIC with each tile's sums in shared memory (variant "cuda-tilesums").
 *
 * Against cuda-tilecentres: the sums go to shared memory first, one slot
 * per candidate centre, with 6 shared 32-bit atomics a pixel
 * (TileAtomics); each tile then adds its non-empty slots to the global
 * sums once: about 150 global atomics per 1024 pixels instead of 6144.
 * What it should buy: the global atomic traffic and its serialisation on
 * the few addresses a warp shares.  What it bought on the H100: NOTES.md's
 * ladder.
 */
#include "tile_pass.cuh"

static sb_status rung_setup(slic_device *d, sb_error *err)
{
    return slic_tile_allow_shared<GlobalColour, TileAtomics>(d, err);
}

static sb_status rung_iterate(slic_device *d, sb_error *err)
{
    GlobalColour load = { d->colour };
    return slic_tile_iterate<TileAtomics>(d, load, err);
}

static const slic_hooks rung_hooks = { rung_setup, rung_iterate, NULL };

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return slic_cuda_prepare(&rung_hooks, state, in, params, output, exec, err);
}

SB_VARIANT("slic", "cuda-tilesums", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tilecentres with each tile's sums in shared memory: shared atomics a pixel, one flush a tile",
           rung_prepare, slic_cuda_upload, slic_cuda_run, slic_cuda_fetch, slic_cuda_release)
