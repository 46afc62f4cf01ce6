/* regions_7_rag.cu - mean-shift's merge on the graph of the flood's
 * regions instead of the pixels (variant "cuda-rag" of the merge and
 * pipeline steps).
 *
 * Grows from cuda-blocks: the merge.  There every step of the merge was
 * a pass over all W x H pixels: the fusion's join bits and a pixel-level
 * component labelling, and in each pruning round the region sums, the
 * best neighbours, the targets, the pointer ends and the relabelling --
 * some fifteen passes of 8 MB at 1080p to move a few thousand regions.
 * Here one pass over the pixels gathers what the merge needs of them:
 * each flood region's sums (cuda-blocksums' shared-memory table), the
 * list of the flood regions in pixel order, and the edges of the region
 * adjacency graph (each pair of touching regions, a warp's repeats sent
 * once).  Everything after works on that list and those edges:
 *   fusion  a union-find over the regions, joined along the edges whose
 *           two means lie within the join range (a flood region is
 *           connected, so this is the pixel labelling's partition);
 *   rounds  a region's sums are its flood regions' sums added up, its
 *           best neighbour the least key over its edges;
 *   finish  the regions numbered along the ordered list, and one last
 *           pass writes every pixel's number.
 * Every integer is the pixel version's, so the labels are too.  The
 * components (flood, in the pipeline) are cuda-blocks'; the graph with
 * its WHILE loop is cuda-graph's, recorded around these kernels.
 *
 */
#include "filter_1_global.cuh"

#include "segbench/ccl.h"

#include "../regions/union_find.cuh"
#include "../warp.cuh"

#include <climits>

/* The rung's state: the region graph beside the shared part. */
struct rung_state {
    ms_device dev;
    int32_t *regions;           /* the flood regions' roots, in pixel order */
    int32_t *scratch;           /* a block's roots before the list is ordered (n) */
    unsigned *block_roots;      /* roots in each block of MS_SUM_THREADS pixels, then their offsets */
    int2 *edges;                /* touching pairs of flood regions (u < v), repeats allowed */
    unsigned *counts;           /* [0] regions, [1] edges */
    int32_t *round_count;       /* by current region: its pixels this round */
    unsigned long long *round_sum;
    unsigned blocks;            /* blocks of MS_SUM_THREADS pixels */
};

/* ---- components: 2x2 blocks, unions in 32x32 shared-memory tiles, then the seams ---------- *
 *
 * A thread holds a 2x2 block of pixels (a b / c d): it reads their join
 * bits once, finds the block's own components from its four inner joins,
 * and only each component's smallest pixel -- its representative --
 * takes part in the tile's union-find.  Most blocks of a segmentation are
 * one component, so a tile of 1024 pixels has some 256 nodes, a quarter
 * of the threads and about half the shared-memory unions (the joins
 * inside a block cost none). */

enum { CCL_TILE = 32, CCL_BLOCKS = CCL_TILE / 2 };

/* The offset of a, b, c or d (k = 0..3) from a in a tile's local indices. */
static __device__ __forceinline__ int block_at(int k) { return (k >> 1) * CCL_TILE + (k & 1); }

/* Each pixel's representative (an offset in block_at's terms) from the
 * block's inner joins: ab, ac, bd, cd.  Two sweeps reach every path of a
 * 2x2 block (the longest, a-c-d-b, has three edges). */
static __device__ __forceinline__ void block_components(const uint8_t j[4], int rep[4])
{
    bool ab = j[1] & SB_CCL_LEFT, cd = j[3] & SB_CCL_LEFT, ac = j[2] & SB_CCL_UP, bd = j[3] & SB_CCL_UP;
    for (int k = 0; k < 4; k++)
        rep[k] = block_at(k);
    for (int sweep = 0; sweep < 2; sweep++) {
        if (ab)
            rep[0] = rep[1] = min(rep[0], rep[1]);
        if (ac)
            rep[0] = rep[2] = min(rep[0], rep[2]);
        if (bd)
            rep[1] = rep[3] = min(rep[1], rep[3]);
        if (cd)
            rep[2] = rep[3] = min(rep[2], rep[3]);
    }
}

