/* km_quads.cuh - what k-means' rungs from cuda-warpsums (4_warpsums.cu) on
 * keep from the rungs that brought it: a warp's values added once per
 * distinct label (km_warp_add, cuda-warpsums'), the pixels read four at
 * a time as three words (GlobalLoader), the nearest centre to each of
 * four pixels and their sums pixel by pixel (km_nearest4, km_add_pixels:
 * cuda-fourpixels'), and the block that
 * finishes last (km_last_block, cuda-lastblock's).  Each rung's pass
 * kernel is its own: that is what the rungs change. */
#ifndef SEGBENCH_KM_QUADS_CUH
#define SEGBENCH_KM_QUADS_CUH

#include "3_blocksums.cuh"

/* Add one value per lane into the block's sums, one shared atomic per
 * distinct label in the warp.  Every lane of the warp must call it; lanes
 * with !valid add nothing.  `pending` is the same in every lane, so the
 * loop is too. */
__device__ __forceinline__ void km_warp_add(unsigned *acc, bool valid, unsigned label, unsigned r, unsigned g,
                                            unsigned b, unsigned count)
{
    unsigned pending = __ballot_sync(KM_FULL_MASK, valid);
    while (pending) {
        int leader = __ffs(pending) - 1;
        unsigned lab = __shfl_sync(KM_FULL_MASK, label, leader);
        bool mine = valid && label == lab;
        unsigned group = __ballot_sync(KM_FULL_MASK, mine);
        unsigned sr = km_warp_sum(mine ? r : 0u), sg = km_warp_sum(mine ? g : 0u), sb = km_warp_sum(mine ? b : 0u);
        unsigned sc = km_warp_sum(mine ? count : 0u);
        if ((threadIdx.x & 31) == (unsigned)leader) {
            atomicAdd(&acc[4 * lab], sr);
            atomicAdd(&acc[4 * lab + 1], sg);
            atomicAdd(&acc[4 * lab + 2], sb);
            atomicAdd(&acc[4 * lab + 3], sc);
        }
        pending &= ~group;
    }
}

/* Loaders: quad q is words 3q, 3q+1, 3q+2 (pixel i's byte c at 3i + c). */
struct GlobalLoader {
    const uint32_t *words;
    __device__ __forceinline__ uint3 operator()(unsigned q) const
    {
        const uint32_t *w = words + 3 * (size_t)q;
        return make_uint3(__ldg(w), __ldg(w + 1), __ldg(w + 2));
    }
};

/* The nearest centre to each of 4 pixels: kmeans.h's exact score, strict
 * < so ties keep the lower index.  One shared-memory read of a centre
 * serves all 4 pixels. */
__device__ __forceinline__ void km_nearest4(const float4 *centre, int k, const unsigned (&rgb)[4][3],
                                            unsigned (&lab)[4])
{
    float m[4][3], best[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
#pragma unroll
        for (int ch = 0; ch < 3; ch++)
            m[j][ch] = sb_kmeans_pixel_weight(rgb[j][ch]);
        best[j] = INFINITY;
        lab[j] = 0;
    }
#pragma unroll 4
    for (int c = 0; c < k; c++) {
        float4 cen = centre[c];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float s = sb_kmeans_score({ cen.x, cen.y, cen.z, cen.w }, m[j][0], m[j][1], m[j][2]);
            if (s < best[j]) {
                best[j] = s;
                lab[j] = (unsigned)c;
            }
        }
    }
}

/* A quad's pixels into the block's sums one by one, each as cuda-warpsums
 * adds one (cuda-fourpixels' and cuda-quad's sums); pixels past `inside`
 * add nothing.  Every lane of the warp calls it. */
struct km_add_pixels {
    __device__ __forceinline__ void operator()(unsigned *acc, bool, unsigned inside, const unsigned (&lab)[4],
                                               const unsigned (&rgb)[4][3]) const
    {
#pragma unroll
        for (int j = 0; j < 4; j++)
            km_warp_add(acc, (unsigned)j < inside, lab[j], rgb[j][0], rgb[j][1], rgb[j][2], 1u);
    }
};

/* Has every other block of this grid finished its atomics?  (The classic
 * "last block" pattern: fence, then take a ticket.) */
