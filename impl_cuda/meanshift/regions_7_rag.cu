/* regions_7_rag.cu - cuda-rag of meanshift-merge and the pipeline.  Grows
 * from cuda-blocks.  The idea: one pass over the pixels gathers the regions'
 * sums and adjacency graph, and the merge works on that graph. */
#include "regions_4_graph.cuh"
#include "regions_5_blocks.cuh"
#include "regions_7_rag.cuh"
#include "filter_1_global.cuh"

#include "../regions/union_find.cuh"
#include "../warp.cuh"

#include <climits>

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

/* ---- the region graph (FOR_EACH, the rounds' phases: regions_7_rag.cuh) ---------------------- */

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
    rag_means(counts, regions, cur, round_count, round_sum, mean, best);
}

static __global__ void round_best(const unsigned *counts, const int2 *edges, const int32_t *cur,
                                  const int32_t *round_count, const uint32_t *mean, unsigned long long *best,
                                  int min_area)
{
    rag_best(counts, edges, cur, round_count, mean, best, min_area);
}

static __global__ void round_end(const unsigned *counts, const int32_t *regions, const int32_t *cur,
                                 const unsigned long long *best, int32_t *end, int32_t *first, int32_t *round_count,
                                 unsigned long long *round_sum, int *merged)
{
    rag_end(counts, regions, cur, best, end, first, round_count, round_sum, merged);
}

static __global__ void round_first(const unsigned *counts, const int32_t *regions, const int32_t *cur,
                                   const int32_t *end, int32_t *first)
{
    rag_first(counts, regions, cur, end, first);
}

static __global__ void round_relabel(const unsigned *counts, const int32_t *regions, const int32_t *end,
                                     const int32_t *first, int32_t *cur, const int32_t *count,
                                     const unsigned long long *sum, int32_t *round_count,
                                     unsigned long long *round_sum)
{
    rag_relabel(counts, regions, end, first, cur, count, sum, round_count, round_sum);
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

sb_status rag_open(int step, void **state, size_t size, const ms_regions *regions, const sb_image *in,
                   const void *params, void *output, const sb_exec *exec, sb_error *err)
{
    sb_status st = ms_device_open(state, size, step, regions, in, params, output, exec, err);
    if (st || step == SB_MS_FLOOD)      /* the flood has no merge */
        return st;
    rag_state *s = (rag_state *)*state;
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
    /* zero once: every run leaves them zero (rag_end, clear_sums) */
    SB_CUDA_TRY(cudaMemsetAsync(s->round_count, 0, n * sizeof *s->round_count, d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->round_sum, 0, 3 * n * sizeof *s->round_sum, d->stream), err, d->who);
    return SB_OK;
}

void rag_release(void *state)
{
    rag_state *s = (rag_state *)state;
    if (s) {
        void *buffers[] = { s->regions, s->scratch, s->block_roots, s->edges, s->counts, s->round_count,
                            s->round_sum };
        for (void *b : buffers)
            cudaFree(b);
    }
    ms_device_close(s);
}

sb_status rag_pass(rag_state *s, sb_error *err)
{
    ms_device *d = &s->dev;
    const uint32_t *colour = d->step == SB_MS_PIPELINE ? d->filtered : d->colour;
    SB_CUDA_TRY(cudaMemsetAsync(s->counts, 0, 2 * sizeof *s->counts, d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(d->flags + 1, 0, 2 * sizeof(int), d->stream), err, d->who);   /* merged, rounds */
    pixel_pass<<<s->blocks, MS_SUM_THREADS, 0, d->stream>>>(d->width, d->n, d->flood, colour, d->count, d->sum,
                                                             s->scratch, s->block_roots, s->edges, s->counts);
    block_offsets<<<1, MS_SUM_THREADS, 0, d->stream>>>(s->blocks, s->block_roots, s->counts);
    order_regions<<<s->blocks, MS_SUM_THREADS, 0, d->stream>>>(s->scratch, s->block_roots, s->counts, s->blocks,
                                                                d->count, d->sum, s->regions, d->mean, d->parent);
    LIST_LAUNCH(fuse, s->counts, s->edges, d->mean, sb_ms_join2(d->p.range), d->parent);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

sb_status rag_start(rag_state *s, sb_error *err)
{
    ms_device *d = &s->dev;
    sb_status st = rag_pass(s, err);
    if (st)
        return st;
    LIST_LAUNCH(fused_roots, s->counts, s->regions, d->parent, d->comp, d->count, d->sum, s->round_count,
                s->round_sum);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* A round, a kernel a phase, and the kernel that says whether another
 * follows. */
static sb_status rag_round(rag_state *s, cudaGraphConditionalHandle loop, sb_error *err)
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

sb_status rag_labels(rag_state *s, sb_error *err)
{
    ms_device *d = &s->dev;
    MS_LAUNCH(write_labels, d->n, d->flood, d->comp, d->number, d->labels);
    LIST_LAUNCH(clear_sums, s->counts, s->regions, d->comp, d->count, d->sum, s->round_count, s->round_sum);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

sb_status rag_finish(rag_state *s, sb_error *err)
{
    ms_device *d = &s->dev;
    number_regions<<<1, MS_SUM_THREADS, 0, d->stream>>>(s->counts, s->regions, d->comp, d->number, d->flags);
    return rag_labels(s, err);
}

/* ---- the rung -------------------------------------------------------------------------- */

/* The merge is this file's own, so no shared step asks for region sums;
 * the components are cuda-blocks'. */
static const ms_regions rung_regions = { ms_blocks_components, nullptr, nullptr, nullptr };

/* The merge recorded as cuda-graph's WHILE graph, around these kernels. */
static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = rag_open(step, state, sizeof(rag_state), &rung_regions, in, params, output, exec, err);
    if (st)
        return st;
    rag_state *s = (rag_state *)*state;
    return ms_while_graph(
        &s->dev, [&] { return rag_start(s, err); },
        [&](cudaGraphConditionalHandle loop) { return rag_round(s, loop, err); }, [&] { return rag_finish(s, err); },
        err);
}

MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-merge", "cuda-rag", "cuda-blocks", "cuda-shared", SB_GRAPH_LOOP,
             "fusion and pruning on the flood regions' adjacency graph: one pass over the pixels, then regions and edges",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
SB_CUDA_RUNG("meanshift", "cuda-rag", "cuda-blocks", "cuda-shared", SB_GRAPH_LOOP,
             "the merge on the region adjacency graph instead of the pixels",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
