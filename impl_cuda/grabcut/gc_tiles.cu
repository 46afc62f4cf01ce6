/* gc_tiles.cu - the kernels the tiled cuts share (gc_tiles.cuh): a thread
 * a node, launched around a cut's loop. */
#include "gc_tiles.cuh"

static __global__ void tile_init(tile_net t, const int32_t *term, const int32_t *n0, const int32_t *n1, const int32_t *n2,
                                 const int32_t *n3)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= t.n)
        return;
    const int32_t *const nl[4] = { n0, n1, n2, n3 };
    gc_node_init(t.width, t.height, t.n, t.r, t.excess, t.sink, p, term, nl);
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

sb_status gc_tiles_init(gc_dev *d, sb_error *err)
{
    tile_init<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(gc_tile_net(d), d->term, d->nlink[0], d->nlink[1], d->nlink[2],
                                                        d->nlink[3]);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

void gc_tiles_count(cudaStream_t s, tile_net t, int *count, int slot)
{
    tile_count<<<sb_div_up((unsigned long long)t.n, GC_BLOCK), GC_BLOCK, 0, s>>>(t, count, slot);
}

void gc_tiles_cut(cudaStream_t s, const gc_dev *d)
{
    tile_cut<<<gc_blocks(d), GC_BLOCK, 0, s>>>(gc_tile_net(d), d->term, d->fg, &d->s->flow);
}

void gc_tiles_stats(cudaStream_t s, const gc_dev *d, int rounds, int relabels, int it)
{
    tile_stats<<<1, 1, 0, s>>>(&d->s->flow, rounds, relabels, d->stats, it);
}
