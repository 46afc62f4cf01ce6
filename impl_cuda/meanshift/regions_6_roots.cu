/* regions_6_roots.cu - mean-shift's components with each tree resolved
 * once (variant "cuda-roots" of the flood, merge and pipeline steps).
 *
 * A branch of cuda-blocks, which loses (below): the last step, from the
 * forest to every pixel's root.  There every pixel walked its own way up the global forest, and
 * after the seams a large region's tile roots form chains across the
 * image: two million walks down the same chains.  Here the tile kernel
 * lists its tile-local roots (a few thousand in a segmentation), one
 * thread a listed root walks its chain once and links the root straight
 * to the end, and every pixel then needs two loads: its tile-local root,
 * then that root's root.  Path compression, done once where the paths
 * are.  Nsight Compute at 1080p says why it loses: the pixels' own walks
 * cost little (cuda-blocks' ccl_flatten 14.2 us against 5.2 + 9.7 here),
 * and listing the roots costs the tile kernel 8 us (22.6 -> 30.7 us).
 *
 */
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
    unsigned seams = (unsigned)((d->width - 1) / CCL_TILE) * d->height + (unsigned)((d->height - 1) / CCL_TILE) * d->width;
    if (seams)
        seam_unions<<<sb_div_up(seams, MS_THREADS), MS_THREADS, 0, d->stream>>>(d->width, d->height, join, d->parent);
    resolve_roots<<<RESOLVE_BLOCKS, MS_THREADS, 0, d->stream>>>(s->root_count, s->roots, d->parent);
    MS_LAUNCH(pixel_roots, d->n, d->parent, comp);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
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

/* ---- the merge as one CUDA graph ----------------------------------------------------------- *
 *
 * start -> while (loop) { mark; apply in place; ms_continue } -> finish.
 * The loop's condition lives on the device: ms_continue clears it when no
 * region merged or the rounds run out, so the host never waits inside the
 * merge.  The last round's apply finds nothing to move and leaves every
 * label as it is (each region's pointers end at itself). */

static __global__ void ms_continue(cudaGraphConditionalHandle loop, const int *merged, int *rounds)
{
    int done = ++*rounds;
    cudaGraphSetConditional(loop, *merged && done < SB_MS_MAX_PRUNE);
}

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

static sb_status ms_merge_graph_build(ms_device *d, sb_error *err)
{
    const uint32_t *colour = d->step == SB_MS_PIPELINE ? d->filtered : d->colour;
    cudaGraph_t whole = nullptr, start = nullptr, finish = nullptr;
    sb_status st = SB_OK;
    cudaGraphNode_t start_node, loop_node, finish_node;
    cudaGraphConditionalHandle loop;
    cudaGraphNodeParams cond = {};
    cudaError_t e = cudaGraphCreate(&whole, 0);
    if (!e) {
        st = ms_capture(d, nullptr, &start, [&] {
            SB_CUDA_TRY(cudaMemsetAsync(d->flags + 2, 0, sizeof(int), d->stream), err, d->who);   /* rounds */
            return ms_merge_start(d, colour, d->flood, err);
        }, err);
    }
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
        st = ms_capture(d, cond.conditional.phGraph_out[0], nullptr, [&] {
            sb_status s = ms_prune_mark(d, colour, d->comp, err);
            if (!s)
                s = ms_prune_apply(d, d->comp, err);
            if (s)
                return s;
            ms_continue<<<1, 1, 0, d->stream>>>(loop, d->flags + 1, d->flags + 2);
            SB_CUDA_LAUNCHED(err, d->who);
            return SB_OK;
        }, err);
    if (!e && !st)
        st = ms_capture(d, nullptr, &finish, [&] { return ms_merge_finish(d, d->comp, d->labels, err); }, err);
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

static const ms_regions rung_regions = { rung_components, rung_region_sums, nullptr, nullptr };

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

static sb_status rung_run(void *state, sb_error *err)
{
    ms_device *d = (ms_device *)state;
    return ms_run(d, [d](sb_error *e) { return ms_filter_global(d, e); }, err);
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

SB_VARIANT("meanshift-flood", "cuda-roots", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-blocks with the tile roots listed and each resolved once; every pixel two loads from its root",
           flood_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, rung_release)
SB_VARIANT("meanshift-merge", "cuda-roots", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "cuda-blocks with the fusion's roots resolved once per tile root",
           merge_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, rung_release)
SB_VARIANT("meanshift", "cuda-roots", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "the cuda-blocks pipeline with each component tree resolved once per tile root",
           pipeline_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, rung_release)
SB_RUNG("meanshift-flood", "cuda-roots", "cuda-blocks",
        "the tile roots listed, each resolved once down its chain; every pixel then two loads")
SB_RUNG("meanshift-merge", "cuda-roots", "cuda-blocks", "the fusion's trees resolved once per tile root")
SB_RUNG("meanshift", "cuda-roots", "cuda-blocks", "component trees resolved once per tile root")
