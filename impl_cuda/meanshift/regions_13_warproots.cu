/* regions_13_warproots.cu - cuda-warproots of meanshift-flood and the
 * pipeline.  A branch of cuda-seams that does not win.  The idea: a warp's
 * lanes that share a tile root walk its chain once. */
#include "regions_7_rag.cuh"
#include "regions_8_coop.cuh"
#include "regions_9_fused.cuh"
#include "regions_10_seams.cuh"
#include "filter_1_global.cuh"

#include "../regions/union_find.cuh"
#include "../warp.cuh"

/* ---- the flood: cuda-fused's tiles, cuda-seams' seams, then these roots ---------------------- */

/* Every pixel's root, one walk for each distinct link in the warp, and
 * the roots counted as they are found: a ballot a warp. */
static __global__ void roots_count(unsigned n, const int32_t *parent, int32_t *labels, int *region_count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    bool in = i < n, root = false;
    int32_t link = in ? parent[i] : -1;
    unsigned same = __match_any_sync(LANES_ALL, link), first = __ffs(same) - 1;
    int32_t r = link;
    if (in && (threadIdx.x & 31) == first)
        r = rg_find(parent, link);
    r = __shfl_sync(LANES_ALL, r, first);
    if (in) {
        labels[i] = r;
        root = r == (int32_t)i;
    }
    unsigned roots = __ballot_sync(LANES_ALL, root);
    if ((threadIdx.x & 31) == 0 && roots)
        atomicAdd(region_count, __popc(roots));
}

static sb_status rung_flood(ms_device *d, const uint32_t *colour, int32_t *labels, sb_error *err)
{
    ms_fused_tiles(d, colour);
    ms_seams_joins(d, colour);
    MS_LAUNCH(roots_count, d->n, d->parent, labels, d->flags);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the rung -------------------------------------------------------------------------- */

/* The flood and the merge are this file's own: no shared step asks for
 * components or region sums. */
static const ms_regions rung_regions = { nullptr, nullptr, rung_flood, nullptr };

/* The pipeline's merge is cuda-coop's. */
static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return coop_open(step, state, &rung_regions, in, params, output, exec, err);
}

MS_STEP_PREPARE(flood_prepare, rung_prepare, SB_MS_FLOOD)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-flood", "cuda-warproots", "cuda-seams", "cuda-shared", 0,
             "each warp's distinct links walked to their root once: __match_any_sync, one walk, __shfl_sync",
             flood_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
SB_CUDA_RUNG("meanshift", "cuda-warproots", "cuda-seams", "cuda-shared", 0,
             "the flood's roots walked once a warp",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
