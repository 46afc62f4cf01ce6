/* regions_9_fused.cu - cuda-fused.  Grows from cuda-blocks for the flood;
 * Grows from cuda-coop for the pipeline.  The idea: the flood in three
 * kernels: the tile kernel and the seams decide their joins from the colours.
 */
#include "regions_5_blocks.cuh"
#include "regions_7_rag.cuh"
#include "regions_8_coop.cuh"
#include "regions_9_fused.cuh"
#include "filter_1_global.cuh"

#include "segbench/ccl.h"

#include "../regions/union_find.cuh"
#include "../warp.cuh"

/* ---- the flood: 2x2 blocks, unions in 32x32 shared-memory tiles, then the seams ------------- *
 *
 * A thread holds a 2x2 block of pixels (a b / c d): it reads their join
 * bits once, finds the block's own components from its four inner joins,
 * and only each component's smallest pixel -- its representative --
 * takes part in the tile's union-find.  Most blocks of a segmentation are
 * one component, so a tile of 1024 pixels has some 256 nodes, a quarter
 * of the threads and about half the shared-memory unions (the joins
 * inside a block cost none). */

/* A tile is 16x16 threads; local indices run in the same order as global
 * ones, so a tile's smallest local index is its smallest global one.
 * The joins are decided here, from the tile's colours staged in shared
 * memory (joins that would leave the tile are the seams'). */
static __global__ void __launch_bounds__(CCL_BLOCKS * CCL_BLOCKS)
    tile_flood(int width, int height, const uint32_t *colour, int join2, int32_t *parent, int *region_count)
{
    __shared__ uint32_t col[CCL_TILE * CCL_TILE];
    __shared__ int32_t link[CCL_TILE * CCL_TILE];
    __shared__ uint8_t bits[CCL_TILE * CCL_TILE];
    int lx = 2 * threadIdx.x, ly = 2 * threadIdx.y, t = ly * CCL_TILE + lx;
    int x0 = blockIdx.x * CCL_TILE, y0 = blockIdx.y * CCL_TILE;
    if (blockIdx.x == 0 && blockIdx.y == 0 && t == 0)
        *region_count = 0;                     /* roots_count adds to it after this kernel */
    for (int k = 0; k < 4; k++) {
        int x = x0 + lx + (k & 1), y = y0 + ly + (k >> 1);
        col[t + block_at(k)] = x < width && y < height ? colour[(size_t)y * width + x] : 0;
    }
    __syncthreads();
    /* joins that stay inside the tile (outside pixels join nothing) */
    uint8_t j[4];
    for (int k = 0; k < 4; k++) {
        int px = lx + (k & 1), py = ly + (k >> 1), at = t + block_at(k);
        bool in = x0 + px < width && y0 + py < height;
        j[k] = 0;
        if (in && px > 0 && sb_ms_d2(col[at], col[at - 1]) <= join2)
            j[k] |= SB_CCL_LEFT;
        if (in && py > 0 && sb_ms_d2(col[at], col[at - CCL_TILE]) <= join2)
            j[k] |= SB_CCL_UP;
        bits[at] = j[k];
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

/* Joins across the tiles' edges, decided from the colours: a thread per
 * pixel on a vertical seam (x a multiple of 32), then per pixel on a
 * horizontal one. */
static __global__ void seam_flood(int width, int height, const uint32_t *colour, int join2, int32_t *parent)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned vertical = (unsigned)((width - 1) / CCL_TILE) * (unsigned)height;
    unsigned horizontal = (unsigned)((height - 1) / CCL_TILE) * (unsigned)width;
    if (j < vertical) {
        size_t i = (size_t)(j % height) * width + (j / height + 1) * CCL_TILE;
        if (sb_ms_d2(colour[i], colour[i - 1]) <= join2)
            rg_union(parent, (int32_t)i, (int32_t)i - 1);
    } else if (j < vertical + horizontal) {
        j -= vertical;
        size_t i = (size_t)((j / width + 1) * CCL_TILE) * width + j % width;
        if (sb_ms_d2(colour[i], colour[i - width]) <= join2)
            rg_union(parent, (int32_t)i, (int32_t)(i - width));
    }
}

/* Every pixel's root, and the roots counted as they are found: a ballot
 * a warp. */
static __global__ void roots_count(unsigned n, const int32_t *parent, int32_t *labels, int *region_count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    bool root = false;
    if (i < n) {
        int32_t r = rg_find(parent, (int32_t)i);
        labels[i] = r;
        root = r == (int32_t)i;
    }
    unsigned roots = __ballot_sync(LANES_ALL, root);
    if ((threadIdx.x & 31) == 0 && roots)
        atomicAdd(region_count, __popc(roots));
}

void ms_fused_tiles(ms_device *d, const uint32_t *colour)
{
    dim3 tile(CCL_BLOCKS, CCL_BLOCKS), tiles(sb_div_up(d->width, CCL_TILE), sb_div_up(d->height, CCL_TILE));
    tile_flood<<<tiles, tile, 0, d->stream>>>(d->width, d->height, colour, sb_ms_join2(d->p.range), d->parent,
                                              d->flags);
}

void ms_fused_roots(ms_device *d, int32_t *labels)
{
    MS_LAUNCH(roots_count, d->n, d->parent, labels, d->flags);
}

static sb_status rung_flood(ms_device *d, const uint32_t *colour, int32_t *labels, sb_error *err)
{
    ms_fused_tiles(d, colour);
    unsigned seams = ms_seam_count(d);
    if (seams)
        seam_flood<<<sb_div_up(seams, MS_THREADS), MS_THREADS, 0, d->stream>>>(d->width, d->height, colour,
                                                                             sb_ms_join2(d->p.range), d->parent);
    ms_fused_roots(d, labels);
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

SB_CUDA_RUNG("meanshift-flood", "cuda-fused", "cuda-blocks", "cuda-shared", 0,
             "fewer passes: the joins decided in the tile kernel, the roots counted where they are found",
             flood_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
SB_CUDA_RUNG("meanshift", "cuda-fused", "cuda-coop", "cuda-shared", 0,
             "the flood in three launches instead of six",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
