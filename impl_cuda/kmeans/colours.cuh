/* colours.cuh - k-means over an image's distinct colours: what the rungs
 * from cuda-colours on share (colours.cu).
 *
 * A pixel's label, and what it adds to the sums, depend on its colour
 * alone, so a pass need visit each distinct colour once, weighted by the
 * number of pixels that have it: w pixels of colour c add w*c, the same
 * integers, so the same centres, labels and pass count, bit for bit.
 *
 * A run builds the exact histogram first, with no sort and no hash table
 * (km_colours_histogram):
 *   1. mark: one bit per possible colour (2^24 bits) set for every pixel;
 *   2. count, then list: a prefix count of the bits gives every present
 *      colour its index (colours in RGB order), and the list of colours;
 *   3. weigh: every pixel adds 1 to its colour's weight (its index: its
 *      word's prefix count plus the set bits below it in the word).
 * The passes are the rung's own, over the list (km_colours_assign is the
 * work of one).  At the end every pixel is labelled with the centres the
 * last pass used (km_colours_label_pixels): a label is a function of the
 * colour and those centres alone, so no lookup per pixel is needed.
 */
#ifndef SEGBENCH_KMEANS_COLOURS_CUH
#define SEGBENCH_KMEANS_COLOURS_CUH

#include "kmeans_device.cuh"

enum { KM_COLOUR_THREADS = 256 };

/* The histogram's bookkeeping, zeroed with the bits at the start of a run. */
struct km_histogram {
    unsigned blocks_done;   /* count-words blocks finished (the last-block ticket) */
    unsigned colours;       /* distinct colours in the image */
};

/* The list a pass walks (device pointers). */
struct km_colour_list {
    const uint32_t *colour;       /* the colours, R << 16 | G << 8 | B, in that order */
    const unsigned *weight;       /* their pixels */
    const km_histogram *hist;     /* ->colours: how many */
    uint8_t *label;               /* their labels */
};

struct km_colours {
    uint2 *rank;            /* 2^19 words: (bits, colours before the word); then the km_histogram */
    km_histogram *hist;
    unsigned *block_base;   /* the count step's blocks' first indices */
    uint32_t *colour;       /* up to min(n, 2^24) each */
    unsigned *weight;
    uint8_t *label;
    float4 *last_prepped;   /* k: the centres the last pass labelled with */
    size_t most;            /* min(n, 2^24): distinct colours, at most */
    unsigned pixel_blocks;
};

/* Buffers for an image of d->n pixels; on failure the part made is freed
 * by km_colours_close. */
sb_status km_colours_open(km_colours *c, const km_device *d, sb_error *err);
void km_colours_close(km_colours *c);
/* Enqueue the histogram of the uploaded frame on d's stream. */
sb_status km_colours_histogram(km_colours *c, const km_device *d, sb_error *err);
/* Enqueue every pixel's label from c->last_prepped into d->labels. */
sb_status km_colours_label_pixels(km_colours *c, const km_device *d, sb_error *err);

static inline km_colour_list km_colours_list(const km_colours *c)
{
    return { c->colour, c->weight, c->hist, c->label };
}

/* ---- the work of one pass, for the rungs' pass kernels ---- */

/* A block's sums live in shared memory as one slice of 4k 64-bit sums a
 * warp: only the warp's leader lanes add to its slice, one label at a
 * time, so plain adds do (64-bit atomics on shared memory are a
 * compare-and-swap loop, and the warps of a block that work on nearby
 * colours would contend on the same few labels).  The slices are summed
 * when the block flushes.  Dynamic shared memory: km_colours_smem bytes. */
static inline size_t km_colours_smem(int k, int threads)
{
    return (size_t)(threads / 32) * 4 * (size_t)k * sizeof(unsigned long long);
}

/* Add each lane's colour, w pixels of it, into its warp's slice of the
 * sums.  w * channel can pass 2^32 (w < 2^28), so each product is summed
 * as two 32-bit halves of w -- (w mod 2^16) * c and (w / 2^16) * c --
 * whose warp sums cannot overflow. */