/* rg_find with path halving: each node on the way is linked to its
 * grandparent, so the trees of a tile stay shallow while its threads
 * union.  Only nodes that are no longer roots are written, with one of
 * their ancestors, and by atomicMin, as the unions write: a link only
 * ever moves to a smaller index, so every set stays whole. */
static __device__ __forceinline__ int32_t find_halving(int32_t *link, int32_t i)
{
    const volatile int32_t *l = link;
    int32_t p;
    while ((p = l[i]) != i) {
        int32_t g = l[p];
        if (g != p)
            atomicMin(&link[i], g);
        i = g;
    }
    return i;
}

/* rg_union over find_halving. */
static __device__ __forceinline__ void union_halving(int32_t *link, int32_t a, int32_t b)
{
    rg_union_by(link, a, b, find_halving);
}

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
    int rep[4];
    block_components(j, rep);
    for (int k = 0; k < 4; k++)
        link[t + block_at(k)] = t + rep[k];
    __syncthreads();
    /* to the block on the left (its b and d) and the one above (its c and
     * d), skipping each join that a path of joins already made:
     *   c's left join, where c shares a's representative, a joins left
     *     and the left block's b and d are joined;
     *   a's up join, where a joins left, the left block's b joins up and
     *     the upper block's c joins left (the pixel rule of cuda-tiles);
     *   b's up join, where b shares a's representative, a joins up and
     *     the upper block's c and d are joined. */
    bool a_left = j[0] & SB_CCL_LEFT, a_up = j[0] & SB_CCL_UP;
    if (a_left)
        union_halving(link, t, t - 1);
    if ((j[2] & SB_CCL_LEFT) && !(a_left && rep[2] == 0 && (bits[t + CCL_TILE - 1] & SB_CCL_UP)))
        union_halving(link, t + CCL_TILE, t + CCL_TILE - 1);
    if (a_up && !(a_left && (bits[t - 1] & SB_CCL_UP) && (bits[t - CCL_TILE] & SB_CCL_LEFT)))
        union_halving(link, t, t - CCL_TILE);
    if ((j[1] & SB_CCL_UP) && !(a_up && rep[1] == 0 && (bits[t - CCL_TILE + 1] & SB_CCL_LEFT)))
        union_halving(link, t + 1, t - CCL_TILE + 1);
    __syncthreads();
    /* no link changes now: each representative finds its tile-local root */
    int root[4];
    for (int k = 0; k < 4; k++)
        root[k] = rep[k] == block_at(k) ? find_halving(link, t + block_at(k))
                                        : root[rep[k] == 0 ? 0 : rep[k] == 1 ? 1 : 2];
    for (int k = 0; k < 4; k++) {
        int x = x0 + lx + (k & 1), y = y0 + ly + (k >> 1);
        if (x < width && y < height)
            parent[(size_t)y * width + x] =
                (int32_t)((size_t)(y0 + root[k] / CCL_TILE) * width + x0 + root[k] % CCL_TILE);
    }
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
    dim3 tile(CCL_BLOCKS, CCL_BLOCKS), tiles(sb_div_up(d->width, CCL_TILE), sb_div_up(d->height, CCL_TILE));
    tile_unions<<<tiles, tile, 0, d->stream>>>(d->width, d->height, join, d->parent);
    unsigned seams = (unsigned)((d->width - 1) / CCL_TILE) * d->height + (unsigned)((d->height - 1) / CCL_TILE) * d->width;
    if (seams)
        seam_unions<<<sb_div_up(seams, MS_THREADS), MS_THREADS, 0, d->stream>>>(d->width, d->height, join, d->parent);
    SB_CUDA_LAUNCHED(err, d->who);
    return ccl_device_roots(d->n, d->parent, comp, d->stream, d->who, err);
}

