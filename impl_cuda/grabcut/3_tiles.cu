/* 3_tiles.cu - GrabCut's max-flow in shared-memory tiles (variant
 * "cuda-tiles" of grabcut-maxflow and the pipeline; it was "cuda-shared").
 *
 * Grows from cuda-launches.  The idea: tiles.  cuda-launches runs one
 * phase of one round a launch over every node, each node's data in
 * global memory.  Here a block loads a 16x16 tile -- its nodes'
 * residuals, excess and heights, and its neighbours' heights (the halo)
 * -- and runs up to TILE_ROUNDS push/relabel rounds in shared memory,
 * with __syncthreads() between phases, before writing back.  Excess
 * travels up to TILE_ROUNDS steps a launch.
 *
 * Why it stays correct: tiles run in four colours by (tile x % 2, tile y
 * % 2), one colour a launch, so no two running tiles touch: a halo node
 * belongs to a tile that is idle now, its height is constant for the
 * launch (relabels inside the tile read it safely), and pushes into it
 * only add to its excess and to its one reverse residual, each written by
 * exactly one node of exactly one running tile.
 *
 * The global relabel is tiled too: a block relaxes distances inside its
 * tile until they settle (Bellman-Ford in shared memory), in the batches
 * of launches cuda-launches enqueues.  "Rounds" for this variant count
 * sweeps (four colour launches each), read back once SWEEPS_PER_CHECK
 * sweeps, which is not comparable to cuda-global's rounds.
 *
 */
#include "gc_device.cuh"

#define TILE 16
#define HALO (TILE + 2)
#define TILE_ROUNDS 8
#define SWEEPS_PER_CHECK 8
#define BFS_PER_CHECK 8

struct tile_net {
    int width, height;
    long n;
    int32_t *r, *sink, *excess, *h;
};

/* ---- the global relabel ---- */

static __global__ void tile_bfs_init(tile_net t, int *changed)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p < t.n)
        t.h[p] = t.sink[p] > 0 ? 1 : SB_MF_INF;
    if (p == 0)
        changed[0] = 1;
}

/* Launch `slot`: skipped when launch slot - 1 changed nothing. */
static __global__ void __launch_bounds__(TILE *TILE) tile_bfs(tile_net t, int *changed, int slot)
{
    __shared__ int32_t hs[HALO][HALO];
    if (changed[slot - 1] == 0)
        return;
    int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
    bool inside = x < t.width && y < t.height;
    long p = (long)y * t.width + x;
    for (int i = threadIdx.x; i < HALO * HALO; i += TILE * TILE) {
        int hx = blockIdx.x * TILE + i % HALO - 1, hy = blockIdx.y * TILE + i / HALO - 1;
        hs[i / HALO][i % HALO] = hx >= 0 && hy >= 0 && hx < t.width && hy < t.height
                                     ? t.h[(long)hy * t.width + hx] : SB_MF_INF;
    }
    uint8_t bits = 0;                       /* bit k: the node's edge k has residual capacity */
    if (inside)
        for (int k = 0; k < SB_MF_DIRS; k++)
            bits |= (t.r[(size_t)k * t.n + p] > 0) << k;
    __syncthreads();
    int changed_any = 0;
    for (;;) {
        int32_t best = hs[ty + 1][tx + 1];
        if (inside)
            for (int k = 0; k < SB_MF_DIRS; k++)
                if (bits >> k & 1) {
                    int32_t hq = hs[ty + 1 + sb_mf_dy(k)][tx + 1 + sb_mf_dx(k)];
                    if (hq + 1 < best)
                        best = hq + 1;
                }
        __syncthreads();
        int mine = best < hs[ty + 1][tx + 1];
        if (mine)
            hs[ty + 1][tx + 1] = best;
        changed_any |= mine;
        if (!__syncthreads_or(mine))
            break;
    }
    if (inside && changed_any)
        t.h[p] = hs[ty + 1][tx + 1];
    if (__syncthreads_or(changed_any) && threadIdx.x == 0)
        changed[slot] = 1;
}

/* ---- local rounds in one colour's tiles ---- */

