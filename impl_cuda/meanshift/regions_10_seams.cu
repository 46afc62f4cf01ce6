/* regions_10_seams.cu - cuda-seams of meanshift-flood and the pipeline.
 * Grows from cuda-fused.  The idea: a seam pixel leaves out a join the tile
 * kernel has already made. */
#include "regions_2_tiles.cuh"
#include "regions_7_rag.cuh"
#include "regions_8_coop.cuh"
#include "regions_9_fused.cuh"
#include "regions_10_seams.cuh"
#include "filter_1_global.cuh"

#include "../regions/union_find.cuh"

/* ---- the flood: cuda-fused's tiles and roots around these seams ------------------------------ */

/* Joins across the tiles' edges, decided from the colours: a thread per
 * pixel on a vertical seam (x a multiple of 32), then per pixel on a
 * horizontal one.  A join is left out where the seam's previous pixel,
 * in the same tile row (column), joined across too and each side's two
 * pixels are joined inside their tile. */
static __global__ void seam_flood(int width, int height, const uint32_t *colour, int join2, int32_t *parent)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned vertical = (unsigned)((width - 1) / CCL_TILE) * (unsigned)height;
    unsigned horizontal = (unsigned)((height - 1) / CCL_TILE) * (unsigned)width;
    auto joined = [&](size_t p, size_t q) { return sb_ms_d2(colour[p], colour[q]) <= join2; };
    if (j < vertical) {
        unsigned y = j % height;
        size_t i = (size_t)y * width + (j / height + 1) * CCL_TILE, up = i - width;
        if (joined(i, i - 1) &&
            !(y % CCL_TILE && joined(up, up - 1) && joined(i, up) && joined(i - 1, up - 1)))
            rg_union(parent, (int32_t)i, (int32_t)i - 1);
    } else if (j < vertical + horizontal) {
        j -= vertical;
        unsigned x = j % width;
        size_t i = (size_t)((j / width + 1) * CCL_TILE) * width + x, up = i - width;
        if (joined(i, up) && !(x % CCL_TILE && joined(i - 1, up - 1) && joined(i, i - 1) && joined(up, up - 1)))
            rg_union(parent, (int32_t)i, (int32_t)up);
    }
}

void ms_seams_joins(ms_device *d, const uint32_t *colour)
{
    unsigned seams = ms_seam_count(d);
    if (seams)
        seam_flood<<<sb_div_up(seams, MS_THREADS), MS_THREADS, 0, d->stream>>>(d->width, d->height, colour,
                                                                             sb_ms_join2(d->p.range), d->parent);
}

sb_status ms_seams_flood(ms_device *d, const uint32_t *colour, int32_t *labels, sb_error *err)
{
    ms_fused_tiles(d, colour);
    ms_seams_joins(d, colour);
    ms_fused_roots(d, labels);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the rung -------------------------------------------------------------------------- */

/* The flood and the merge are this file's own: no shared step asks for
 * components or region sums. */
static const ms_regions rung_regions = { nullptr, nullptr, ms_seams_flood, nullptr };

/* The pipeline's merge is cuda-coop's. */
static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return coop_open(step, state, &rung_regions, in, params, output, exec, err);
}

MS_STEP_PREPARE(flood_prepare, rung_prepare, SB_MS_FLOOD)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-flood", "cuda-seams", "cuda-fused", "cuda-shared", SB_LADDER_TOP,
             "the seams' repeated joins left out: a seam pixel joins only where the one before it did not already",
             flood_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
SB_CUDA_RUNG("meanshift", "cuda-seams", "cuda-fused", "cuda-shared", SB_LADDER_TOP,
             "the flood's seams without repeated joins",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
