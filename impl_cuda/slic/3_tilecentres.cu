/* 3_tilecentres.cu - SLIC with the centres a tile needs staged in shared memory (variant "cuda-tilecentres").
 *
 * Against cuda-global: a block takes a 32x32 tile (32 x 8 threads, 4 rows
 * a thread) and first copies the centres the tile can need -- 25 for
 * S = 16 -- into shared memory as the floats the distance reads, so the 9
 * candidate reads of a pixel come from shared memory with no int-to-float
 * conversion, and a pixel's cell is divided out once per row and column
 * (tile_pass.cuh).  The sums are unchanged: 6 global atomics a pixel
 * (PixelAtomics).  What it should buy: the assignment's issue slots; the
 * atomics stay the bound.  What it bought on the H100 (run 20261123T025827Z-bcdf,
 * 10 iterations, S = 16): 2.857 -> 2.652 ms at 1920x1080, 10.81 -> 9.66
 * ms at 3840x2160; 62.7 -> 48.0 ms for 1000 superpixels at 3840x2160.
 */
#include "tile_pass.cuh"

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(slic_device), in, params, output, exec, err);
    return st ? st : slic_tile_allow_shared<GlobalColour, PixelAtomics>((slic_device *)*state, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    GlobalColour load = { d->colour };
    return slic_run(d, [&](sb_error *e) { return slic_tile_iterate<PixelAtomics>(d, load, e); }, err);
}

SB_VARIANT("slic", "cuda-tilecentres", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "32x32 tiles with their candidate centres in shared memory; sums still 6 global atomics a pixel",
           rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
SB_RUNG("slic", "cuda-tilecentres", "cuda-global",
        "32x32 tiles: the candidate centres of a tile staged once in shared memory (as floats)")