static __global__ void __launch_bounds__(TILE *TILE) tile_rounds(tile_net t, int cx, int cy)
{
    __shared__ int32_t hs[HALO][HALO], hn[TILE][TILE], inflow[HALO][HALO];
    __shared__ int32_t rs[SB_MF_DIRS][TILE][TILE];
    int bx = 2 * blockIdx.x + cx, by = 2 * blockIdx.y + cy;
    if (bx * TILE >= t.width || by * TILE >= t.height)
        return;
    int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    int x = bx * TILE + tx, y = by * TILE + ty;
    bool inside = x < t.width && y < t.height;
    long p = (long)y * t.width + x;
    /* A tile with no active node would push nothing and relabel nothing
     * in any round: it leaves at once, having read 8 bytes a node instead
     * of 48 and written none.  Late in a cut most tiles are such. */
    if (!__syncthreads_or(inside && t.excess[p] > 0 && t.h[p] < SB_MF_INF))
        return;
    for (int i = threadIdx.x; i < HALO * HALO; i += TILE * TILE) {
        int hx = bx * TILE + i % HALO - 1, hy = by * TILE + i / HALO - 1;
        hs[i / HALO][i % HALO] = hx >= 0 && hy >= 0 && hx < t.width && hy < t.height
                                     ? t.h[(long)hy * t.width + hx] : SB_MF_INF;
        inflow[i / HALO][i % HALO] = 0;
    }
    int32_t e = 0, sink = 0;
    for (int k = 0; k < SB_MF_DIRS; k++)
        rs[k][ty][tx] = inside ? t.r[(size_t)k * t.n + p] : 0;
    if (inside) {
        e = t.excess[p];
        sink = t.sink[p];
    }
    __syncthreads();

    for (int round = 0; round < TILE_ROUNDS; round++) {
        int32_t h = hs[ty + 1][tx + 1];
        /* phase A: push (maxflow.h's sb_mf_push, on the shared copy) */
        if (inside && e > 0 && h < SB_MF_INF) {
            if (h == 1 && sink > 0) {
                int32_t d = e < sink ? e : sink;
                sink -= d;
                e -= d;
            }
            for (int k = 0; k < SB_MF_DIRS && e > 0; k++) {
                int qx = x + sb_mf_dx(k), qy = y + sb_mf_dy(k);
                if (qx < 0 || qy < 0 || qx >= t.width || qy >= t.height)
                    continue;
                int lx = tx + 1 + sb_mf_dx(k), ly = ty + 1 + sb_mf_dy(k);
                if (hs[ly][lx] != h - 1)
                    continue;
                int32_t c = rs[k][ty][tx];
                if (c <= 0)
                    continue;
                int32_t d = e < c ? e : c;
                rs[k][ty][tx] = c - d;
                if (lx >= 1 && lx <= TILE && ly >= 1 && ly <= TILE)
                    rs[k ^ 4][ly - 1][lx - 1] += d;              /* a tile node: its shared copy */
                else
                    t.r[(size_t)(k ^ 4) * t.n + (long)qy * t.width + qx] += d;   /* a halo node, idle tile */
                atomicAdd(&inflow[ly][lx], d);
                e -= d;
            }
        }
        __syncthreads();
        /* phase B: gather and relabel against this round's heights */
        int active = 0;
        int32_t nh = h;
        if (inside) {
            e += inflow[ty + 1][tx + 1];
            inflow[ty + 1][tx + 1] = 0;
            if (e > 0 && h < SB_MF_INF) {
                if (sink > 0)
                    nh = 1;
                else {
                    int32_t lowest = SB_MF_INF;
                    bool admissible = false;
                    for (int k = 0; k < SB_MF_DIRS; k++) {
                        if (rs[k][ty][tx] <= 0)
                            continue;
                        int32_t hq = hs[ty + 1 + sb_mf_dy(k)][tx + 1 + sb_mf_dx(k)];
                        admissible |= hq == h - 1;
                        lowest = hq < lowest ? hq : lowest;
                    }
                    if (!admissible)
                        nh = lowest >= SB_MF_INF - 1 ? SB_MF_INF : lowest + 1;
                }
            }
            active = e > 0 && nh < SB_MF_INF;
        }
        hn[ty][tx] = nh;
        __syncthreads();
        hs[ty + 1][tx + 1] = hn[ty][tx];
        if (!__syncthreads_or(active))
            break;
    }

    if (inside) {
        for (int k = 0; k < SB_MF_DIRS; k++)
            t.r[(size_t)k * t.n + p] = rs[k][ty][tx];
        t.excess[p] = e;
        t.sink[p] = sink;
        t.h[p] = hs[ty + 1][tx + 1];
    }
    /* what was pushed into the halo: the idle neighbours' excess */
    for (int i = threadIdx.x; i < HALO * HALO; i += TILE * TILE) {
        int lx = i % HALO, ly = i / HALO;
        if (lx >= 1 && lx <= TILE && ly >= 1 && ly <= TILE)
            continue;
        int hx = bx * TILE + lx - 1, hy = by * TILE + ly - 1;
        if (inflow[ly][lx] && hx >= 0 && hy >= 0 && hx < t.width && hy < t.height)
            atomicAdd(&t.excess[(long)hy * t.width + hx], inflow[ly][lx]);
    }
}

