/* 10_onelaunch.cu - cuda-onelaunch.  A branch of cuda-rows.  The idea: every
 * iteration in one cooperative launch, with no host wait. */
#include "8_rows.cuh"
#include "../coop.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* slic.h's update of every centre from its sums, the sums zeroed, a
 * thread a centre; in converge mode (*unsettled not null) the centres it
 * left unsettled are added to *unsettled.  Every block calls it. */
static __device__ __forceinline__ void slic_update_all(int count, sb_slic_centre *centres, unsigned long long *sums,
                                                       int *unsettled)
{
    int lane = threadIdx.x, step = gridDim.x * TILE_THREADS;
    for (int first = blockIdx.x * TILE_THREADS; first < count; first += step) {   /* whole warps */
        int c = first + threadIdx.y * TILE + lane;
        bool moved = false;
        if (c < count) {
            uint64_t s[6];
            for (int k = 0; k < 6; k++) {
                s[k] = __ldcg(&sums[6 * c + k]);   /* added by other blocks: past L1 */
                sums[6 * c + k] = 0;
            }
            sb_slic_centre was = centres[c], now = was;
            sb_slic_update_centre(&now, s);
            centres[c] = now;
            moved = sb_slic_unsettled(&was, &now);
        }
        if (unsettled) {
            unsigned warp_moved = __ballot_sync(SLIC_FULL_MASK, moved);
            if (lane == 0 && warp_moved)
                atomicAdd(unsettled, __popc(warp_moved));
        }
    }
}

/* As many blocks an SM as cuda-rows' pass kernel gets (40 registers):
 * left to itself the compiler gives this kernel 48, 5 blocks an SM, and
 * the pass, bound by latency, runs a sixth slower. */
enum { ONELAUNCH_BLOCKS_PER_SM = 6 };

/* Every iteration: the tiles' passes, a wait, the update, a wait.
 * taken: the tiles handed out, a count an iteration, zeroed; unsettled:
 * converge mode's counts, the same (null outside converge mode); *made
 * gets the iterations made. */
static __global__ void __launch_bounds__(TILE_THREADS, ONELAUNCH_BLOCKS_PER_SM)
    slic_all_passes(GlobalColour load, sb_slic_geometry g, sb_slic_centre *centres, int32_t *labels,
                    unsigned long long *sums, int iterations, unsigned *taken, int *unsettled, int *made)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned next_tile;
    unsigned tiles_x = (g.width + TILE - 1) / TILE, tiles = tiles_x * ((g.height + TILE - 1) / TILE);
    int it = 0;
    while (it < iterations) {
        /* A block takes the next tile when it is done with one, as the
         * hardware hands out a launch's blocks: dealt out in turn, 2,040
         * tiles over 792 blocks would be three tiles for some blocks and
         * two for the rest. */
        for (;;) {
            __syncthreads();   /* the last tile's flush has read the shared sums, every thread next_tile */
            if (threadIdx.x == 0 && threadIdx.y == 0)
                next_tile = atomicAdd(&taken[it], 1u);
            __syncthreads();
            unsigned tile = next_tile;
            if (tile >= tiles)
                break;
            slic_rows_tile(load, g, centres, labels, sums, tile % tiles_x, tile / tiles_x);
        }
        grid.sync();
        slic_update_all(g.centres, centres, sums, unsettled ? &unsettled[it] : nullptr);
        grid.sync();
        it++;
        if (unsettled && sb_slic_settled(__ldcg(&unsettled[it - 1]), g.centres))
            break;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0 && threadIdx.y == 0)
        *made = it;
}

struct onelaunch_device {
    slic_device d;         /* first: the shared state */
    unsigned *taken;       /* the tiles handed out, a count an iteration */
    int *unsettled;        /* converge mode: a count an iteration */
    int *made;             /* the iterations the kernel made */
    int blocks;            /* resident blocks of the cooperative kernel */
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(onelaunch_device), in, params, output, exec, err);
    if (st)
        return st;
    onelaunch_device *s = (onelaunch_device *)*state;
    slic_device *d = &s->d;
    size_t smem = slic_tile_shared_bytes(d->geo.S);
    long tiles = (long)sb_div_up(d->geo.width, TILE) * sb_div_up(d->geo.height, TILE);
    if ((st = slic_allow_shared(slic_all_passes, smem, d, err)) ||
        (st = sb_coop_blocks(slic_all_passes, TILE_THREADS, smem, tiles, &s->blocks, d->who, err)))
        return st;
    size_t counts = (size_t)d->params.iterations + 1;
    SB_CUDA_TRY(cudaMalloc(&s->made, sizeof(int)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&s->taken, counts * sizeof(unsigned)), err, d->who);
    if (d->params.converge)
        SB_CUDA_TRY(cudaMalloc(&s->unsettled, counts * sizeof(int)), err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    onelaunch_device *s = (onelaunch_device *)state;
    slic_device *d = &s->d;
    sb_status st = slic_start(d, err);
    if (st)
        return st;
    size_t counts = (size_t)d->params.iterations + 1;
    SB_CUDA_TRY(cudaMemsetAsync(s->taken, 0, counts * sizeof(unsigned), d->stream), err, d->who);
    if (s->unsettled)
        SB_CUDA_TRY(cudaMemsetAsync(s->unsettled, 0, counts * sizeof(int), d->stream), err, d->who);
    GlobalColour load = { d->colour };
    void *args[] = { &load, &d->geo, &d->centres, &d->labels, &d->sums, &d->params.iterations, &s->taken,
                     &s->unsettled, &s->made };
    SB_CUDA_TRY(cudaLaunchCooperativeKernel((const void *)slic_all_passes, dim3(s->blocks), dim3(TILE, TILE_ROWS),
                                            args, slic_tile_shared_bytes(d->geo.S), d->stream),
                err, d->who);
    return slic_finish(d, err);
}

/* The iterations the kernel made, then the shared fetch (which waits). */
static sb_status rung_fetch(void *state, sb_error *err)
{
    onelaunch_device *s = (onelaunch_device *)state;
    SB_CUDA_TRY(cudaMemcpyAsync(&s->d.iterations, s->made, sizeof(int), cudaMemcpyDeviceToHost, s->d.stream), err,
                s->d.who);
    return slic_cuda_fetch(state, err);
}

static void rung_release(void *state)
{
    onelaunch_device *s = (onelaunch_device *)state;
    if (s) {
        cudaFree(s->taken);
        cudaFree(s->unsettled);
        cudaFree(s->made);
    }
    slic_device_close(state);
}

SB_CUDA_RUNG("slic", "cuda-onelaunch", "cuda-rows", "cuda-shared", 0,
             "every iteration in one cooperative launch: the tiles' passes, a grid.sync, the update, a grid.sync",
             rung_prepare, slic_cuda_upload, rung_run, rung_fetch, rung_release)
