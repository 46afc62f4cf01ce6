/* regions_2_tiles.cu - cuda-tiles of meanshift-flood, -merge and the
 * pipeline.  Grows from cuda-global.  The idea: union-find inside 32x32 tiles
 * in shared memory first, then unions across the seams only. */
#include "regions_1_global.cuh"
#include "regions_2_tiles.cuh"

#include "segbench/ccl.h"

#include "../regions/union_find.cuh"

/* ---- components: unions in 32x32 shared-memory tiles, then the seams --------------------- */

/* A warp is one row of a tile; local indices run in the same order as
 * global ones, so a tile's smallest local index is its smallest global one. */
static __global__ void __launch_bounds__(CCL_TILE * CCL_TILE)
    tile_unions(int width, int height, const uint8_t *join, int32_t *parent)
{
    __shared__ int32_t link[CCL_TILE * CCL_TILE];
    __shared__ uint8_t bits[CCL_TILE * CCL_TILE];
    int tx = threadIdx.x, ty = threadIdx.y, t = ty * CCL_TILE + tx;
    int x0 = blockIdx.x * CCL_TILE, y0 = blockIdx.y * CCL_TILE, x = x0 + tx, y = y0 + ty;
    bool in = x < width && y < height;
    size_t i = (size_t)y * width + x;
    /* joins that stay inside the tile (outside pixels join nothing) */
    uint8_t b = in ? join[i] : 0;
    if (tx == 0)
        b &= ~SB_CCL_LEFT;
    if (ty == 0)
        b &= ~SB_CCL_UP;
    bits[t] = b;
    /* runs: link to the first pixel of the run of left-joined pixels */
    unsigned starts = __ballot_sync(0xffffffffu, !(b & SB_CCL_LEFT));
    int run_start = 31 - __clz(starts & (0xffffffffu >> (31 - tx)));
    link[t] = ty * CCL_TILE + run_start;
    __syncthreads();
    /* the row above: not where left, upper-left and up are already one set
     * (joined left, the left pixel joined up, the upper pixel joined left) */
    if ((b & SB_CCL_UP) && !((b & SB_CCL_LEFT) && (bits[t - 1] & SB_CCL_UP) && (bits[t - CCL_TILE] & SB_CCL_LEFT)))
        rg_union(link, t, t - CCL_TILE);
    __syncthreads();
    /* pointer jumping until every link is the tile-local root */
    int up = link[t];
    while (__syncthreads_or(up != link[up])) {
        up = link[up];
        __syncthreads();
        link[t] = up;
        __syncthreads();
    }
    if (in)
        parent[i] = (int32_t)((size_t)(y0 + up / CCL_TILE) * width + x0 + up % CCL_TILE);
}

/* Joins across the tiles' edges: a thread per pixel on a vertical seam
 * (x a multiple of 32), then per pixel on a horizontal one. */
static __global__ void seam_unions(int width, int height, const uint8_t *join, int32_t *parent)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned vertical = (unsigned)((width - 1) / CCL_TILE) * (unsigned)height;
    unsigned horizontal = (unsigned)((height - 1) / CCL_TILE) * (unsigned)width;
    if (j < vertical) {
        size_t i = (size_t)(j % height) * width + (j / height + 1) * CCL_TILE;
        if (join[i] & SB_CCL_LEFT)
            rg_union(parent, (int32_t)i, (int32_t)i - 1);
    } else if (j < vertical + horizontal) {
        j -= vertical;
        size_t i = (size_t)((j / width + 1) * CCL_TILE) * width + j % width;
        if (join[i] & SB_CCL_UP)
            rg_union(parent, (int32_t)i, (int32_t)(i - width));
    }
}

void ms_seam_unions(ms_device *d, const uint8_t *join)
{
    unsigned seams = ms_seam_count(d);
    if (seams)
        seam_unions<<<sb_div_up(seams, MS_THREADS), MS_THREADS, 0, d->stream>>>(d->width, d->height, join, d->parent);
}

sb_status ms_tiles_components(ms_device *d, const uint8_t *join, int32_t *comp, sb_error *err)
{
    dim3 tile(CCL_TILE, CCL_TILE), tiles(sb_div_up(d->width, CCL_TILE), sb_div_up(d->height, CCL_TILE));
    tile_unions<<<tiles, tile, 0, d->stream>>>(d->width, d->height, join, d->parent);
    ms_seam_unions(d, join);
    SB_CUDA_LAUNCHED(err, d->who);
    return ccl_device_roots(d->n, d->parent, comp, d->stream, d->who, err);
}

/* ---- the rung -------------------------------------------------------------------------- */

static const ms_regions rung_regions = { ms_tiles_components, ms_warp_region_sums, nullptr, ms_host_merge };

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return ms_device_open(state, sizeof(ms_device), step, &rung_regions, in, params, output, exec, err);
}

MS_STEP_PREPARE(flood_prepare, rung_prepare, SB_MS_FLOOD)
MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-flood", "cuda-tiles", "cuda-global", "cuda-shared", 0,
             "union-find in 32x32 shared-memory tiles first, then only the seams in global memory",
             flood_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
SB_CUDA_RUNG("meanshift-merge", "cuda-tiles", "cuda-global", "cuda-shared", 0,
             "the fusion union-find in 32x32 shared-memory tiles first, then only the seams",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
SB_CUDA_RUNG("meanshift", "cuda-tiles", "cuda-global", "cuda-shared", 0,
             "flood and merge with the union-find in shared-memory tiles first",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
