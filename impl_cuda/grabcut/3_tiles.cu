/* 3_tiles.cu - cuda-tiles of the pipeline and grabcut-maxflow (formerly
 * cuda-shared).  Grows from cuda-launches.  The idea: a block runs many
 * push-relabel rounds on a 16x16 tile and its halo in shared memory before
 * writing back, tiles of four colours in turn. */
#include "3_tiles.cuh"
#include "gc_rounds.cuh"

#define TILE GC_TILE
#define HALO GC_HALO
#define TILE_ROUNDS 8
#define SWEEPS_PER_CHECK 8

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
    __shared__ gc_halo_plane hs, inflow;
    __shared__ int32_t hn[TILE][TILE];
    __shared__ gc_tile_residuals rs;
    gc_tile_node at;
    if (!gc_tile_enter(t, cx, cy, at))
        return;
    int32_t e, sink;
    gc_tile_load(t, at, hs, inflow, rs, e, sink);
    for (int round = 0; round < TILE_ROUNDS; round++) {
        int32_t h = hs[at.ty + 1][at.tx + 1];
        gc_tiles_push(t, at, h, hs, rs, inflow, e, sink);
        __syncthreads();
        int active;
        int32_t nh = gc_tiles_relabel(at, h, hs, rs, inflow, e, sink, active);
        hn[at.ty][at.tx] = nh;             /* staged: a neighbour may still be reading hs[] */
        __syncthreads();
        hs[at.ty + 1][at.tx + 1] = hn[at.ty][at.tx];
        if (!__syncthreads_or(active))
            break;
    }
    gc_tiles_store(t, at, hs, rs, e, sink);
    gc_tile_settle(t, at, inflow);
}

/* ---- the kernels' launchers ---- */

void gc_tiles_bfs_start(cudaStream_t s, const gc_loop &l)
{
    tile_bfs_init<<<gc_blocks(l.d), GC_BLOCK, 0, s>>>(l.t, l.f->bfs);
}

void gc_tiles_bfs(cudaStream_t s, const gc_loop &l, int slot)
{
    dim3 grid(sb_div_up(l.t.width, TILE), sb_div_up(l.t.height, TILE));
    tile_bfs<<<grid, TILE * TILE, 0, s>>>(l.t, l.f->bfs, slot);
}

/* The four colours' launches, then the active nodes counted. */
void gc_tiles_sweep(cudaStream_t s, const gc_loop &l, int sweep) { gc_colour_sweep<tile_rounds>(s, l, sweep); }

/* ---- the host loop: one read-back a batch ---- */

sb_status gc_host_loop_prepare(gc_dev *d, int warm, sb_error *err)
{
    gc_host_loop_state *s = (gc_host_loop_state *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->cut_state = s;
    SB_CUDA_TRY(cudaMalloc(&s->flags, sizeof(gc_loop_flags)), err, d->who);
    SB_CUDA_TRY(cudaMallocHost(&s->host, sizeof(gc_loop_flags)), err, d->who);
    if (warm)
        SB_CUDA_TRY(cudaMalloc(&s->last_term, sizeof(int32_t) * (size_t)d->n), err, d->who);
    return SB_OK;
}

void gc_host_loop_release(gc_dev *d)
{
    gc_host_loop_state *s = (gc_host_loop_state *)d->cut_state;
    cudaFree(s->flags);
    cudaFreeHost(s->host);
    cudaFree(s->last_term);
    free(s);
}

static sb_status tiles_bfs(gc_dev *d, const gc_loop &l, gc_loop_flags *host, sb_error *err)
{
    gc_tiles_bfs_start(d->stream, l);
    SB_CUDA_LAUNCHED(err, d->who);
    for (;;) {
        SB_CUDA_TRY(cudaMemsetAsync(l.f->bfs + 1, 0, sizeof(int) * GC_BFS_PER_CHECK, d->stream), err, d->who);
        for (int s = 1; s <= GC_BFS_PER_CHECK; s++)
            gc_tiles_bfs(d->stream, l, s);
        SB_CUDA_LAUNCHED(err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(host->bfs, l.f->bfs, sizeof host->bfs, cudaMemcpyDeviceToHost, d->stream), err,
                    d->who);
        SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
        if (host->bfs[GC_BFS_PER_CHECK] == 0)
            return SB_OK;
        /* still changing: the next batch's launch 1 looks at slot 0 */
        SB_CUDA_TRY(cudaMemsetAsync(l.f->bfs, 0xff, sizeof(int), d->stream), err, d->who);
    }
}

/* The cut from the preflow its start left in d's buffers: a global
 * relabel, SWEEPS_PER_CHECK sweeps of the four colours, a count read
 * back; again until no node is active; then the final BFS gives the
 * canonical cut.  Writes the flow, sweeps and relabels for `it`. */
sb_status gc_host_loop_run(gc_dev *d, int it, sb_error *err)
{
    gc_host_loop_state *state = (gc_host_loop_state *)d->cut_state;
    gc_loop_flags *host = state->host;
    gc_loop l = { d, gc_tile_net(d), state->flags, nullptr, nullptr };
    SB_CUDA_TRY(cudaMemsetAsync(&d->s->flow, 0, sizeof d->s->flow, d->stream), err, d->who);
    int sweeps = 0, relabels = 0;
    sb_status st;
    for (;;) {
        if ((st = tiles_bfs(d, l, host, err)))
            return st;
        relabels++;
        SB_CUDA_TRY(cudaMemsetAsync(l.f->count, 0, sizeof l.f->count, d->stream), err, d->who);
        for (int s = 0; s < SWEEPS_PER_CHECK; s++)
            gc_tiles_sweep(d->stream, l, s);
        SB_CUDA_LAUNCHED(err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(host->count, l.f->count, sizeof host->count, cudaMemcpyDeviceToHost, d->stream),
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
    if ((st = tiles_bfs(d, l, host, err)))
        return st;
    gc_tiles_cut(d->stream, d);
    gc_tiles_stats(d->stream, d, sweeps, relabels, it);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the variants ---- */

static sb_status tiles_prepare(gc_dev *d, sb_error *err) { return gc_host_loop_prepare(d, 0, err); }

/* Every cut from zero flow. */
static sb_status tiles_solve(gc_dev *d, int it, sb_error *err)
{
    sb_status st = gc_tiles_init(d, err);
    return st ? st : gc_host_loop_run(d, it, err);
}

static const gc_cut tiles_cut = { tiles_prepare, tiles_solve, gc_host_loop_release, 0 };

GC_CUDA_OPS(maxflow, GC_MAXFLOW, tiles_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, tiles_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-tiles", "cuda-launches", "cuda-shared", 0,
             "16x16 tiles in four colours: push/relabel rounds in shared memory between block barriers, not grid barriers",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-tiles", "cuda-launches", "cuda-shared", 0,
             "the tiled cut (grabcut-maxflow's cuda-tiles) in the pipeline",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
