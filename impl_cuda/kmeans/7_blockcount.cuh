/* 7_blockcount.cuh - what cuda-blockcount (7_blockcount.cu) lends
 * cuda-lastblock and cuda-texture: a block's share of a pass -- its quads'
 * labels, its centres' sums in shared memory, its changed labels counted
 * per warp and block -- added into the pass's global sums and count.
 * cuda-lastblock's kernel then updates the centres in its last block,
 * cuda-texture's reads the quads through a texture (Loader). */
#ifndef SEGBENCH_KM_7_BLOCKCOUNT_CUH
#define SEGBENCH_KM_7_BLOCKCOUNT_CUH

#include "km_quads.cuh"

enum { BLOCK_THREADS = 256 };

template <class Loader>
__device__ __forceinline__ void km_block_pass(const Loader &load, unsigned quads, unsigned long long n,
                                              uint32_t *labels, int k, int first_pass, unsigned long long *sums,
                                              const float4 *prepped, km_control *control)
{
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

    unsigned lane = threadIdx.x & 31, changed = 0, stride = gridDim.x * blockDim.x;
    /* whole warps walk the quads together, so every lane reaches km_warp_add */
    for (unsigned base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < quads; base += stride) {
        unsigned q = base + lane;
        bool live = q < quads;
        unsigned rgb[4][3], lab[4], inside;
        uint32_t inside_bytes, now = km_quad_labels(load, q, live, n, centre, k, rgb, lab, inside, inside_bytes);
        if (live) {
            uint32_t differ = first_pass ? 0xffffffffu : __vcmpne4(labels[q], now);   /* 0xff per changed byte */
            changed += __popc(differ & inside_bytes) / 8;
            labels[q] = now;
        }

        /* Sums: a quad of one label (the usual case) goes in as one value,
         * otherwise pixel by pixel. */
        bool whole = inside == 4 && lab[0] == lab[1] && lab[0] == lab[2] && lab[0] == lab[3];
        if (__all_sync(KM_FULL_MASK, whole || !live)) {
            km_warp_add(acc, whole, lab[0], rgb[0][0] + rgb[1][0] + rgb[2][0] + rgb[3][0],
                        rgb[0][1] + rgb[1][1] + rgb[2][1] + rgb[3][1], rgb[0][2] + rgb[1][2] + rgb[2][2] + rgb[3][2],
                        4u);
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++)
                km_warp_add(acc, (unsigned)j < inside, lab[j], rgb[j][0], rgb[j][1], rgb[j][2], 1u);
        }
    }

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
