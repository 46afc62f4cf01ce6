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
    __shared__ unsigned block_changed;
    if (threadIdx.x == 0)
        block_changed = 0;
    km_shared_sums(prepped, k, sums, [&](const float4 *centre, unsigned *acc) {
        unsigned lane = threadIdx.x & 31, changed = 0;
        km_quad_walk(load, quads, n, labels, k, first_pass, centre, acc, [&](unsigned c) { changed += c; },
                     km_add_quad());
        changed = km_warp_sum(changed);
        if (lane == 0 && changed)
            atomicAdd(&block_changed, changed);
    });
    if (threadIdx.x == 0 && block_changed)
        atomicAdd(&control->changed, block_changed);
}

#endif
