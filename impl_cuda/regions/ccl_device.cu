/* ccl_device.cu - components from join bits (ccl_device.cuh). */
#include "ccl_device.cuh"

#include "segbench/ccl.h"

#include "union_find.cuh"

enum { CCL_THREADS = 256, CCL_TILE = 32 };

/* ---- global: a thread a pixel, unions in global memory ---------------------------- */

__global__ void ccl_init(unsigned n, int32_t *parent)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        parent[i] = (int32_t)i;
}

__global__ void ccl_union_global(int width, unsigned n, const uint8_t *join, int32_t *parent)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint8_t bits = join[i];
    if (bits & SB_CCL_LEFT)
        rg_union(parent, (int32_t)i, (int32_t)i - 1);
    if (bits & SB_CCL_UP)
        rg_union(parent, (int32_t)i, (int32_t)(i - width));
}

/* ---- tiled: shared memory first --------------------------------------------------- */

/* A warp is one row of a tile; local indices run in the same order as
 * global ones, so a tile's smallest local index is its smallest global one. */
__global__ void __launch_bounds__(CCL_TILE * CCL_TILE)
    ccl_tile(int width, int height, const uint8_t *join, int32_t *parent)
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
__global__ void ccl_seams(int width, int height, const uint8_t *join, int32_t *parent)
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

__global__ void ccl_flatten(unsigned n, const int32_t *parent, int32_t *comp)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        comp[i] = rg_find(parent, (int32_t)i);
}

sb_status ccl_device_components(ccl_scheme scheme, int width, int height, const uint8_t *join, int32_t *parent,
                                int32_t *comp, cudaStream_t stream, const char *who, sb_error *err)
{
    unsigned n = (unsigned)width * (unsigned)height, blocks = sb_div_up(n, CCL_THREADS);
    if (scheme == CCL_GLOBAL) {
        ccl_init<<<blocks, CCL_THREADS, 0, stream>>>(n, parent);
        ccl_union_global<<<blocks, CCL_THREADS, 0, stream>>>(width, n, join, parent);
    } else {
        dim3 tile(CCL_TILE, CCL_TILE), tiles(sb_div_up(width, CCL_TILE), sb_div_up(height, CCL_TILE));
        ccl_tile<<<tiles, tile, 0, stream>>>(width, height, join, parent);
        unsigned seam = (unsigned)((width - 1) / CCL_TILE) * height + (unsigned)((height - 1) / CCL_TILE) * width;
        if (seam)
            ccl_seams<<<sb_div_up(seam, CCL_THREADS), CCL_THREADS, 0, stream>>>(width, height, join, parent);
    }
    ccl_flatten<<<blocks, CCL_THREADS, 0, stream>>>(n, parent, comp);
    SB_CUDA_LAUNCHED(err, who);
    return SB_OK;
}