/* ---- the one pass over the pixels ----------------------------------------------------- *
 *
 * Each flood region's sums, a block's table in shared memory first
 * (cuda-blocksums'); the roots of the block, counted and parked at
 * scratch[block * MS_SUM_THREADS + their rank in the block]; and the edges
 * to the right and lower neighbours, the lanes of a warp that find the
 * same pair sending it once.  A label that finds no free slot within
 * MS_SUM_PROBE of its own goes straight to global memory. */
enum { MS_SUM_THREADS = 1024, MS_SUM_SLOTS = 64, MS_SUM_PROBE = 8, MS_WARPS = MS_SUM_THREADS / 32 };

/* One edge a distinct pair among the warp's lanes that have one. */
static __device__ __forceinline__ void send_edge(bool has, int32_t a, int32_t b, int2 *edges, unsigned *edge_count)
{
    if (!__any_sync(LANES_ALL, has))           /* inside a region: most warps */
        return;
    unsigned long long key = has ? (unsigned long long)(uint32_t)min(a, b) << 32 | (uint32_t)max(a, b) : ~0ull;
    unsigned same = __match_any_sync(LANES_ALL, key), lane = threadIdx.x & 31;
    bool leader = has && lane == (unsigned)(__ffs(same) - 1);
    unsigned leaders = __ballot_sync(LANES_ALL, leader), base = 0;
    if (leaders && lane == (unsigned)(__ffs(leaders) - 1))
        base = atomicAdd(edge_count, __popc(leaders));
    base = __shfl_sync(LANES_ALL, base, leaders ? __ffs(leaders) - 1 : 0);
    if (leader)
        edges[base + __popc(leaders & ((1u << lane) - 1))] = make_int2(min(a, b), max(a, b));
}

