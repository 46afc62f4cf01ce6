/* regions_12_active.cu - cuda-active.  A branch of cuda-coop for the merge; A
 * branch of cuda-seams for the pipeline.  The idea: each round walks only the
 * regions and edges still live. */
#include "regions_7_rag.cuh"
#include "regions_8_coop.cuh"
#include "regions_10_seams.cuh"
#include "filter_1_global.cuh"

#include "../regions/union_find.cuh"

/* The rung's state: cuda-rag's, and the lists of live regions and edges. */
struct rung_state {
    rag_state rag;
    int32_t *live;              /* the first round's live regions (the fused roots) */
    int2 *kept;                 /* the edges kept by the odd rounds */
    unsigned *live_counts;      /* [0], [1]: live regions in each slot; [2]: edges in slot 1 */
};

/* The next free place in a list for each calling thread: the calling
 * lanes of a warp take theirs with one atomicAdd, in lane order. */
static __device__ __forceinline__ unsigned append_at(unsigned *length)
{
    cg::coalesced_group lanes = cg::coalesced_threads();
    unsigned base = 0;
    if (lanes.thread_rank() == 0)
        base = atomicAdd(length, lanes.size());
    return lanes.shfl(base, 0) + lanes.thread_rank();
}

/* Each flood region's fused root, and the first round's sums; the fused
 * roots are the first round's live regions. */
static __global__ void fused_roots(const unsigned *counts, const int32_t *regions, const int32_t *link, int32_t *cur,
                                   const int32_t *count, const unsigned long long *sum, int32_t *round_count,
                                   unsigned long long *round_sum, int32_t *live, unsigned *live_count)
{
    FOR_EACH(k, counts[0])
    {
        int32_t u = regions[k], r = rg_find(link, u);
        cur[u] = r;
        add_sums(u, r, count, sum, round_count, round_sum);
        if (r == u)
            live[append_at(live_count)] = u;
    }
}

/* The lists a round walks, each in two slots: round k reads slot k % 2 and
 * writes the next round's into the other.  Slot 0's edges are the flood
 * regions' own (their count is counts[1]). */
struct live_lists {
    int32_t *region[2];
    unsigned *regions[2];       /* their lengths */
    int2 *edge[2];
    unsigned *edges[2];
};

static __device__ __forceinline__ void round_means(const int32_t *live, const unsigned *live_count,
                                                   const int32_t *round_count, const unsigned long long *round_sum,
                                                   uint32_t *mean, unsigned long long *best)
{
    FOR_EACH(k, *live_count)
    {
        int32_t r = live[k];
        mean[r] = mean_of(round_count, round_sum, r);
        best[r] = ~0ull;
    }
}

/* Each edge's two ends are renamed to their live regions (one step of
 * cur: the round before moved each region that merged one step); an edge
 * whose ends are still apart is noted and kept for the next round. */
static __device__ __forceinline__ void round_best(const int2 *edges, const unsigned *edge_count, const int32_t *cur,
                                                  const int32_t *round_count, const uint32_t *mean,
                                                  unsigned long long *best, int min_area, int2 *kept,
                                                  unsigned *kept_count)
{
    FOR_EACH(k, *edge_count)
    {
        int2 e = edges[k];
        int32_t a = cur[e.x], b = cur[e.y];
        if (a != b) {
            note(best, round_count, mean, a, b, min_area);
            note(best, round_count, mean, b, a, min_area);
            kept[append_at(kept_count)] = make_int2(a, b);
        }
    }
}

/* Each live region's pointers followed to their end. */
static __device__ __forceinline__ void round_end(const int32_t *live, const unsigned *live_count,
                                                 const unsigned long long *best, int32_t *end, int32_t *first,
                                                 int *merged)
{
    FOR_EACH(k, *live_count)
    {
        int32_t r = live[k];
        int32_t e = r, next;
        while ((next = pointer(best, e)) != e)
            e = next;
        end[r] = e;
        first[r] = INT_MAX;
        if (e != r)
            *merged = 1;
    }
}

static __device__ __forceinline__ void round_first(const int32_t *live, const unsigned *live_count,
                                                   const int32_t *end, int32_t *first)
{
    FOR_EACH(k, *live_count)
    {
        int32_t r = live[k];
        atomicMin(&first[end[r]], r);
    }
}

/* Each live region to its group's first: one that merges points cur at
 * it and hands it its sums; one that is its group's first stays live.  A
 * thread reads and writes the sums of its own region alone, and adds to
 * a first, which merges into nobody. */
static __device__ __forceinline__ void round_merge(const int32_t *live, const unsigned *live_count,
                                                   const int32_t *end, const int32_t *first, int32_t *cur,
                                                   int32_t *round_count, unsigned long long *round_sum,
                                                   int32_t *next, unsigned *next_count)
{
    FOR_EACH(k, *live_count)
    {
        int32_t r = live[k], t = first[end[r]];
        if (t == r) {
            next[append_at(next_count)] = r;
            continue;
        }
        cur[r] = t;
        atomicAdd(&round_count[t], round_count[r]);
        round_count[r] = 0;
        for (int c = 0; c < 3; c++) {
            atomicAdd(&round_sum[3 * (size_t)t + c], round_sum[3 * (size_t)r + c]);
            round_sum[3 * (size_t)r + c] = 0;
        }
    }
}