__device__ __forceinline__ void km_warp_add_weighted(unsigned long long *slice, bool valid, unsigned label,
                                                     unsigned key, unsigned w)
{
    unsigned pending = __ballot_sync(KM_FULL_MASK, valid);
    unsigned c[3] = { key >> 16, (key >> 8) & 0xffu, key & 0xffu }, lo = w & 0xffffu, hi = w >> 16;
    while (pending) {
        int leader = __ffs(pending) - 1;
        unsigned lab = __shfl_sync(KM_FULL_MASK, label, leader);
        bool mine = valid && label == lab;
        unsigned group = __ballot_sync(KM_FULL_MASK, mine);
        unsigned long long sum[4];
#pragma unroll
        for (int ch = 0; ch < 3; ch++)
            sum[ch] = km_warp_sum(mine ? lo * c[ch] : 0u) +
                      ((unsigned long long)km_warp_sum(mine ? hi * c[ch] : 0u) << 16);
        sum[3] = km_warp_sum(mine ? w : 0u);
        if ((threadIdx.x & 31) == (unsigned)leader)
#pragma unroll
            for (int i = 0; i < 4; i++)
                slice[4 * lab + i] += sum[i];
        pending &= ~group;
        __syncwarp();
    }
}

/* Every warp's slice zeroed (before a pass; the caller syncs). */
__device__ __forceinline__ void km_colours_zero(unsigned long long *acc, int k)
{
    for (int i = threadIdx.x; i < (int)(blockDim.x / 32) * 4 * k; i += blockDim.x)
        acc[i] = 0;
}

/* This block's share of a pass: each of its colours labelled with the
 * nearest of `centre`, its weighted colour added into its warp's slice of
 * `acc` (zeroed by the caller).  A block takes one run of the list, whole
 * warps at a time: colours in RGB order lie near one another, so a run
 * falls to few centres and the block has few sums to flush (dealt out over
 * the grid instead, every block would flush all 4k).  Returns the pixels
 * whose label changed, this thread's. */
__device__ __forceinline__ unsigned km_colours_assign(const km_colour_list &list, const float4 *centre, int k,
                                                      int first_pass, unsigned long long *acc)
{
    unsigned colours = __ldcg(&list.hist->colours);
    unsigned run = (colours + gridDim.x - 1) / gridDim.x;
    run = (run + 31) & ~31u;
    unsigned begin = blockIdx.x * run, end = begin + run < colours ? begin + run : colours;
    unsigned lane = threadIdx.x & 31, changed = 0;
    for (unsigned base = begin + (threadIdx.x & ~31u); base < end; base += blockDim.x) {
        unsigned i = base + lane;
        bool live = i < end;
        unsigned key = live ? list.colour[i] : 0u, w = live ? list.weight[i] : 0u;
        unsigned lab = km_nearest(centre, k, key >> 16, (key >> 8) & 0xffu, key & 0xffu);
        if (live) {
            if (first_pass || list.label[i] != lab)
                changed += w;
            list.label[i] = (uint8_t)lab;
        }
        km_warp_add_weighted(acc + (threadIdx.x >> 5) * 4 * k, live, lab, key, w);
    }
    return changed;
}

/* The block's sums (its warps' slices added) and changed pixels out to
 * global memory (`changed`: each thread's; `block_changed`: a shared word
 * the caller zeroed). */
__device__ __forceinline__ void km_colours_flush(const unsigned long long *acc, int k, unsigned changed,
                                                 unsigned *block_changed, unsigned long long *sums,
                                                 unsigned *total_changed)
{
    changed = km_warp_sum(changed);   /* pixels, < 2^28 */
    if ((threadIdx.x & 31) == 0 && changed)
        atomicAdd(block_changed, changed);
    __syncthreads();
    for (int i = threadIdx.x; i < 4 * k; i += blockDim.x) {
        unsigned long long total = 0;
        for (int warp = 0; warp < (int)(blockDim.x / 32); warp++)
            total += acc[warp * 4 * k + i];
        if (total)
            atomicAdd(&sums[i], total);
    }
    if (threadIdx.x == 0 && *block_changed)
        atomicAdd(total_changed, *block_changed);
}

#endif
