/* regions_7_rag.cuh - what cuda-rag (regions_7_rag.cu) lends the merges
 * after it: the merge on the flood regions' adjacency graph.
 *   rag_state           the rung state: the list of flood regions, the
 *                       edges between them, the rounds' sums;
 *   rag_open, rag_release  open and close it (ms_device_open's and more);
 *   rag_start           the one pass over the pixels, the fusion, the
 *                       first round's sums (rag_pass is all but the last);
 *   rag_means .. rag_relabel  the phases of a pruning round, as device
 *                       functions: cuda-rag launches each as a kernel,
 *                       cuda-coop runs them in one;
 *   rag_finish          the regions numbered and every pixel labelled
 *                       (rag_labels is the labelling alone).
 * A flood region u is named by its root pixel; cur[u] is the root of the
 * region it belongs to now (d->comp, read only at flood roots).  The
 * kernels run over the list of flood regions or over the edges; their
 * lengths live on the device, so each walks them in a grid-stride loop. */
#ifndef SEGBENCH_MS_REGIONS_7_RAG_CUH
#define SEGBENCH_MS_REGIONS_7_RAG_CUH

#include "ms_device.cuh"

#include <climits>

/* The rung's state: the region graph beside the shared part. */
struct rag_state {
    ms_device dev;
    int32_t *regions;           /* the flood regions' roots, in pixel order */
    int32_t *scratch;           /* a block's roots before the list is ordered (n) */
    unsigned *block_roots;      /* roots in each block of the pixel pass, then their offsets */
    int2 *edges;                /* touching pairs of flood regions (u < v), repeats allowed */
    unsigned *counts;           /* [0] regions, [1] edges */
    int32_t *round_count;       /* by current region: its pixels this round */
    unsigned long long *round_sum;
    unsigned blocks;            /* blocks of the pixel pass */
    int resident_blocks;        /* cuda-coop on: the rounds' grid, one block an SM, all resident */
};

enum { LIST_BLOCKS = 264, LIST_THREADS = 256 };

#define FOR_EACH(k, length) \
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < (length); k += gridDim.x * blockDim.x)

#define LIST_LAUNCH(kernel, ...) kernel<<<LIST_BLOCKS, LIST_THREADS, 0, d->stream>>>(__VA_ARGS__)

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

static __device__ __forceinline__ void rag_means(const unsigned *counts, const int32_t *regions, const int32_t *cur,
                                                 const int32_t *round_count, const unsigned long long *round_sum,
                                                 uint32_t *mean, unsigned long long *best)
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

static __device__ __forceinline__ void rag_best(const unsigned *counts, const int2 *edges, const int32_t *cur,
                                                const int32_t *round_count, const uint32_t *mean,
                                                unsigned long long *best, int min_area)
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
static __device__ __forceinline__ void rag_end(const unsigned *counts, const int32_t *regions, const int32_t *cur,
                                               const unsigned long long *best, int32_t *end, int32_t *first,
                                               int32_t *round_count, unsigned long long *round_sum, int *merged)
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

static __device__ __forceinline__ void rag_first(const unsigned *counts, const int32_t *regions, const int32_t *cur,
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
static __device__ __forceinline__ void rag_relabel(const unsigned *counts, const int32_t *regions, const int32_t *end,
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

/* A device buffer of `count` T's. */
template <class T>
static cudaError_t rag_alloc(T **p, size_t count)
{
    return cudaMalloc(p, count * sizeof(T));
}

/* ms_device_open with a state of `size` bytes (a rag_state first), then,
 * for a step with a merge, the region graph's buffers. */
sb_status rag_open(int step, void **state, size_t size, const ms_regions *regions, const sb_image *in,
                   const void *params, void *output, const sb_exec *exec, sb_error *err);

/* The buffers rag_open allocated, then ms_device_close (a variant's
 * release). */
void rag_release(void *state);

/* Enqueue the pass over the pixels and the fusion: the list of flood
 * regions, their sums and means, the edges, and the fusion's links in
 * d->parent. */
sb_status rag_pass(rag_state *s, sb_error *err);

/* rag_pass, then each flood region's fused root in cur and the first
 * round's sums. */
sb_status rag_start(rag_state *s, sb_error *err);

/* Enqueue the numbering of the regions left, then rag_labels. */
sb_status rag_finish(rag_state *s, sb_error *err);

/* Enqueue every pixel's region number (d->number at its region) into
 * d->labels, and the sums cleared for the next run. */
sb_status rag_labels(rag_state *s, sb_error *err);

#endif