__device__ __forceinline__ bool km_last_block(km_control *control)
{
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(&control->blocks_done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (last)
        __threadfence();
    return last;
}

/* Quad q read through `load` (live: q is a quad of the image) and
 * labelled: its pixels' colours in rgb, their nearest centres in lab, and
 * the 4 labels packed into one word (returned); inside, how many of its
 * pixels lie in the image (the last quad may be short), inside_bytes the
 * mask of their bytes in that word. */
template <class Loader>
__device__ __forceinline__ uint32_t km_quad_labels(const Loader &load, unsigned q, bool live, unsigned long long n,
                                                   const float4 *centre, int k, unsigned (&rgb)[4][3],
                                                   unsigned (&lab)[4], unsigned &inside, uint32_t &inside_bytes)
{
    uint3 w = live ? load(q) : make_uint3(0, 0, 0);
    const uint32_t word[3] = { w.x, w.y, w.z };
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
        for (int ch = 0; ch < 3; ch++) {
            int byte = 3 * j + ch;
            rgb[j][ch] = (word[byte / 4] >> (8 * (byte % 4))) & 0xffu;
        }
    km_nearest4(centre, k, rgb, lab);
    uint32_t now = lab[0] | lab[1] << 8 | lab[2] << 16 | lab[3] << 24;
    unsigned long long first_px = 4ull * q;
    inside = !live ? 0u : n - first_px >= 4 ? 4u : (unsigned)(n - first_px);
    inside_bytes = inside == 4 ? 0xffffffffu : (1u << (8 * inside)) - 1u;
    return now;
}

/* ---- the quad rungs' host side: a grid of resident blocks, a pass, the update --------------- */

struct km_grid_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    unsigned blocks;
};

/* A prepare: km_device_open with a state of `size` bytes (a km_grid_state
 * first), then as many blocks of `threads` as fit on the GPU at `pass`'s
 * occupancy. */
template <class Kernel>
static sb_status km_grid_open(void **state, size_t size, Kernel pass, int threads, const sb_image *in,
                              const void *params, void *output, const sb_exec *exec, sb_error *err)
{
    sb_status st = km_device_open(state, size, in, params, output, exec, err);
    if (st)
        return st;
    km_grid_state *s = (km_grid_state *)*state;
    km_device *d = &s->dev;
    int per_sm = 0;
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pass, threads, 0), err, d->who);
    s->blocks = km_grid_blocks(d, d->quads, (unsigned)threads, (unsigned)per_sm);
    return SB_OK;
}

/* Enqueue a pass: `pass` over the quads through `load`, then, while the
 * update is a launch of its own (before cuda-lastblock), km_finish_kernel. */
template <class Kernel, class Loader>
static sb_status km_grid_pass(km_grid_state *s, Kernel pass, int threads, const Loader &load, int first_pass,
                              bool own_update, sb_error *err)
{
    km_device *d = &s->dev;
    pass<<<s->blocks, threads, 0, d->stream>>>(load, d->quads, (unsigned long long)d->n, d->labels, d->params.k,
                                               first_pass, !d->params.fixed, d->sums, d->centres, d->prepped,
                                               d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    if (own_update) {
        km_finish_kernel<<<1, 1024, 0, d->stream>>>(d->params.k, !d->params.fixed, d->sums, d->centres, d->prepped,
                                                   d->control);
        SB_CUDA_LAUNCHED(err, d->who);
    }
    return SB_OK;
}

/* A quad rung's prepare and run, rung_prepare and rung_run, over its pass
 * kernel `pass` (BLOCK_THREADS a block) reading the pixels through
 * GlobalLoader; own_update: the update is a launch of its own, as before
 * cuda-lastblock.  Each of those rungs names only its kernel and that. */
#define KM_GRID_OPS(pass, own_update)                                                                              \
    static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,              \
                                  const sb_exec *exec, sb_error *err)                                              \
    {                                                                                                              \
        return km_grid_open(state, sizeof(km_grid_state), pass, BLOCK_THREADS, in, params, output, exec, err);     \
    }                                                                                                              \
    static sb_status rung_run(void *state, sb_error *err)                                                          \
    {                                                                                                              \
        km_grid_state *s = (km_grid_state *)state;                                                                 \
        GlobalLoader load = { s->dev.rgb };                                                                        \
        return km_run_passes(&s->dev, [s, load](int first_pass, sb_error *e) {                                     \
            return km_grid_pass(s, pass, BLOCK_THREADS, load, first_pass, own_update, e);                          \
        }, err);                                                                                                   \
    }

#endif
