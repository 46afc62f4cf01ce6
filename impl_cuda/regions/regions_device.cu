/* regions_device.cu - connectivity enforcement on the device (see
 * regions_device.cuh and include/segbench/regions.h). */
#include "regions_device.cuh"

#include "segbench/regions.h"

#include "union_find.cuh"

#include <cub/device/device_scan.cuh>

enum { RG_THREADS = 256, RG_TILE = 32 };   /* RG_THREADS a multiple of 32: a warp is a word of the bitmaps */
static const unsigned RG_FULL_MASK = 0xffffffffu;

/* Step 1a, in 32x32 tiles, in shared memory (a warp is one row of a
 * tile; local indices run in the same order as global ones):
 *   - runs: each pixel links to the first pixel of its run of equal
 *     labels in its row, found from a ballot -- no atomics;
 *   - a union with the row above only where a run meets a run above for
 *     the first time (not again for every pixel of an overlap);
 *   - then pointer jumping until each pixel's link points at its
 *     tile-local root, the smallest index of its piece of the tile.
 * Also clears the per-root arrays. */
__global__ void __launch_bounds__(RG_TILE * RG_TILE)
    rg_tile(int width, int height, const int32_t *labels, int32_t *parent, int32_t *size, unsigned long long *best)
{
    __shared__ int32_t lab[RG_TILE * RG_TILE], link[RG_TILE * RG_TILE];
    int tx = threadIdx.x, ty = threadIdx.y, t = ty * RG_TILE + tx;
    int x0 = blockIdx.x * RG_TILE, y0 = blockIdx.y * RG_TILE, x = x0 + tx, y = y0 + ty;
    bool in = x < width && y < height;
    size_t i = (size_t)y * width + x;
    lab[t] = in ? labels[i] : 0;
    __syncthreads();
    /* neighbours inside the image with the same label (outside pixels
     * join nothing, so they cannot connect two pieces) */
    bool same_left = in && tx > 0 && lab[t - 1] == lab[t];
    bool same_up = in && ty > 0 && lab[t - RG_TILE] == lab[t];
    bool left_same_up = same_up && same_left && lab[t - RG_TILE - 1] == lab[t - 1];
    unsigned starts = __ballot_sync(0xffffffffu, !same_left);
    int run_start = 31 - __clz(starts & (0xffffffffu >> (31 - tx)));
    link[t] = ty * RG_TILE + run_start;
    __syncthreads();
    if (same_up && !left_same_up)
        rg_union(link, t, t - RG_TILE);
    __syncthreads();
    /* pointer jumping: every link halves its distance to the root each
     * round, so chains as long as the tile is high go in a few rounds */
    int up = link[t];
    while (__syncthreads_or(up != link[up])) {
        up = link[up];
        __syncthreads();
        link[t] = up;
        __syncthreads();
    }
    if (in) {
        int r = up;
        parent[i] = (int32_t)((size_t)(y0 + r / RG_TILE) * width + x0 + r % RG_TILE);
        size[i] = 0;
        best[i] = 0;
    }
}

/* Step 1b: join across the tiles' edges, in global memory: one thread per
 * pixel on a vertical seam (x a multiple of 32), then per pixel on a
 * horizontal seam. */
__global__ void rg_seams(int width, int height, const int32_t *labels, int32_t *parent)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned vertical = (unsigned)((width - 1) / RG_TILE) * (unsigned)height;
    unsigned horizontal = (unsigned)((height - 1) / RG_TILE) * (unsigned)width;
    if (j < vertical) {
        size_t i = (size_t)(j % height) * width + (j / height + 1) * RG_TILE;
        if (labels[i - 1] == labels[i])
            rg_union(parent, (int32_t)i, (int32_t)i - 1);
    } else if (j < vertical + horizontal) {
        j -= vertical;
        size_t i = (size_t)((j / width + 1) * RG_TILE) * width + j % width;
        if (labels[i - width] == labels[i])
            rg_union(parent, (int32_t)i, (int32_t)(i - width));
    }
}

/* Each pixel's root, and the sizes: lanes with the same root add once.
 * The roots are also marked, a bit a pixel: a warp is 32 consecutive
 * pixels from a multiple of 32, so its ballot is one word of the bitmap,
 * and a plain store writes it.  Every lane reaches the ballot (none
 * returns early): after rg_find's loop, whose trips differ by lane,
 * __activemask() would name only the lanes converged with the caller. */
__global__ void rg_flatten_count(unsigned n, const int32_t *parent, int32_t *comp, int32_t *size,
                                 unsigned *is_root)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    bool in = i < n;
    int32_t root = in ? rg_find(parent, (int32_t)i) : -1;
    unsigned roots = __ballot_sync(RG_FULL_MASK, in && root == (int32_t)i);
    if (!in)
        return;
    comp[i] = root;
    if (lane == 0)
        is_root[i / 32] = roots;
    unsigned peers = __match_any_sync(__activemask(), root);
    if (lane == (unsigned)(__ffs(peers) - 1))
        atomicAdd(&size[root], __popc(peers));
}

__device__ __forceinline__ void rg_note(unsigned long long *best, const int32_t *size, int32_t small, int32_t other,
                                        int min_piece)
{
    if (size[small] < min_piece)
        atomicMax(&best[small], (unsigned long long)sb_regions_key((uint32_t)size[other], (uint32_t)other));
}

