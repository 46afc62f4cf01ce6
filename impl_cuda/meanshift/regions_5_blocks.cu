/* regions_5_blocks.cu - cuda-blocks.  Grows from cuda-graph for the merge and
 * the pipeline; Grows from cuda-tiles for the flood.  The idea: a thread
 * holds a 2x2 block, settles its joins in registers, and only its components'
 * representatives join the tile's union-find. */
#include "regions_3_blocksums.cuh"
#include "regions_4_graph.cuh"
#include "regions_5_blocks.cuh"
#include "filter_1_global.cuh"

#include "segbench/ccl.h"

/* ---- components: 2x2 blocks, unions in 32x32 shared-memory tiles, then the seams ---------- *
 *
 * A thread holds a 2x2 block of pixels (a b / c d): it reads their join
 * bits once, finds the block's own components from its four inner joins,
 * and only each component's smallest pixel -- its representative --
 * takes part in the tile's union-find.  Most blocks of a segmentation are
 * one component, so a tile of 1024 pixels has some 256 nodes, a quarter
 * of the threads and about half the shared-memory unions (the joins
 * inside a block cost none). */

/* A tile is 16x16 threads; local indices run in the same order as global
 * ones, so a tile's smallest local index is its smallest global one. */
static __global__ void __launch_bounds__(CCL_BLOCKS * CCL_BLOCKS)
    tile_unions(int width, int height, const uint8_t *join, int32_t *parent)
{
    __shared__ int32_t link[CCL_TILE * CCL_TILE];
    __shared__ uint8_t bits[CCL_TILE * CCL_TILE];
    int lx = 2 * threadIdx.x, ly = 2 * threadIdx.y, t = ly * CCL_TILE + lx;
    int x0 = blockIdx.x * CCL_TILE, y0 = blockIdx.y * CCL_TILE;
    /* joins that stay inside the tile (outside pixels join nothing) */
    uint8_t j[4];
    for (int k = 0; k < 4; k++) {
        int x = x0 + lx + (k & 1), y = y0 + ly + (k >> 1);
        j[k] = x < width && y < height ? join[(size_t)y * width + x] : 0;
        if (lx + (k & 1) == 0)
            j[k] &= ~SB_CCL_LEFT;
        if (ly + (k >> 1) == 0)
            j[k] &= ~SB_CCL_UP;
        bits[t + block_at(k)] = j[k];
    }
    int root[4];
    block_tile_roots(t, j, link, bits, root);
    for (int k = 0; k < 4; k++) {
        int x = x0 + lx + (k & 1), y = y0 + ly + (k >> 1);
        if (x < width && y < height)
            parent[(size_t)y * width + x] =
                (int32_t)((size_t)(y0 + root[k] / CCL_TILE) * width + x0 + root[k] % CCL_TILE);
    }
}

sb_status ms_blocks_components(ms_device *d, const uint8_t *join, int32_t *comp, sb_error *err)
{
    dim3 tile(CCL_BLOCKS, CCL_BLOCKS), tiles(sb_div_up(d->width, CCL_TILE), sb_div_up(d->height, CCL_TILE));
    tile_unions<<<tiles, tile, 0, d->stream>>>(d->width, d->height, join, d->parent);
    ms_seam_unions(d, join);
    SB_CUDA_LAUNCHED(err, d->who);
    return ccl_device_roots(d->n, d->parent, comp, d->stream, d->who, err);
}

/* ---- the rung -------------------------------------------------------------------------- */

static const ms_regions rung_regions = { ms_blocks_components, ms_block_region_sums, nullptr, nullptr };

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = ms_device_open(state, sizeof(ms_device), step, &rung_regions, in, params, output, exec, err);
    if (st || step == SB_MS_FLOOD)      /* the flood has no merge */
        return st;
    return ms_merge_graph_build((ms_device *)*state, err);
}

MS_STEP_PREPARE(flood_prepare, rung_prepare, SB_MS_FLOOD)
MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-flood", "cuda-blocks", "cuda-tiles", "cuda-shared", 0,
             "a thread a 2x2 block: the joins inside it settled in registers, a quarter of the union-find's nodes",
             flood_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
SB_CUDA_RUNG("meanshift-merge", "cuda-blocks", "cuda-graph", "cuda-shared", SB_GRAPH_LOOP,
             "the fusion components over 2x2 blocks of pixels",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
SB_CUDA_RUNG("meanshift", "cuda-blocks", "cuda-graph", "cuda-shared", SB_GRAPH_LOOP,
             "flood and fusion components over 2x2 blocks of pixels",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