/* Active nodes after a sweep, into count[slot]. */
static __global__ void tile_count(tile_net t, int *count, int slot)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    int active = p < t.n && t.excess[p] > 0 && t.h[p] < SB_MF_INF;
    int c = __syncthreads_count(active);
    if (threadIdx.x == 0 && c)
        atomicAdd(&count[slot], c);
}

static __global__ void tile_init(tile_net t, const int32_t *term, const int32_t *n0, const int32_t *n1, const int32_t *n2,
                          const int32_t *n3)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= t.n)
        return;
    const int32_t *nl[4] = { n0, n1, n2, n3 };
    int x = (int)(p % t.width), y = (int)(p / t.width);
    for (int k = 0; k < SB_MF_DIRS; k++) {
        int qx = x + sb_mf_dx(k), qy = y + sb_mf_dy(k);
        int32_t c = 0;
        if (qx >= 0 && qy >= 0 && qx < t.width && qy < t.height)
            c = k < 4 ? nl[k][p] : nl[k - 4][(long)qy * t.width + qx];
        t.r[(size_t)k * t.n + p] = c;
    }
    t.excess[p] = term[p] > 0 ? term[p] : 0;
    t.sink[p] = term[p] < 0 ? -term[p] : 0;
}

static __global__ void tile_cut(tile_net t, const int32_t *term, uint8_t *fg, long long *flow)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long long f = 0;
    if (p < t.n) {
        fg[p] = t.h[p] >= SB_MF_INF;
        f = (long long)(term[p] < 0 ? -term[p] : 0) - t.sink[p];   /* sb_mf_sink_flow, warm or cold */
    }
    for (int o = 16; o > 0; o >>= 1)
        f += __shfl_down_sync(0xffffffffu, f, o);
    if ((threadIdx.x & 31) == 0 && f)
        atomicAdd((unsigned long long *)flow, (unsigned long long)f);
}

static __global__ void tile_stats(const long long *flow, int rounds, int relabels, gc_dev_stats *stats, int it)
{
    stats->flow[it] = *flow;
    stats->rounds[it] = rounds;
    stats->relabels[it] = relabels;
}

/* ---- the host loop: one read-back a batch ---- */

/* Flags and counts the loop reads back: BFS change flags, sweep counts
 * (and, where the loop runs on the device, 5_graph.cu, its tallies). */
struct tile_flags {
    int bfs[BFS_PER_CHECK + 1];
    int count[SWEEPS_PER_CHECK];
    int sweeps, relabels;
};

struct tiles_state {
    tile_flags *flags;                 /* device */
    tile_flags *host;                  /* pinned */
};

