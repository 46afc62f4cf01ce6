/* 7_blockcount.cuh - what cuda-blockcount (7_blockcount.cu) lends
 * cuda-lastblock and cuda-texture: a block's share of a pass -- its quads'
 * labels, its centres' sums in shared memory, its changed labels counted
 * per warp and block -- added into the pass's global sums and count.
 * cuda-lastblock's kernel then updates the centres in its last block,
 * cuda-texture's reads the quads through a texture (Loader). */
#ifndef SEGBENCH_KM_7_BLOCKCOUNT_CUH
#define SEGBENCH_KM_7_BLOCKCOUNT_CUH

#include "5_quad.cuh"
#include "6_quadsums.cuh"

enum { BLOCK_THREADS = 256 };

template <class Loader>
__device__ __forceinline__ void km_block_pass(const Loader &load, unsigned quads, unsigned long long n,
                                              uint32_t *labels, int k, int first_pass, unsigned long long *sums,
                                              const float4 *prepped, km_control *control)
{
    /* cuda-blocksums' skeleton (km_shared_sums) with the block's count of
     * changed labels beside its sums */
    __shared__ float4 centre[SB_KMEANS_MAX_K];
    __shared__ unsigned acc[4 * SB_KMEANS_MAX_K];   /* per block: < 2^24 pixels, so no overflow */
    __shared__ unsigned block_changed;
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        centre[c] = prepped[c];
        acc[4 * c] = acc[4 * c + 1] = acc[4 * c + 2] = acc[4 * c + 3] = 0;
    }
    if (threadIdx.x == 0)
        block_changed = 0;
    __syncthreads();

    unsigned lane = threadIdx.x & 31, changed = 0;
    km_quad_walk(load, quads, n, labels, k, first_pass, centre, acc, [&](unsigned c) { changed += c; }, km_add_quad());
    changed = km_warp_sum(changed);
    if (lane == 0 && changed)
        atomicAdd(&block_changed, changed);
    __syncthreads();
    for (int i = threadIdx.x; i < 4 * k; i += blockDim.x)
        if (acc[i])
            atomicAdd(&sums[i], (unsigned long long)acc[i]);
    if (threadIdx.x == 0 && block_changed)
        atomicAdd(&control->changed, block_changed);
}

#endif
