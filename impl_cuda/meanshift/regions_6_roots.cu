/* regions_6_roots.cu - cuda-roots of meanshift-flood, -merge and the
 * pipeline.  A branch of cuda-blocks, which loses.  The idea: the tile roots'
 * chains resolved once, so each pixel needs two loads. */
#include "regions_3_blocksums.cuh"
#include "regions_4_graph.cuh"
#include "regions_5_blocks.cuh"
#include "filter_1_global.cuh"

#include "segbench/ccl.h"

#include "../regions/union_find.cuh"
#include "../warp.cuh"

/* The rung's state: the list of tile-local roots beside the shared part. */
struct rung_state {
    ms_device dev;
    int32_t *roots;             /* the tile-local roots, as global indices */
    unsigned *root_count;       /* how many */
};

/* ---- components: cuda-blocks' 2x2 blocks in the tiles, each tile root listed ------------------ */

/* A tile is 16x16 threads; local indices run in the same order as global
 * ones, so a tile's smallest local index is its smallest global one. */
static __global__ void __launch_bounds__(CCL_BLOCKS * CCL_BLOCKS)
    tile_unions(int width, int height, const uint8_t *join, int32_t *parent, int32_t *roots, unsigned *root_count)
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
    unsigned listed = 0;        /* bit k: pixel k is a tile-local root */
    for (int k = 0; k < 4; k++) {
        int x = x0 + lx + (k & 1), y = y0 + ly + (k >> 1);
        if (x < width && y < height) {
            parent[(size_t)y * width + x] =
                (int32_t)((size_t)(y0 + root[k] / CCL_TILE) * width + x0 + root[k] % CCL_TILE);
            if (root[k] == t + block_at(k))
                listed |= 1u << k;
        }
    }
    /* the tile-local roots onto the list: one atomic a warp */
    unsigned lane = (threadIdx.x + CCL_BLOCKS * threadIdx.y) & 31, mine = __popc(listed);
    unsigned through = warp_inclusive_scan(mine, (int)lane), before = through - mine,
             total = __shfl_sync(LANES_ALL, through, 31);
    unsigned base = 0;
    if (lane == 31 && total)
        base = atomicAdd(root_count, total);
    base = __shfl_sync(LANES_ALL, base, 31) + before;
    for (int k = 0; k < 4; k++)
        if (listed >> k & 1)
            roots[base++] = (int32_t)((size_t)(y0 + ly + (k >> 1)) * width + x0 + lx + (k & 1));
}

/* Each listed root linked straight to the end of its chain.  Other
 * threads walk through it meanwhile and read the old link or the end:
 * both lie on the way. */
static __global__ void resolve_roots(const unsigned *root_count, const int32_t *roots, int32_t *parent)
{
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < *root_count; k += gridDim.x * blockDim.x) {
        int32_t r = roots[k];
        parent[r] = rg_find(parent, r);
    }
}

/* Every pixel's root: its tile-local root's root. */
static __global__ void pixel_roots(unsigned n, const int32_t *parent, int32_t *comp)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        comp[i] = parent[parent[i]];
}

enum { RESOLVE_BLOCKS = 264 };

static sb_status rung_components(ms_device *d, const uint8_t *join, int32_t *comp, sb_error *err)
{
    rung_state *s = (rung_state *)d;
    dim3 tile(CCL_BLOCKS, CCL_BLOCKS), tiles(sb_div_up(d->width, CCL_TILE), sb_div_up(d->height, CCL_TILE));
    SB_CUDA_TRY(cudaMemsetAsync(s->root_count, 0, sizeof *s->root_count, d->stream), err, d->who);
    tile_unions<<<tiles, tile, 0, d->stream>>>(d->width, d->height, join, d->parent, s->roots, s->root_count);
    ms_seam_unions(d, join);
    resolve_roots<<<RESOLVE_BLOCKS, MS_THREADS, 0, d->stream>>>(s->root_count, s->roots, d->parent);
    MS_LAUNCH(pixel_roots, d->n, d->parent, comp);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the rung -------------------------------------------------------------------------- */

static const ms_regions rung_regions = { rung_components, ms_block_region_sums, nullptr, nullptr };

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = ms_device_open(state, sizeof(rung_state), step, &rung_regions, in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    SB_CUDA_TRY(cudaMalloc(&s->roots, s->dev.n * sizeof *s->roots), err, s->dev.who);
    SB_CUDA_TRY(cudaMalloc(&s->root_count, sizeof *s->root_count), err, s->dev.who);
    if (step == SB_MS_FLOOD)            /* the flood has no merge */
        return SB_OK;
    return ms_merge_graph_build(&s->dev, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s) {
        cudaFree(s->roots);
        cudaFree(s->root_count);
    }
    ms_device_close(s);
}

MS_STEP_PREPARE(flood_prepare, rung_prepare, SB_MS_FLOOD)
MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-flood", "cuda-roots", "cuda-blocks", "cuda-shared", 0,
             "the tile roots listed, each resolved once down its chain; every pixel then two loads",
             flood_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rung_release)
SB_CUDA_RUNG("meanshift-merge", "cuda-roots", "cuda-blocks", "cuda-shared", SB_GRAPH_LOOP,
             "the fusion's trees resolved once per tile root",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rung_release)
SB_CUDA_RUNG("meanshift", "cuda-roots", "cuda-blocks", "cuda-shared", SB_GRAPH_LOOP,
             "component trees resolved once per tile root",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rung_release)