static inline sb_status tiles_prepare(gc_dev *d, sb_error *err)
{
    tiles_state *s = (tiles_state *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->cut_state = s;
    SB_CUDA_TRY(cudaMalloc(&s->flags, sizeof(tile_flags)), err, d->who);
    SB_CUDA_TRY(cudaMallocHost(&s->host, sizeof(tile_flags)), err, d->who);
    return SB_OK;
}

static inline void tiles_release(gc_dev *d)
{
    tiles_state *s = (tiles_state *)d->cut_state;
    cudaFree(s->flags);
    cudaFreeHost(s->host);
    free(s);
}

static inline sb_status tiles_bfs(gc_dev *d, tile_net t, tile_flags *flags, tile_flags *host, sb_error *err)
{
    unsigned blocks = sb_div_up((unsigned long long)d->n, 256);
    dim3 grid(sb_div_up(d->width, TILE), sb_div_up(d->height, TILE));
    tile_bfs_init<<<blocks, 256, 0, d->stream>>>(t, flags->bfs);
    SB_CUDA_LAUNCHED(err, d->who);
    for (;;) {
        SB_CUDA_TRY(cudaMemsetAsync(flags->bfs + 1, 0, sizeof(int) * BFS_PER_CHECK, d->stream), err, d->who);
        for (int s = 1; s <= BFS_PER_CHECK; s++)
            tile_bfs<<<grid, TILE * TILE, 0, d->stream>>>(t, flags->bfs, s);
        SB_CUDA_LAUNCHED(err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(host->bfs, flags->bfs, sizeof host->bfs, cudaMemcpyDeviceToHost, d->stream), err,
                    d->who);
        SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
        if (host->bfs[BFS_PER_CHECK] == 0)
            return SB_OK;
        /* still changing: the next batch's launch 1 looks at slot 0 */
        SB_CUDA_TRY(cudaMemsetAsync(flags->bfs, 0xff, sizeof(int), d->stream), err, d->who);
    }
}

/* Where a cut starts: from zero flow, the residual network of d->term and
 * the n-links. */
static inline sb_status tiles_start(gc_dev *d, int it, sb_error *err)
{
    (void)it;
    tile_net t = { d->width, d->height, d->n, d->r, d->sink, d->excess, d->h[0] };
    unsigned blocks = sb_div_up((unsigned long long)d->n, 256);
    tile_init<<<blocks, 256, 0, d->stream>>>(t, d->term, d->nlink[0], d->nlink[1], d->nlink[2], d->nlink[3]);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* The cut from the preflow tiles_start left in d's buffers: a
 * global relabel, SWEEPS_PER_CHECK sweeps of the four colours, a count
 * read back; again until no node is active; then the final BFS gives
 * the canonical cut.  Writes the flow, sweeps and relabels for `it`. */
static inline sb_status tiles_loop(gc_dev *d, int it, sb_error *err)
{
    tile_net t = { d->width, d->height, d->n, d->r, d->sink, d->excess, d->h[0] };
    tiles_state *state = (tiles_state *)d->cut_state;
    tile_flags *flags = state->flags, *host = state->host;
    unsigned blocks = sb_div_up((unsigned long long)d->n, 256);
    SB_CUDA_TRY(cudaMemsetAsync(&d->s->flow, 0, sizeof d->s->flow, d->stream), err, d->who);
    dim3 colour_grid(sb_div_up(d->width, 2 * TILE), sb_div_up(d->height, 2 * TILE));
    int sweeps = 0, relabels = 0;
    sb_status st;
    for (;;) {
        if ((st = tiles_bfs(d, t, flags, host, err)))
            return st;
        relabels++;
        SB_CUDA_TRY(cudaMemsetAsync(flags->count, 0, sizeof flags->count, d->stream), err, d->who);
        for (int s = 0; s < SWEEPS_PER_CHECK; s++) {
            for (int c = 0; c < 4; c++)
                tile_rounds<<<colour_grid, TILE * TILE, 0, d->stream>>>(t, c & 1, c >> 1);
            tile_count<<<blocks, 256, 0, d->stream>>>(t, flags->count, s);
        }
        SB_CUDA_LAUNCHED(err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(host->count, flags->count, sizeof host->count, cudaMemcpyDeviceToHost,
                                    d->stream),
                    err, d->who);
        SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
        int done = 0;
        for (int s = 0; s < SWEEPS_PER_CHECK && !done; s++) {
            sweeps++;
            done = host->count[s] == 0;
        }
        if (done)
            break;
    }
    if ((st = tiles_bfs(d, t, flags, host, err)))
        return st;
    tile_cut<<<blocks, 256, 0, d->stream>>>(t, d->term, d->fg, &d->s->flow);
    tile_stats<<<1, 1, 0, d->stream>>>(&d->s->flow, sweeps, relabels, d->stats, it);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the variant ---- */

/* Every cut from zero flow. */
static sb_status tiles_solve(gc_dev *d, int it, sb_error *err)
{
    sb_status st = tiles_start(d, it, err);
    return st ? st : tiles_loop(d, it, err);
}

static const gc_cut tiles_cut = { tiles_prepare, tiles_solve, tiles_release, 0 };

/* ---- the k-means and GMM sums, a block at a time ---- */

/* One k-means pass: each pixel's nearest centre among its side's 5, the
 * changed count and the integer sums, the block's totals gathered in
 * shared memory first.  A no-op once converged. */
static __global__ void block_kmeans_pass(long n, const uint8_t *rgb, const uint8_t *mask, uint8_t *comp,
                                         gc_dev_scratch *s, const int *passes)
{
    __shared__ sb_kmeans_prepped centres[2 * SB_GC_K];
    __shared__ unsigned long long sums[2 * SB_GC_K][4];
    __shared__ unsigned long long changed;
    if (s->kdone)
        return;
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K)
        centres[t] = sb_kmeans_prep(s->centres[t / SB_GC_K][t % SB_GC_K]);
    if (t < 2 * SB_GC_K * 4)
        sums[t / 4][t % 4] = 0;
    if (t == 0)
        changed = 0;
    __syncthreads();
    long i = (long)blockIdx.x * blockDim.x + t;
    if (i < n) {
        int side = SB_GC_SIDE(mask[i]);
        const uint8_t *px = rgb + 3 * i;
        int best = gc_kmeans_nearest(centres + side * SB_GC_K, px);
        if (*passes == 0 || comp[i] != best)
            atomicAdd(&changed, 1ull);
        comp[i] = (uint8_t)best;
        unsigned long long *sm = sums[side * SB_GC_K + best];
        atomicAdd(&sm[0], (unsigned long long)px[0]);
        atomicAdd(&sm[1], (unsigned long long)px[1]);
        atomicAdd(&sm[2], (unsigned long long)px[2]);
        atomicAdd(&sm[3], 1ull);
    }
    __syncthreads();
    if (t < 2 * SB_GC_K * 4 && sums[t / 4][t % 4])
        atomicAdd(&s->ksums[t / 4][t % 4], sums[t / 4][t % 4]);
    if (t == 0 && changed)
        atomicAdd(&s->changed, changed);
}

/* The GMM moments of every pixel's side and component, the block's
 * totals gathered in shared memory first (as in block_kmeans_pass). */
static __global__ void block_learn_sums(long n, const uint8_t *rgb, const uint8_t *mask, const uint8_t *comp,
                                        gc_dev_scratch *s)
{
    __shared__ unsigned long long sums[2 * SB_GC_K][10];
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K * 10)
        sums[t / 10][t % 10] = 0;
    __syncthreads();
    long i = (long)blockIdx.x * blockDim.x + t;
    if (i < n) {
        uint64_t own[10] = { 0 };
        sb_gc_sums_add(own, rgb + 3 * i);
        unsigned long long *sm = sums[SB_GC_SIDE(mask[i]) * SB_GC_K + comp[i]];
        for (int j = 0; j < 10; j++)
            atomicAdd(&sm[j], (unsigned long long)own[j]);
    }
    __syncthreads();
    if (t < 2 * SB_GC_K * 10 && sums[t / 10][t % 10])
        atomicAdd(&(&s->gsums[0][0][0])[t], sums[t / 10][t % 10]);
}

static void block_kmeans(gc_dev *d)
{
    block_kmeans_pass<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s,
                                                                &d->stats->passes);
}

