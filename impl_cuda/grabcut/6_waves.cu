/* 6_waves.cu - cuda-waves of the pipeline and grabcut-maxflow.  A branch of
 * cuda-graph.  The idea: a tile runs when it holds work, not when its colour
 * comes round: each launch (a wave) covers every tile, and an idle one leaves
 * at once. */
#include "3_tiles.cuh"
#include "5_graph.cuh"
#include "gc_rounds.cuh"

#define TILE GC_TILE
#define HALO GC_HALO
#define TILE_ROUNDS 8
#define WAVES_PER_CHECK 32

/* Which tiles hold an active node: three copies, the one a wave reads, the
 * one it writes and the one it clears for the next wave. */
struct tile_waves {
    uint8_t *flag[3];
};

/* Tile (x, y)'s place in wave w's order: colour w % 4 first. */
__device__ __forceinline__ int wave_rank(int x, int y, int w) { return ((x & 1) + 2 * (y & 1) + 4 - w % 4) % 4; }

/* ---- local rounds in the tiles that hold work ---- */

/* Wave w: every busy tile that no busy neighbour comes before; count[w]
 * is set when a tile is busy after it. */
static __global__ void __launch_bounds__(TILE *TILE) tile_wave(tile_net t, tile_waves f, int *count, int w)
{
    __shared__ gc_halo_plane hs, inflow;
    __shared__ int32_t hn[TILE][TILE];
    __shared__ gc_tile_residuals rs;
    int bx = blockIdx.x, by = blockIdx.y, tiles_x = gridDim.x;
    const uint8_t *now = f.flag[w % 3];
    uint8_t *next = f.flag[(w + 1) % 3];
    if (threadIdx.x == 0)
        f.flag[(w + 2) % 3][by * tiles_x + bx] = 0;
    if (!now[by * tiles_x + bx])
        return;                                             /* idle: one byte read */
    int first = 0;                                          /* a busy neighbour comes first */
    if (threadIdx.x < 9 && threadIdx.x != 4) {
        int nx = bx + (int)threadIdx.x % 3 - 1, ny = by + (int)threadIdx.x / 3 - 1;
        if (nx >= 0 && ny >= 0 && nx < tiles_x && ny < (int)gridDim.y && now[ny * tiles_x + nx])
            first = wave_rank(nx, ny, w) < wave_rank(bx, by, w);
    }
    if (__syncthreads_or(first)) {
        if (threadIdx.x == 0) {
            next[by * tiles_x + bx] = 1;                    /* still busy: waits */
            count[w] = 1;
        }
        return;
    }
    gc_tile_node at;
    gc_tile_at(t, bx, by, at);
    int32_t e, sink;
    gc_tile_load(t, at, hs, inflow, rs, e, sink);
    int busy = 0;
    for (int round = 0; round < TILE_ROUNDS; round++) {
        int32_t h = hs[at.ty + 1][at.tx + 1];
        gc_tiles_push(t, at, h, hs, rs, inflow, e, sink);
        __syncthreads();
        int active;
        int32_t nh = gc_tiles_relabel(at, h, hs, rs, inflow, e, sink, active);
        hn[at.ty][at.tx] = nh;
        __syncthreads();
        hs[at.ty + 1][at.tx + 1] = hn[at.ty][at.tx];
        if (!(busy = __syncthreads_or(active)))
            break;
    }
    gc_tiles_store(t, at, hs, rs, e, sink);
    if (busy && threadIdx.x == 0) {
        next[by * tiles_x + bx] = 1;
        count[w] = 1;
    }
    /* what was pushed into the halo: the idle neighbours' excess, and
     * their tiles busy */
    for (int i = threadIdx.x; i < HALO * HALO; i += TILE * TILE) {
        int lx = i % HALO, ly = i / HALO;
        if (lx >= 1 && lx <= TILE && ly >= 1 && ly <= TILE)
            continue;
        int hx = bx * TILE + lx - 1, hy = by * TILE + ly - 1;
        if (inflow[ly][lx] && hx >= 0 && hy >= 0 && hx < t.width && hy < t.height) {
            atomicAdd(&t.excess[(long)hy * t.width + hx], inflow[ly][lx]);
            next[hy / TILE * tiles_x + hx / TILE] = 1;
            count[w] = 1;
        }
    }
}

/* The flags from the nodes, after a global relabel: wave 0 reads flag[0]
 * and writes flag[1], which starts clear. */
static __global__ void __launch_bounds__(TILE *TILE) tile_wave_start(tile_net t, tile_waves f)
{
    int x = blockIdx.x * TILE + threadIdx.x % TILE, y = blockIdx.y * TILE + threadIdx.x / TILE;
    long p = (long)y * t.width + x;
    int busy = __syncthreads_or(x < t.width && y < t.height && t.excess[p] > 0 && t.h[p] < SB_MF_INF);
    if (threadIdx.x == 0) {
        f.flag[0][blockIdx.y * gridDim.x + blockIdx.x] = busy;
        f.flag[1][blockIdx.y * gridDim.x + blockIdx.x] = 0;
    }
}

/* Wave w of a batch; the first starts the batch's ranks. */
static void waves_sweep(cudaStream_t s, const gc_loop &l, int w)
{
    dim3 tile_grid(sb_div_up(l.t.width, TILE), sb_div_up(l.t.height, TILE));
    size_t tiles = (size_t)tile_grid.x * tile_grid.y;
    tile_waves wv = { { l.busy, l.busy + tiles, l.busy + 2 * tiles } };
    if (w == 0)
        tile_wave_start<<<tile_grid, TILE * TILE, 0, s>>>(l.t, wv);
    tile_wave<<<tile_grid, TILE * TILE, 0, s>>>(l.t, wv, l.f->count, w);
}

/* ---- the variants: cuda-tiles' relabel, then waves, in cuda-graph's loop ---- */

static const gc_tile_kernels waves_kernels = { gc_tiles_bfs_start, gc_tiles_bfs, waves_sweep, nullptr, WAVES_PER_CHECK };

GC_GRAPH_CUT(graph_cut, waves_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-waves", "cuda-graph", "cuda-shared", SB_GRAPH_LOOP,
             "tiles run in waves when they hold work: ranks that rotate instead of fixed colour launches",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-waves", "cuda-graph", "cuda-shared", SB_GRAPH_LOOP,
             "the cut in waves: busy tiles run when no busy neighbour ranks before them",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