/* The rounds, each phase over the live regions or the live edges, a
 * grid-wide barrier between phases.  merged[round % 2] is this round's
 * flag, and the other slot's lengths are the next round's lists: the other
 * flag and those lengths are cleared while nobody reads them.  After the
 * last round each flood region follows cur to its final region. */
static __global__ void __launch_bounds__(LIST_THREADS)
    rounds(const unsigned *counts, const int32_t *regions, live_lists lists, int32_t *cur, int32_t *round_count,
           unsigned long long *round_sum, uint32_t *mean, unsigned long long *best, int32_t *end, int32_t *first,
           int *merged, int min_area)
{
    cg::grid_group grid = cg::this_grid();
    if (min_area <= 1)
        return;                                 /* no rounds: cur is one step already */
    for (int round = 0; round < SB_MS_MAX_PRUNE; round++) {
        int *flag = &merged[round % 2], in = round % 2, out = 1 - in;
        const int32_t *live = lists.region[in];
        const unsigned *live_count = lists.regions[in];
        round_means(live, live_count, round_count, round_sum, mean, best);
        if (grid.thread_rank() == 0) {
            merged[(round + 1) % 2] = 0;
            *lists.regions[out] = *lists.edges[out] = 0;
        }
        grid.sync();
        round_best(lists.edge[in], lists.edges[in], cur, round_count, mean, best, min_area, lists.edge[out],
                   lists.edges[out]);
        grid.sync();
        round_end(live, live_count, best, end, first, flag);
        grid.sync();
        if (!*(volatile int *)flag)
            break;
        round_first(live, live_count, end, first);
        grid.sync();
        round_merge(live, live_count, end, first, cur, round_count, round_sum, lists.region[out],
                    lists.regions[out]);
        grid.sync();
    }
    /* a flood region's cur leads through the regions it merged into, one
     * a round; each pointer rewritten on the way still leads there */
    FOR_EACH(k, counts[0])
    {
        int32_t u = regions[k], r = cur[u], p;
        while ((p = ((volatile int32_t *)cur)[r]) != r)
            r = p;
        cur[u] = r;
    }
}

/* ---- the merge, enqueued: start, the rounds' body, finish ------------------------------------- */

/* The flood and the merge are this file's own: no shared step asks for
 * components or region sums. */
static const ms_regions rung_regions = { nullptr, nullptr, ms_seams_flood, nullptr };

/* cuda-rag's pass, then the fused roots listed as the first round's
 * live regions. */
static sb_status active_start(rung_state *rs, sb_error *err)
{
    rag_state *s = &rs->rag;
    ms_device *d = &s->dev;
    SB_CUDA_TRY(cudaMemsetAsync(rs->live_counts, 0, sizeof *rs->live_counts, d->stream), err, d->who);
    sb_status st = rag_pass(s, err);
    if (st)
        return st;
    LIST_LAUNCH(fused_roots, s->counts, s->regions, d->parent, d->comp, d->count, d->sum, s->round_count,
                s->round_sum, rs->live, rs->live_counts);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status active_rounds(rung_state *rs, sb_error *err)
{
    rag_state *s = &rs->rag;
    ms_device *d = &s->dev;
    coop_launch l;
    coop_launch_init(&l, s);
    /* slot 1's regions go where order_regions' scratch was: it is done */
    live_lists lists = { { rs->live, s->scratch },
                         { rs->live_counts, rs->live_counts + 1 },
                         { s->edges, rs->kept },
                         { s->counts + 1, rs->live_counts + 2 } };
    SB_CUDA_TRY(cudaLaunchKernelEx(&l.cfg, rounds, (const unsigned *)s->counts, (const int32_t *)s->regions, lists,
                                   d->comp, s->round_count, s->round_sum, d->mean, d->best, d->end, d->first,
                                   d->flags + 1, d->p.min_area),
                err, d->who);
    return SB_OK;
}

/* The merge: this start and these rounds, cuda-rag's finish, recorded
 * as one graph. */
static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = rag_open(step, state, sizeof(rung_state), &rung_regions, in, params, output, exec, err);
    if (st)
        return st;
    rung_state *rs = (rung_state *)*state;
    rag_state *s = &rs->rag;
    size_t n = s->dev.n;
    SB_CUDA_TRY(rag_alloc(&rs->live, n), err, s->dev.who);
    SB_CUDA_TRY(rag_alloc(&rs->kept, 2 * n), err, s->dev.who);
    SB_CUDA_TRY(rag_alloc(&rs->live_counts, 3), err, s->dev.who);
    if ((st = coop_grid(s, (const void *)rounds, err)))
        return st;
    return rag_record(s, [&] {
        sb_status t = active_start(rs, err);
        if (!t)
            t = active_rounds(rs, err);
        return t ? t : rag_finish(s, err);
    }, err);
}

static void rung_release(void *state)
{
    rung_state *rs = (rung_state *)state;
    if (rs) {
        cudaFree(rs->live);
        cudaFree(rs->kept);
        cudaFree(rs->live_counts);
    }
    rag_release(state);
}

/* ---- the rung -------------------------------------------------------------------------- */

MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-merge", "cuda-active", "cuda-coop", "cuda-shared", 0,
             "each round over the regions and edges still live: the lists compacted as regions merge",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rung_release)
SB_CUDA_RUNG("meanshift", "cuda-active", "cuda-seams", "cuda-shared", 0,
             "the merge's rounds over the regions and edges still live",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rung_release)