/* Every touching pair of components (right and lower neighbours). */
__global__ void rg_best(int width, unsigned n, const int32_t *comp, const int32_t *size, unsigned long long *best,
                        int min_piece)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int32_t ci = comp[i];
    int32_t nb[2] = { (i + 1) % width != 0 ? comp[i + 1] : ci, i + width < n ? comp[i + width] : ci };
    for (int d = 0; d < 2; d++)
        if (nb[d] != ci) {
            rg_note(best, size, ci, nb[d], min_piece);
            rg_note(best, size, nb[d], ci, min_piece);
        }
}

/* Steps 2 and 3 for each root (its bit in is_root): follow the
 * pointers -- a small component points to its largest neighbour if that
 * one is larger than itself -- to their end (they climb in key order, so
 * they end).  The kept roots -- those whose pointers end at themselves --
 * are a warp's ballot, one word of `kept`, stored with its popcount for
 * the numbering's scan. */
__global__ void rg_final(unsigned n, const unsigned *is_root, const int32_t *size, const unsigned long long *best,
                         int32_t *final_root, unsigned *kept, int32_t *kept_in_word, int min_piece)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    bool root = i < n && (is_root[i / 32] >> lane & 1u);
    uint32_t f = i;
    if (root) {
        for (;;) {
            uint64_t own = sb_regions_key((uint32_t)size[f], f);
            if (size[f] >= min_piece || best[f] <= own)
                break;
            f = sb_regions_key_root(best[f]);
        }
        final_root[i] = (int32_t)f;
    }
    unsigned keep = __ballot_sync(RG_FULL_MASK, root && f == i);
    if (lane == 0 && i < n) {
        kept[i / 32] = keep;
        kept_in_word[i / 32] = __popc(keep);
    }
}

/* A kept root's number: the kept roots before it in index order. */
__device__ __forceinline__ int32_t rg_number(const unsigned *kept, const int32_t *before_word, uint32_t f)
{
    return before_word[f / 32] + __popc(kept[f / 32] & ((1u << (f % 32)) - 1));
}

__global__ void rg_label(unsigned n, const int32_t *comp, const int32_t *final_root, const unsigned *kept,
                         const int32_t *before_word, int32_t *labels, int *count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    labels[i] = rg_number(kept, before_word, (uint32_t)final_root[comp[i]]);
    if (i == n - 1) {
        unsigned last = (n - 1) / 32;
        *count = before_word[last] + __popc(kept[last]);
    }
}

sb_status rg_device_alloc(rg_device *r, int width, int height, const char *who, sb_error *err)
{
    memset(r, 0, sizeof *r);
    r->width = width;
    r->height = height;
    r->n = (unsigned)width * (unsigned)height;
    r->words = sb_div_up(r->n, 32);
    size_t n = r->n, words = r->words;
    SB_CUDA_TRY(cudaMalloc(&r->parent, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->comp, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->size, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->final_root, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->is_root, words * sizeof(unsigned)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->best, n * sizeof(unsigned long long)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->kept, words * sizeof(unsigned)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->kept_in_word, words * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->before_word, words * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, r->scan_bytes, r->kept_in_word, r->before_word, (int)words),
                err, who);
    SB_CUDA_TRY(cudaMalloc(&r->scan_temp, r->scan_bytes), err, who);
    return SB_OK;
}

void rg_device_free(rg_device *r)
{
    cudaFree(r->parent);
    cudaFree(r->comp);
    cudaFree(r->size);
    cudaFree(r->final_root);
    cudaFree(r->is_root);
    cudaFree(r->best);
    cudaFree(r->kept);
    cudaFree(r->kept_in_word);
    cudaFree(r->before_word);
    cudaFree(r->scan_temp);
    memset(r, 0, sizeof *r);
}

sb_status rg_device_enforce(rg_device *r, int32_t *labels, int min_piece, int *count, cudaStream_t stream,
                            const char *who, sb_error *err)
{
    unsigned n = r->n, blocks = sb_div_up(n, RG_THREADS), words = r->words;
    dim3 tile(RG_TILE, RG_TILE), tiles(sb_div_up(r->width, RG_TILE), sb_div_up(r->height, RG_TILE));
    rg_tile<<<tiles, tile, 0, stream>>>(r->width, r->height, labels, r->parent, r->size, r->best);
    unsigned seam_pixels = (unsigned)((r->width - 1) / RG_TILE) * r->height +
                           (unsigned)((r->height - 1) / RG_TILE) * r->width;
    if (seam_pixels)
        rg_seams<<<sb_div_up(seam_pixels, RG_THREADS), RG_THREADS, 0, stream>>>(r->width, r->height, labels,
                                                                                r->parent);
    rg_flatten_count<<<blocks, RG_THREADS, 0, stream>>>(n, r->parent, r->comp, r->size, r->is_root);
    rg_best<<<blocks, RG_THREADS, 0, stream>>>(r->width, n, r->comp, r->size, r->best, min_piece);
    rg_final<<<blocks, RG_THREADS, 0, stream>>>(n, r->is_root, r->size, r->best, r->final_root, r->kept,
                                                r->kept_in_word, min_piece);
    SB_CUDA_LAUNCHED(err, who);
    SB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(r->scan_temp, r->scan_bytes, r->kept_in_word, r->before_word,
                                              (int)words, stream),
                err, who);
    rg_label<<<blocks, RG_THREADS, 0, stream>>>(n, r->comp, r->final_root, r->kept, r->before_word, labels, count);
    SB_CUDA_LAUNCHED(err, who);
    return SB_OK;
}