static __global__ void __launch_bounds__(MS_SUM_THREADS)
    pixel_pass(int width, unsigned n, const int32_t *label, const uint32_t *colour, int32_t *count,
               unsigned long long *sum, int32_t *scratch, unsigned *block_roots, int2 *edges, unsigned *edge_count)
{
    __shared__ int32_t key[MS_SUM_SLOTS];
    __shared__ unsigned k_of[MS_SUM_SLOTS], L_of[MS_SUM_SLOTS], u_of[MS_SUM_SLOTS], v_of[MS_SUM_SLOTS];
    __shared__ unsigned warp_roots[MS_WARPS];
    if (threadIdx.x < MS_SUM_SLOTS) {
        key[threadIdx.x] = -1;
        k_of[threadIdx.x] = L_of[threadIdx.x] = u_of[threadIdx.x] = v_of[threadIdx.x] = 0;
    }
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    bool in = i < n;
    int32_t r = in ? label[i] : -1;
    /* the edges first: every lane of the warp takes part */
    int32_t right = in && (i + 1) % width ? label[i + 1] : r, below = in && i + width < n ? label[i + width] : r;
    send_edge(right != r, r, right, edges, edge_count + 1);
    send_edge(below != r, r, below, edges, edge_count + 1);
    /* the block's roots, ranked in pixel order */
    unsigned roots = __ballot_sync(LANES_ALL, in && r == (int32_t)i);
    if (lane == 0)
        warp_roots[warp] = __popc(roots);
    if (in) {
        uint32_t c = colour[i];
        unsigned peers = __match_any_sync(__activemask(), r);
        unsigned L = sb_warp_sum(peers, c & 255u), u = sb_warp_sum(peers, c >> 8 & 255u),
                 v = sb_warp_sum(peers, c >> 16 & 255u);
        if (lane == (unsigned)(__ffs(peers) - 1)) {
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
    if (roots >> lane & 1) {
        unsigned rank = __popc(roots & ((1u << lane) - 1));
        for (unsigned w = 0; w < warp; w++)
            rank += warp_roots[w];
        scratch[(size_t)blockIdx.x * MS_SUM_THREADS + rank] = r;
    }
    if (threadIdx.x == 0) {
        unsigned total = 0;
        for (unsigned w = 0; w < MS_WARPS; w++)
            total += warp_roots[w];
        block_roots[blockIdx.x] = total;
    }
}

static __device__ __forceinline__ unsigned mean_byte(unsigned long long s, int n)
{
    return (unsigned)((2 * s + n) / (2 * (unsigned long long)n));
}

static __device__ __forceinline__ uint32_t mean_of(const int32_t *count, const unsigned long long *sum, int32_t r)
{
    int k = count[r];
    return sb_ms_pack(mean_byte(sum[3 * (size_t)r], k), mean_byte(sum[3 * (size_t)r + 1], k),
                      mean_byte(sum[3 * (size_t)r + 2], k));
}

/* The blocks' root counts to offsets (one block: a running total over
 * chunks of 1024), and the region count. */
static __global__ void __launch_bounds__(MS_SUM_THREADS) block_offsets(unsigned blocks, unsigned *block_roots,
                                                                      unsigned *region_count)
{
    __shared__ unsigned warp_total[MS_WARPS];
    __shared__ unsigned carry;
    if (threadIdx.x == 0)
        carry = 0;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    for (unsigned base = 0; base < blocks; base += MS_SUM_THREADS) {
        unsigned b = base + threadIdx.x, mine = b < blocks ? block_roots[b] : 0;
        unsigned through = warp_inclusive_scan(mine, (int)lane);
        if (lane == 31)
            warp_total[warp] = through;
        __syncthreads();
        unsigned before = carry + through - mine;
        for (unsigned w = 0; w < warp; w++)
            before += warp_total[w];
        __syncthreads();
        if (b < blocks)
            block_roots[b] = before;
        if (threadIdx.x == MS_SUM_THREADS - 1)
            carry = before + mine;
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *region_count = carry;
}

/* The parked roots into one list in pixel order, a block of threads a
 * block of pixels; and each flood region's mean, each its own set. */
static __global__ void __launch_bounds__(MS_SUM_THREADS)
    order_regions(const int32_t *scratch, const unsigned *block_offset, const unsigned *region_count, unsigned blocks,
                  const int32_t *count, const unsigned long long *sum, int32_t *regions, uint32_t *mean,
                  int32_t *link)
{
    unsigned b = blockIdx.x, end = b + 1 < blocks ? block_offset[b + 1] : *region_count;
    unsigned at = block_offset[b] + threadIdx.x;
    if (at < end) {
        int32_t u = scratch[(size_t)b * MS_SUM_THREADS + threadIdx.x];
        regions[at] = u;
        mean[u] = mean_of(count, sum, u);
        link[u] = u;
    }
}

/* ---- the region graph ----------------------------------------------------------------------- *
 *
 * The kernels below run over the list of flood regions or over the edges;
 * their lengths live on the device, so each walks them in a grid-stride
 * loop.  A flood region u is named by its root pixel; cur[u] is the root
 * of the region it belongs to now (d->comp, read only at flood roots). */
enum { LIST_BLOCKS = 264, LIST_THREADS = 256 };

#define FOR_EACH(k, length) \
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < (length); k += gridDim.x * blockDim.x)

/* Fusion: regions joined along the edges whose means lie within range. */
static __global__ void fuse(const unsigned *counts, const int2 *edges, const uint32_t *mean, int join2,
                            int32_t *link)
{
    FOR_EACH(k, counts[1])
    {
        int2 e = edges[k];
        if (sb_ms_d2(mean[e.x], mean[e.y]) <= join2)
            rg_union(link, e.x, e.y);
    }
}

/* A region's sums: each flood region's added into its current region's.
 * They start at zero; round_end, their last reader in a round, and
 * clear_sums at the end clear them. */
static __device__ __forceinline__ void add_sums(int32_t u, int32_t r, const int32_t *count,
                                                const unsigned long long *sum, int32_t *round_count,
                                                unsigned long long *round_sum)
{
    atomicAdd(&round_count[r], count[u]);
    for (int c = 0; c < 3; c++)
        atomicAdd(&round_sum[3 * (size_t)r + c], sum[3 * (size_t)u + c]);
}

/* Each flood region's fused root, and the first round's sums. */
static __global__ void fused_roots(const unsigned *counts, const int32_t *regions, const int32_t *link, int32_t *cur,
                                   const int32_t *count, const unsigned long long *sum, int32_t *round_count,
                                   unsigned long long *round_sum)
{
    FOR_EACH(k, counts[0])
    {
        int32_t u = regions[k], r = rg_find(link, u);
        cur[u] = r;
        add_sums(u, r, count, sum, round_count, round_sum);
    }
}

static __global__ void round_means(const unsigned *counts, const int32_t *regions, const int32_t *cur,
                                   const int32_t *round_count, const unsigned long long *round_sum, uint32_t *mean,
                                   unsigned long long *best)
{
    FOR_EACH(k, counts[0])
    {
        int32_t r = regions[k];
        if (cur[r] == r) {
            mean[r] = mean_of(round_count, round_sum, r);
            best[r] = ~0ull;
        }
    }
}

static __device__ __forceinline__ void note(unsigned long long *best, const int32_t *count, const uint32_t *mean,
                                            int32_t small, int32_t other, int min_area)
{
    if (count[small] < min_area)
        atomicMin(&best[small], (unsigned long long)sb_ms_prune_key(sb_ms_d2(mean[small], mean[other]), other));
}

static __global__ void round_best(const unsigned *counts, const int2 *edges, const int32_t *cur,
                                  const int32_t *round_count, const uint32_t *mean, unsigned long long *best,
                                  int min_area)
{
    FOR_EACH(k, counts[1])
    {
        int2 e = edges[k];
        int32_t a = cur[e.x], b = cur[e.y];
        if (a != b) {
            note(best, round_count, mean, a, b, min_area);
            note(best, round_count, mean, b, a, min_area);
        }
    }
}

/* A region's pointer: its best neighbour, or itself; of two that point
 * at each other, the smaller keeps itself. */
static __device__ __forceinline__ int32_t target_of(const unsigned long long *best, int32_t r)
{
    return best[r] == ~0ull ? r : (int32_t)(uint32_t)best[r];
}

static __device__ __forceinline__ int32_t pointer(const unsigned long long *best, int32_t r)
{
    int32_t t = target_of(best, r);
    return target_of(best, t) == r && r < t ? r : t;
}

/* Each region's pointers followed to their end; its sums are read for
 * the last time this round. */
static __global__ void round_end(const unsigned *counts, const int32_t *regions, const int32_t *cur,
                                 const unsigned long long *best, int32_t *end, int32_t *first, int32_t *round_count,
                                 unsigned long long *round_sum, int *merged)
{
    FOR_EACH(k, counts[0])
    {
        int32_t r = regions[k];
        if (cur[r] != r)
            continue;
        int32_t e = r, next;
        while ((next = pointer(best, e)) != e)
            e = next;
        end[r] = e;
        first[r] = INT_MAX;
        round_count[r] = 0;
        round_sum[3 * (size_t)r] = round_sum[3 * (size_t)r + 1] = round_sum[3 * (size_t)r + 2] = 0;
        if (e != r)
            *merged = 1;
    }
}

static __global__ void round_first(const unsigned *counts, const int32_t *regions, const int32_t *cur,
                                   const int32_t *end, int32_t *first)
{
    FOR_EACH(k, counts[0])
    {
        int32_t r = regions[k];
        if (cur[r] == r)
            atomicMin(&first[end[r]], r);
    }
}

/* Each flood region to its new region, and the next round's sums: a
 * thread reads and writes only its own cur[u], and end and first only at
 * this round's roots. */
static __global__ void round_relabel(const unsigned *counts, const int32_t *regions, const int32_t *end,
                                     const int32_t *first, int32_t *cur, const int32_t *count,
                                     const unsigned long long *sum, int32_t *round_count,
                                     unsigned long long *round_sum)
{
    FOR_EACH(k, counts[0])
    {
        int32_t u = regions[k], r = first[end[cur[u]]];
        cur[u] = r;
        add_sums(u, r, count, sum, round_count, round_sum);
    }
}

/* Another round while one merged and rounds remain; the flag is cleared
 * for the next round. */
static __global__ void ms_continue(cudaGraphConditionalHandle loop, int *merged, int *rounds)
{
    int done = ++*rounds;
    cudaGraphSetConditional(loop, *merged && done < SB_MS_MAX_PRUNE);
    *merged = 0;
}

/* ---- numbering ---------------------------------------------------------------------------- *
 *
 * The regions that remain are the flood roots u with cur[u] == u; along
 * the ordered list their ranks are their numbers.  One block scans the
 * list in chunks, then every pixel takes its region's number. */
static __global__ void __launch_bounds__(MS_SUM_THREADS) number_regions(const unsigned *counts,
                                                                       const int32_t *regions, const int32_t *cur,
                                                                       int32_t *number, int *region_total)
{
    __shared__ unsigned warp_total[MS_WARPS];
    __shared__ unsigned carry;
    if (threadIdx.x == 0)
        carry = 0;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32, length = counts[0];
    for (unsigned base = 0; base < length; base += MS_SUM_THREADS) {
        unsigned k = base + threadIdx.x;
        int32_t u = k < length ? regions[k] : 0;
        unsigned mine = k < length && cur[u] == u;
        unsigned through = warp_inclusive_scan(mine, (int)lane);
        if (lane == 31)
            warp_total[warp] = through;
        __syncthreads();
        unsigned before = carry + through - mine;
        for (unsigned w = 0; w < warp; w++)
            before += warp_total[w];
        __syncthreads();
        if (mine)
            number[u] = (int32_t)before;
        if (threadIdx.x == MS_SUM_THREADS - 1)
            carry = before + mine;
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *region_total = (int)carry;
}

/* The sums' last reader clears them, so every run starts at zero
 * (ms_device.cu, "sizes and means"): the flood regions', and the last
 * round's (round_relabel added them for a round that will not come). */
static __global__ void clear_sums(const unsigned *counts, const int32_t *regions, const int32_t *cur, int32_t *count,
                                  unsigned long long *sum, int32_t *round_count, unsigned long long *round_sum)
{
    FOR_EACH(k, counts[0])
    {
        int32_t u = regions[k];
        count[u] = 0;
        sum[3 * (size_t)u] = sum[3 * (size_t)u + 1] = sum[3 * (size_t)u + 2] = 0;
        if (cur[u] == u) {
            round_count[u] = 0;
            round_sum[3 * (size_t)u] = round_sum[3 * (size_t)u + 1] = round_sum[3 * (size_t)u + 2] = 0;
        }
    }
}

static __global__ void write_labels(unsigned n, const int32_t *flood, const int32_t *cur, const int32_t *number,
                                    int32_t *labels)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        labels[i] = number[cur[flood[i]]];
}

/* ---- the merge, enqueued: start, the rounds' body, finish ------------------------------------- */

#define LIST_LAUNCH(kernel, ...) kernel<<<LIST_BLOCKS, LIST_THREADS, 0, d->stream>>>(__VA_ARGS__)

static sb_status rag_start(rung_state *s, const uint32_t *colour, sb_error *err)
{
    ms_device *d = &s->dev;
    SB_CUDA_TRY(cudaMemsetAsync(s->counts, 0, 2 * sizeof *s->counts, d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(d->flags + 1, 0, 2 * sizeof(int), d->stream), err, d->who);   /* merged, rounds */
    pixel_pass<<<s->blocks, MS_SUM_THREADS, 0, d->stream>>>(d->width, d->n, d->flood, colour, d->count, d->sum,
                                                             s->scratch, s->block_roots, s->edges, s->counts);
    block_offsets<<<1, MS_SUM_THREADS, 0, d->stream>>>(s->blocks, s->block_roots, s->counts);
    order_regions<<<s->blocks, MS_SUM_THREADS, 0, d->stream>>>(s->scratch, s->block_roots, s->counts, s->blocks,
                                                                d->count, d->sum, s->regions, d->mean, d->parent);
    LIST_LAUNCH(fuse, s->counts, s->edges, d->mean, sb_ms_join2(d->p.range), d->parent);
    LIST_LAUNCH(fused_roots, s->counts, s->regions, d->parent, d->comp, d->count, d->sum, s->round_count,
                s->round_sum);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rag_round(rung_state *s, cudaGraphConditionalHandle loop, sb_error *err)
{
    ms_device *d = &s->dev;
    LIST_LAUNCH(round_means, s->counts, s->regions, d->comp, s->round_count, s->round_sum, d->mean, d->best);
    LIST_LAUNCH(round_best, s->counts, s->edges, d->comp, s->round_count, d->mean, d->best, d->p.min_area);
    LIST_LAUNCH(round_end, s->counts, s->regions, d->comp, d->best, d->end, d->first, s->round_count, s->round_sum,
                d->flags + 1);
    LIST_LAUNCH(round_first, s->counts, s->regions, d->comp, d->end, d->first);
    LIST_LAUNCH(round_relabel, s->counts, s->regions, d->end, d->first, d->comp, d->count, d->sum, s->round_count,
                s->round_sum);
    ms_continue<<<1, 1, 0, d->stream>>>(loop, d->flags + 1, d->flags + 2);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rag_finish(rung_state *s, sb_error *err)
{
    ms_device *d = &s->dev;
    number_regions<<<1, MS_SUM_THREADS, 0, d->stream>>>(s->counts, s->regions, d->comp, d->number, d->flags);
    MS_LAUNCH(write_labels, d->n, d->flood, d->comp, d->number, d->labels);
    LIST_LAUNCH(clear_sums, s->counts, s->regions, d->comp, d->count, d->sum, s->round_count, s->round_sum);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the merge as one CUDA graph (cuda-graph's, around these kernels) ----------------------- */

/* Record what fn() enqueues on d->stream into `graph` (NULL: a new one in
 * *made), ending the capture whatever happens. */
template <class Enqueue>
static sb_status ms_capture(ms_device *d, cudaGraph_t graph, cudaGraph_t *made, const Enqueue &fn, sb_error *err)
{
    cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal;
    if (graph)
        SB_CUDA_TRY(cudaStreamBeginCaptureToGraph(d->stream, graph, nullptr, nullptr, 0, mode), err, d->who);
    else
        SB_CUDA_TRY(cudaStreamBeginCapture(d->stream, mode), err, d->who);
    sb_status st = fn();
    cudaGraph_t out = nullptr;
    cudaError_t e = cudaStreamEndCapture(d->stream, &out);
    if (made)
        *made = out;
    else if (out && out != graph)
        cudaGraphDestroy(out);
    if (st)
        return st;
    SB_CUDA_TRY(e, err, d->who);
    return SB_OK;
}

static sb_status rag_graph_build(rung_state *s, sb_error *err)
{
    ms_device *d = &s->dev;
    const uint32_t *colour = d->step == SB_MS_PIPELINE ? d->filtered : d->colour;
    cudaGraph_t whole = nullptr, start = nullptr, finish = nullptr;
    sb_status st = SB_OK;
    cudaGraphNode_t start_node, loop_node, finish_node;
    cudaGraphConditionalHandle loop;
    cudaGraphNodeParams cond = {};
    cudaError_t e = cudaGraphCreate(&whole, 0);
    if (!e)
        st = ms_capture(d, nullptr, &start, [&] { return rag_start(s, colour, err); }, err);
    if (!e && !st)
        e = cudaGraphAddChildGraphNode(&start_node, whole, nullptr, 0, start);
    if (!e && !st)
        e = cudaGraphConditionalHandleCreate(&loop, whole, d->p.min_area > 1, cudaGraphCondAssignDefault);
    if (!e && !st) {
        cond.type = cudaGraphNodeTypeConditional;
        cond.conditional.handle = loop;
        cond.conditional.type = cudaGraphCondTypeWhile;
        cond.conditional.size = 1;
        e = cudaGraphAddNode(&loop_node, whole, &start_node, nullptr, 1, &cond);
    }
    if (!e && !st)
        st = ms_capture(d, cond.conditional.phGraph_out[0], nullptr, [&] { return rag_round(s, loop, err); }, err);
    if (!e && !st)
        st = ms_capture(d, nullptr, &finish, [&] { return rag_finish(s, err); }, err);
    if (!e && !st)
        e = cudaGraphAddChildGraphNode(&finish_node, whole, &loop_node, 1, finish);
    if (!e && !st)
        e = cudaGraphInstantiate(&d->merge_graph, whole, 0);
    if (start)
        cudaGraphDestroy(start);
    if (finish)
        cudaGraphDestroy(finish);
    if (whole)
        cudaGraphDestroy(whole);
    if (e && !st)
        st = sb_cuda_fail(err, e, d->who, "building the merge graph");
    return st;
}

/* ---- the rung -------------------------------------------------------------------------- */

/* The merge is this file's own, so no shared step asks for region sums. */
static const ms_regions rung_regions = { rung_components, nullptr, nullptr, nullptr };

template <class T>
static cudaError_t rag_alloc(T **p, size_t count)
{
    return cudaMalloc(p, count * sizeof(T));
}

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = ms_device_open(state, sizeof(rung_state), step, &rung_regions, in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    ms_device *d = &s->dev;
    size_t n = d->n;
    s->blocks = sb_div_up(n, MS_SUM_THREADS);
    SB_CUDA_TRY(rag_alloc(&s->regions, n), err, d->who);
    SB_CUDA_TRY(rag_alloc(&s->scratch, (size_t)s->blocks * MS_SUM_THREADS), err, d->who);
    SB_CUDA_TRY(rag_alloc(&s->block_roots, s->blocks), err, d->who);
    SB_CUDA_TRY(rag_alloc(&s->edges, 2 * n), err, d->who);     /* a pixel sends two at most */
    SB_CUDA_TRY(rag_alloc(&s->counts, 2), err, d->who);
    SB_CUDA_TRY(rag_alloc(&s->round_count, n), err, d->who);
    SB_CUDA_TRY(rag_alloc(&s->round_sum, 3 * n), err, d->who);
    /* zero once: every run leaves them zero (round_end, clear_sums) */
    SB_CUDA_TRY(cudaMemsetAsync(s->round_count, 0, n * sizeof *s->round_count, d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->round_sum, 0, 3 * n * sizeof *s->round_sum, d->stream), err, d->who);
    return rag_graph_build(s, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    ms_device *d = (ms_device *)state;
    return ms_run(d, [d](sb_error *e) { return ms_filter_global(d, e); }, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s) {
        void *buffers[] = { s->regions, s->scratch, s->block_roots, s->edges, s->counts, s->round_count,
                            s->round_sum };
        for (void *b : buffers)
            cudaFree(b);
    }
    ms_device_close(s);
}

MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_VARIANT("meanshift-merge", "cuda-rag", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "one pass over the pixels, then fusion and pruning on the flood regions' adjacency graph",
           merge_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, rung_release)
SB_VARIANT("meanshift", "cuda-rag", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "the cuda-blocks pipeline with the merge on the region adjacency graph",
           pipeline_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, rung_release)
SB_RUNG("meanshift-merge", "cuda-rag", "cuda-blocks",
        "fusion and pruning on the flood regions' adjacency graph: one pass over the pixels, then regions and edges")
SB_RUNG("meanshift", "cuda-rag", "cuda-blocks", "the merge on the region adjacency graph instead of the pixels")
