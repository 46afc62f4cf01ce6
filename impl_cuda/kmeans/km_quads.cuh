/* km_quads.cuh - what k-means' rungs from cuda-warpsums (4_warpsums.cu) on
 * keep from the rungs that brought it: a warp's values added once per
 * distinct label (km_warp_add, cuda-warpsums'), the pixels read four at
 * a time as three words (GlobalLoader) and the nearest centre to each of
 * four pixels (km_nearest4, cuda-fourpixels'), and the block that
 * finishes last (km_last_block, cuda-lastblock's).  Each rung's pass
 * kernel is its own: that is what the rungs change. */
#ifndef SEGBENCH_KM_QUADS_CUH
#define SEGBENCH_KM_QUADS_CUH

#include "kmeans_device.cuh"

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

#endif