static void block_learn(gc_dev *d) { block_learn_sums<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s); }

static const gc_sums block_sums = { block_kmeans, block_learn };

/* ---- the variants ---- */

GC_CUDA_OPS(maxflow_shared, GC_MAXFLOW, tiles_cut, block_sums)
GC_CUDA_OPS(pipeline_shared, GC_PIPELINE, tiles_cut, block_sums)

SB_VARIANT("grabcut-maxflow", "cuda-tiles", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "16x16 tiles in four colours, 8 push/relabel rounds a launch in shared memory; tiled BFS relabel",
           maxflow_shared_prepare, maxflow_shared_upload, maxflow_shared_run, maxflow_shared_fetch, maxflow_shared_release)
SB_VARIANT("grabcut", "cuda-tiles", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "the cuda-global steps with the tiled cut",
           pipeline_shared_prepare, pipeline_shared_upload, pipeline_shared_run, pipeline_shared_fetch, pipeline_shared_release)
SB_RUNG("grabcut-maxflow", "cuda-tiles", "cuda-launches",
        "16x16 tiles in four colours: push/relabel rounds in shared memory between block barriers, not grid barriers")
SB_RUNG("grabcut", "cuda-tiles", "cuda-launches", "the tiled cut (grabcut-maxflow's cuda-tiles) in the pipeline")
