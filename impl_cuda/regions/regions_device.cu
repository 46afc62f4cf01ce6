/* regions_device.cu - connectivity enforcement on the device (see
 * regions_device.cuh and include/segbench/regions.h). */
#include "regions_device.cuh"

#include "segbench/regions.h"

#include <cub/device/device_scan.cuh>

enum { RG_THREADS = 256, RG_TILE = 32 };

/* Reads go past L1 (volatile): other threads relink roots with atomics.
 * The same code serves the links in shared and in global memory. */
__device__ __forceinline__ int32_t rg_find(const int32_t *parent, int32_t i)
{
    const volatile int32_t *link = parent;
    int32_t p;
    while ((p = link[i]) != i)
        i = p;
    return i;
}

/* Join the sets of a and b; the smaller root wins (see the header). */
__device__ __forceinline__ void rg_union(int32_t *parent, int32_t a, int32_t b)
{
    bool done;
    do {
        a = rg_find(parent, a);
        b = rg_find(parent, b);
        if (a < b) {
            int32_t old = atomicMin(&parent[b], a);
            done = old == b;
            b = old;
        } else if (b < a) {
            int32_t old = atomicMin(&parent[a], b);
            done = old == a;
            a = old;
        } else {
            done = true;
        }
    } while (!done);
}

/* Step 1a, in 32x32 tiles: union-find in shared memory over the tile's
 * pixels (local indices, which run in the same order as global ones), so
 * each pixel's link points straight at its tile-local root, the smallest
 * index of its piece of the tile.  Also clears the per-root arrays. */
__global__ void __launch_bounds__(RG_TILE * RG_TILE)
    rg_tile(int width, int height, const int32_t *labels, int32_t *parent, int32_t *size, unsigned long long *best)
{
    __shared__ int32_t lab[RG_TILE * RG_TILE], link[RG_TILE * RG_TILE];
    int tx = threadIdx.x, ty = threadIdx.y, t = ty * RG_TILE + tx;
    int x0 = blockIdx.x * RG_TILE, y0 = blockIdx.y * RG_TILE, x = x0 + tx, y = y0 + ty;
    bool in = x < width && y < height;
    size_t i = (size_t)y * width + x;
    lab[t] = in ? labels[i] : 0;      /* outside pixels are never compared */
    link[t] = t;
    __syncthreads();
    if (in) {
        if (tx > 0 && lab[t - 1] == lab[t])
            rg_union(link, t, t - 1);
        if (ty > 0 && lab[t - RG_TILE] == lab[t])
            rg_union(link, t, t - RG_TILE);
    }
    __syncthreads();
    if (in) {
        int r = rg_find(link, t);
        parent[i] = (int32_t)((size_t)(y0 + r / RG_TILE) * width + x0 + r % RG_TILE);
        size[i] = 0;
        best[i] = 0;
    }
}

/* Step 1b: join across the tiles' left and top edges, in global memory. */
__global__ void rg_seams(int width, unsigned n, const int32_t *labels, int32_t *parent)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = i % width, y = i / width;
    if (x % RG_TILE == 0 && x > 0 && labels[i - 1] == labels[i])
        rg_union(parent, (int32_t)i, (int32_t)i - 1);
    if (y % RG_TILE == 0 && y > 0 && labels[i - width] == labels[i])
        rg_union(parent, (int32_t)i, (int32_t)(i - width));
}

/* Each pixel's root, and the sizes: lanes with the same root add once. */
__global__ void rg_flatten_count(unsigned n, const int32_t *parent, int32_t *comp, int32_t *size)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int32_t root = rg_find(parent, (int32_t)i);
    comp[i] = root;
    unsigned peers = __match_any_sync(__activemask(), root);
    if ((threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1))
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

__global__ void rg_link(unsigned n, const int32_t *comp, const int32_t *size, const unsigned long long *best,
                        int32_t *parent, int min_piece)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || comp[i] != (int32_t)i)
        return;
    unsigned long long own = sb_regions_key((uint32_t)size[i], i);
    parent[i] = size[i] < min_piece && best[i] > own ? (int32_t)sb_regions_key_root(best[i]) : (int32_t)i;
}

/* Follow the pointers (they climb in key order, so they end); flag the
 * kept roots for the numbering. */
__global__ void rg_final(unsigned n, const int32_t *comp, const int32_t *parent, int32_t *final_root, int32_t *kept)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int flag = 0;
    if (comp[i] == (int32_t)i) {
        int32_t f = (int32_t)i;
        while (parent[f] != f)
            f = parent[f];
        final_root[i] = f;
        flag = f == (int32_t)i;
    }
    kept[i] = flag;
}

__global__ void rg_label(unsigned n, const int32_t *comp, const int32_t *final_root, const int32_t *number,
                         const int32_t *kept, int32_t *labels, int *count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    labels[i] = number[final_root[comp[i]]];
    if (i == n - 1)
        *count = number[i] + kept[i];
}

sb_status rg_device_alloc(rg_device *r, int width, int height, const char *who, sb_error *err)
{
    memset(r, 0, sizeof *r);
    r->width = width;
    r->height = height;
    r->n = (unsigned)width * (unsigned)height;
    size_t n = r->n;
    SB_CUDA_TRY(cudaMalloc(&r->parent, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->comp, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->size, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->final_root, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->number, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->best, n * sizeof(unsigned long long)), err, who);
    SB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, r->scan_bytes, r->size, r->number, (int)r->n), err, who);
    SB_CUDA_TRY(cudaMalloc(&r->scan_temp, r->scan_bytes), err, who);
    return SB_OK;
}

void rg_device_free(rg_device *r)
{
    cudaFree(r->parent);
    cudaFree(r->comp);
    cudaFree(r->size);
    cudaFree(r->final_root);
    cudaFree(r->number);
    cudaFree(r->best);
    cudaFree(r->scan_temp);
    memset(r, 0, sizeof *r);
}

sb_status rg_device_enforce(rg_device *r, int32_t *labels, int min_piece, int *count, cudaStream_t stream,
                            const char *who, sb_error *err)
{
    unsigned n = r->n, blocks = sb_div_up(n, RG_THREADS);
    dim3 tile(RG_TILE, RG_TILE), tiles(sb_div_up(r->width, RG_TILE), sb_div_up(r->height, RG_TILE));
    rg_tile<<<tiles, tile, 0, stream>>>(r->width, r->height, labels, r->parent, r->size, r->best);
    rg_seams<<<blocks, RG_THREADS, 0, stream>>>(r->width, n, labels, r->parent);
    rg_flatten_count<<<blocks, RG_THREADS, 0, stream>>>(n, r->parent, r->comp, r->size);
    rg_best<<<blocks, RG_THREADS, 0, stream>>>(r->width, n, r->comp, r->size, r->best, min_piece);
    rg_link<<<blocks, RG_THREADS, 0, stream>>>(n, r->comp, r->size, r->best, r->parent, min_piece);
    int32_t *kept = r->size;      /* sizes are not needed after rg_link */
    rg_final<<<blocks, RG_THREADS, 0, stream>>>(n, r->comp, r->parent, r->final_root, kept);
    SB_CUDA_LAUNCHED(err, who);
    SB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(r->scan_temp, r->scan_bytes, kept, r->number, (int)n, stream), err,
                who);
    rg_label<<<blocks, RG_THREADS, 0, stream>>>(n, r->comp, r->final_root, r->number, kept, labels, count);
    SB_CUDA_LAUNCHED(err, who);
    return SB_OK;
}
