/* 5_quad.cuh - what cuda-quad (5_quad.cu) lends the rungs after it: its
 * walk over the quads, each quad's 4 labels stored as one word and the
 * changed ones found 4 at a time with __vcmpne4; the rung's count takes
 * each quad's number of changed labels (cuda-quad's: a global atomic a
 * quad that changed) and its add puts the quad's pixels into the sums. */
#ifndef SEGBENCH_KM_5_QUAD_CUH
#define SEGBENCH_KM_5_QUAD_CUH

#include "km_quads.cuh"

template <class Loader, class Count, class Add>
__device__ __forceinline__ void km_quad_walk(const Loader &load, unsigned quads, unsigned long long n,
                                             uint32_t *labels, int k, int first_pass, const float4 *centre,
                                             unsigned *acc, Count count, const Add &add)
{
    unsigned lane = threadIdx.x & 31, stride = gridDim.x * blockDim.x;
    /* whole warps walk the quads together, so every lane reaches km_warp_add */
    for (unsigned base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < quads; base += stride) {
        unsigned q = base + lane;
        bool live = q < quads;
        unsigned rgb[4][3], lab[4], inside;
        uint32_t inside_bytes, now = km_quad_labels(load, q, live, n, centre, k, rgb, lab, inside, inside_bytes);
        if (live) {
            uint32_t differ = first_pass ? 0xffffffffu : __vcmpne4(labels[q], now);   /* 0xff per changed byte */
            count(__popc(differ & inside_bytes) / 8);
            labels[q] = now;
        }
        add(acc, live, inside, lab, rgb);
    }
}

/* cuda-quad's count: a global atomic a quad that changed. */
struct km_count_quad {
    km_control *control;
    __device__ __forceinline__ void operator()(unsigned changed) const
    {
        if (changed)
            atomicAdd(&control->changed, changed);
    }
};

#endif
