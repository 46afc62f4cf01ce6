/* regions_11_ranks.cu - cuda-ranks.  A branch of cuda-coop for the merge; A
 * branch of cuda-seams for the pipeline.  The idea: the rounds' resident
 * kernel numbers the regions itself, each block its stretch of the list. */
#include "regions_7_rag.cuh"
#include "regions_8_coop.cuh"
#include "regions_10_seams.cuh"
#include "filter_1_global.cuh"

#include "../warp.cuh"

/* The rung's state: cuda-rag's, and where the rounds' blocks count and
 * then number their stretches of the list. */
struct rung_state {
    rag_state rag;
    unsigned *stretch;          /* the rounds' blocks: regions left in each one's stretch, then offsets */
};

/* A block's exclusive scan of one value a thread (LIST_THREADS of them);
 * *total gets the block's sum.  Every thread of the block calls it. */
static __device__ __forceinline__ unsigned block_scan(unsigned v, unsigned *total)
{
    __shared__ unsigned warp_total[LIST_THREADS / 32];
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    unsigned through = warp_inclusive_scan(v, (int)lane);
    if (lane == 31)
        warp_total[warp] = through;
    __syncthreads();
    unsigned before = through - v, sum = 0;
    for (unsigned w = 0; w < LIST_THREADS / 32; w++) {
        if (w < warp)
            before += warp_total[w];
        sum += warp_total[w];
    }
    __syncthreads();                           /* warp_total is free for the next call */
    *total = sum;
    return before;
}

/* The rounds, each phase over the list or the edges, a grid-wide barrier
 * where cuda-rag ended a kernel.  merged[round % 2] is this round's flag:
 * the other is cleared for the next round while nobody reads it.  Then
 * the regions that remain (cur[u] == u) are numbered in list order: block
 * b takes the b-th stretch of the list. */
/* The rounds, then the numbering: cuda-coop's rounds, each phase over the list or the edges, a grid-wide barrier
 * where cuda-rag ended a kernel.  merged[round % 2] is this round's flag:
 * the other is cleared for the next round while nobody reads it. */
static __global__ void __launch_bounds__(LIST_THREADS)
    rounds(const unsigned *counts, const int32_t *regions, const int2 *edges, int32_t *cur, const int32_t *count,
           const unsigned long long *sum, int32_t *round_count, unsigned long long *round_sum, uint32_t *mean,
           unsigned long long *best, int32_t *end, int32_t *first, int *merged, int min_area, unsigned *stretch,
           int32_t *number, int *region_total)
{
    cg::grid_group grid = cg::this_grid();
    for (int round = 0; min_area > 1 && round < SB_MS_MAX_PRUNE; round++) {
        int *flag = &merged[round % 2];
        rag_means(counts, regions, cur, round_count, round_sum, mean, best);
        if (grid.thread_rank() == 0)
            merged[(round + 1) % 2] = 0;
        grid.sync();
        rag_best(counts, edges, cur, round_count, mean, best, min_area);
        grid.sync();
        rag_end(counts, regions, cur, best, end, first, round_count, round_sum, flag);
        grid.sync();
        if (!*(volatile int *)flag)
            break;
        rag_first(counts, regions, cur, end, first);
        grid.sync();
        rag_relabel(counts, regions, end, first, cur, count, sum, round_count, round_sum);
        grid.sync();
    }
    unsigned length = counts[0], per = (length + gridDim.x - 1) / gridDim.x;
    unsigned lo = min(length, blockIdx.x * per), hi = min(length, lo + per), total;
    unsigned left = 0;
    for (unsigned k = lo + threadIdx.x; k < hi; k += LIST_THREADS) {
        int32_t u = regions[k];
        left += cur[u] == u;
    }
    block_scan(left, &total);
    if (threadIdx.x == 0)
        stretch[blockIdx.x] = total;
    grid.sync();
    if (blockIdx.x == 0) {                     /* the stretches' counts to offsets */
        unsigned carry = 0;
        for (unsigned base = 0; base < gridDim.x; base += LIST_THREADS) {
            unsigned b = base + threadIdx.x, mine = b < gridDim.x ? stretch[b] : 0;
            unsigned before = block_scan(mine, &total);
            if (b < gridDim.x)
                stretch[b] = carry + before;
            carry += total;
        }
        if (threadIdx.x == 0)
            *region_total = (int)carry;
    }
    grid.sync();
    unsigned carry = stretch[blockIdx.x];
    for (unsigned base = lo; base < hi; base += LIST_THREADS) {
        unsigned k = base + threadIdx.x;
        int32_t u = k < hi ? regions[k] : 0;
        unsigned mine = k < hi && cur[u] == u;
        unsigned before = block_scan(mine, &total);
        if (mine)
            number[u] = (int32_t)(carry + before);
        carry += total;
    }
}

/* ---- the merge, enqueued: start, the rounds' body, finish ------------------------------------- */

/* The flood and the merge are this file's own: no shared step asks for
 * components or region sums. */
static const ms_regions rung_regions = { nullptr, nullptr, ms_seams_flood, nullptr };

/* Enqueue the rounds and the numbering: one cooperative kernel. */
static sb_status ranks_rounds(rung_state *rs, sb_error *err)
{
    rag_state *s = &rs->rag;
    ms_device *d = &s->dev;
    coop_launch l;
    coop_launch_init(&l, s);
    SB_CUDA_TRY(cudaLaunchKernelEx(&l.cfg, rounds, (const unsigned *)s->counts, (const int32_t *)s->regions,
                                   (const int2 *)s->edges, d->comp, (const int32_t *)d->count,
                                   (const unsigned long long *)d->sum, s->round_count, s->round_sum, d->mean,
                                   d->best, d->end, d->first, d->flags + 1, d->p.min_area, rs->stretch, d->number,
                                   d->flags),
                err, d->who);
    return SB_OK;
}

/* The merge: cuda-rag's start, these rounds, and cuda-rag's labelling
 * without its numbering kernel, recorded as one graph. */
static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = rag_open(step, state, sizeof(rung_state), &rung_regions, in, params, output, exec, err);
    if (st)
        return st;
    rung_state *rs = (rung_state *)*state;
    rag_state *s = &rs->rag;
    if ((st = coop_grid(s, (const void *)rounds, err)))
        return st;
    SB_CUDA_TRY(rag_alloc(&rs->stretch, (size_t)s->resident_blocks), err, s->dev.who);
    return rag_record(s, [&] {
        sb_status t = rag_start(s, err);
        if (!t)
            t = ranks_rounds(rs, err);
        return t ? t : rag_labels(s, err);
    }, err);
}

static void rung_release(void *state)
{
    if (state)
        cudaFree(((rung_state *)state)->stretch);
    rag_release(state);
}

/* ---- the rung -------------------------------------------------------------------------- */

MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-merge", "cuda-ranks", "cuda-coop", "cuda-shared", 0,
             "the regions numbered inside the cooperative kernel: each block a stretch of the list, two grid barriers",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rung_release)
SB_CUDA_RUNG("meanshift", "cuda-ranks", "cuda-seams", "cuda-shared", 0,
             "the merge's regions numbered inside the cooperative kernel",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rung_release)
