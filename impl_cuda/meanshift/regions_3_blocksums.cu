/* regions_3_blocksums.cu - mean-shift's merge with each block's region
 * sums gathered in shared memory first (variant "cuda-blocksums" of the
 * merge and pipeline steps).
 *
 * Grows from cuda-tiles: the region sums.  cuda-tiles' warp leaders add to
 * the regions' totals in global memory, and on a large region every warp
 * hits the same four addresses, which serialise in L2.  Here each block
 * of 1024 pixels keeps a small table of its regions' partial sums in
 * shared memory and adds each entry to global memory once: 32 times
 * fewer global atomics on a large region.  The components are
 * cuda-tiles'.  Flood adds no sums: its rung stays cuda-tiles.
 *
 */
#include "filter_1_global.cuh"

#include "segbench/ccl.h"

#include "../regions/union_find.cuh"
#include "../warp.cuh"

/* ---- components: unions in 32x32 shared-memory tiles, then the seams --------------------- */

enum { CCL_TILE = 32 };

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

static sb_status rung_components(ms_device *d, const uint8_t *join, int32_t *comp, sb_error *err)
{
    dim3 tile(CCL_TILE, CCL_TILE), tiles(sb_div_up(d->width, CCL_TILE), sb_div_up(d->height, CCL_TILE));
    tile_unions<<<tiles, tile, 0, d->stream>>>(d->width, d->height, join, d->parent);
    unsigned seams = (unsigned)((d->width - 1) / CCL_TILE) * d->height + (unsigned)((d->height - 1) / CCL_TILE) * d->width;
    if (seams)
        seam_unions<<<sb_div_up(seams, MS_THREADS), MS_THREADS, 0, d->stream>>>(d->width, d->height, join, d->parent);
    SB_CUDA_LAUNCHED(err, d->who);
    return ccl_device_roots(d->n, d->parent, comp, d->stream, d->who, err);
}

/* ---- region sums: a table a block in shared memory, then global memory ------------------- *
 *
 * A block of 1024 consecutive pixels holds a few regions; each warp's
 * leaders add into a small table in shared memory keyed by label, and the
 * block adds each entry to global memory once.  A label that finds no free slot within MS_SUM_PROBE of its own goes
 * straight to global memory: where a block holds many small regions
 * (board), a probe of the whole table cost more than it saved.  Slots
 * are never freed, so a label already in the table is always found
 * within the same probe. */
enum { MS_SUM_THREADS = 1024, MS_SUM_SLOTS = 64, MS_SUM_PROBE = 8 };

static __global__ void __launch_bounds__(MS_SUM_THREADS)
    block_sums(unsigned n, const int32_t *label, const uint32_t *colour, int32_t *count, unsigned long long *sum)
{
    __shared__ int32_t key[MS_SUM_SLOTS];
    __shared__ unsigned k_of[MS_SUM_SLOTS], L_of[MS_SUM_SLOTS], u_of[MS_SUM_SLOTS], v_of[MS_SUM_SLOTS];
    if (threadIdx.x < MS_SUM_SLOTS) {
        key[threadIdx.x] = -1;
        k_of[threadIdx.x] = L_of[threadIdx.x] = u_of[threadIdx.x] = v_of[threadIdx.x] = 0;
    }
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int32_t r = label[i];
        uint32_t c = colour[i];
        unsigned peers = __match_any_sync(__activemask(), r);
        unsigned L = sb_warp_sum(peers, c & 255u), u = sb_warp_sum(peers, c >> 8 & 255u),
                 v = sb_warp_sum(peers, c >> 16 & 255u);
        if ((threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) {
            unsigned slot = (unsigned)r % MS_SUM_SLOTS, tries = 0;
            int32_t held;
            while ((held = atomicCAS(&key[slot], -1, r)) != -1 && held != r && ++tries < MS_SUM_PROBE)
                slot = (slot + 1) % MS_SUM_SLOTS;
            if (held == -1 || held == r) {     /* at most 1024 x 255 in a slot: no overflow */
                atomicAdd(&k_of[slot], __popc(peers));
                atomicAdd(&L_of[slot], L);
                atomicAdd(&u_of[slot], u);
                atomicAdd(&v_of[slot], v);
            } else {
                ms_add_global(count, sum, r, __popc(peers), L, u, v);
            }
        }
    }
    __syncwarp();                              /* the leaders' loops rejoin before the barrier */
    __syncthreads();
    if (threadIdx.x < MS_SUM_SLOTS && key[threadIdx.x] != -1) {
        unsigned s = threadIdx.x;
        ms_add_global(count, sum, key[s], k_of[s], L_of[s], u_of[s], v_of[s]);
    }
}

static sb_status rung_region_sums(ms_device *d, const int32_t *label, const uint32_t *colour, sb_error *err)
{
    block_sums<<<sb_div_up(d->n, MS_SUM_THREADS), MS_SUM_THREADS, 0, d->stream>>>(d->n, label, colour, d->count,
                                                                              d->sum);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the merge, driven by the host ------------------------------------------------------- *
 *
 * start, then pruning rounds while a region merged, then finish.  How
 * many rounds an image takes is known only on the device, so every round
 * copies a 4-byte "did anything merge?" flag back and waits for it. */

static sb_status rung_merge(ms_device *d, const uint32_t *colour, const int32_t *flood, int32_t *labels,
                            sb_error *err)
{
    sb_status st = ms_merge_start(d, colour, flood, err);
    for (int round = 0; !st && round < SB_MS_MAX_PRUNE && d->p.min_area > 1; round++) {
        if ((st = ms_prune_mark(d, colour, d->comp, err)))
            break;
        SB_CUDA_TRY(cudaMemcpyAsync(d->host_flags + 1, d->flags + 1, sizeof(int), cudaMemcpyDeviceToHost,
                                    d->stream), err, d->who);
        SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
        if (!d->host_flags[1])
            break;
        st = ms_prune_apply(d, d->comp, err);
    }
    return st ? st : ms_merge_finish(d, d->comp, labels, err);
}

/* ---- the rung -------------------------------------------------------------------------- */

static const ms_regions rung_regions = { rung_components, rung_region_sums, nullptr, rung_merge };

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return ms_device_open(state, sizeof(ms_device), step, &rung_regions, in, params, output, exec, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    ms_device *d = (ms_device *)state;
    return ms_run(d, [d](sb_error *e) { return ms_filter_global(d, e); }, err);
}

MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_VARIANT("meanshift-merge", "cuda-blocksums", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "as cuda-tiles with each block's region sums gathered in a shared-memory table first",
           merge_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, ms_device_close)
SB_VARIANT("meanshift", "cuda-blocksums", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "the cuda-global filter, the tiled flood, the merge with block-summed region sums",
           pipeline_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, ms_device_close)
SB_RUNG("meanshift-merge", "cuda-blocksums", "cuda-tiles",
        "region sums gathered per block in a shared-memory table, one global atomic a region and block")
SB_RUNG("meanshift", "cuda-blocksums", "cuda-tiles", "the merge's region sums gathered per block in shared memory first")
