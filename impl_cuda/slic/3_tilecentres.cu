/* 3_tilecentres.cu - SLIC with the centres a tile needs staged in shared memory (variant "cuda-tilecentres").
 *
 * Against cuda-global: a block takes a 32x32 tile (32 x 8 threads, 4 rows
 * a thread) and first copies the centres the tile can need -- 25 for
 * S = 16 -- into shared memory as the floats the distance reads, so the 9
 * candidate reads of a pixel come from shared memory with no int-to-float
 * conversion, and a pixel's cell is divided out once per row and column
 * (tile_pass.cuh).  The sums are unchanged: 6 global atomics a pixel
 * (PixelAtomics).  What it should buy: the assignment's issue slots; the
 * atomics stay the bound.  What it bought on the H100: NOTES.md's ladder.
 */
#include "tile_pass.cuh"

static sb_status rung_setup(slic_device *d, sb_error *err)
{
    return slic_tile_allow_shared<GlobalColour, PixelAtomics>(d, err);
}

static sb_status rung_iterate(slic_device *d, sb_error *err)
{
    GlobalColour load = { d->colour };
    return slic_tile_iterate<PixelAtomics>(d, load, err);
}

static const slic_hooks rung_hooks = { rung_setup, rung_iterate, NULL };

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return slic_cuda_prepare(&rung_hooks, state, in, params, output, exec, err);
}

SB_VARIANT("slic", "cuda-tilecentres", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "32x32 tiles with their candidate centres in shared memory; sums still 6 global atomics a pixel",
           rung_prepare, slic_cuda_upload, slic_cuda_run, slic_cuda_fetch, slic_cuda_release)
