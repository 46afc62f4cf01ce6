/* 11_staged.cuh - what cuda-staged (11_staged.cu) lends the strip rungs
 * after it: a warp's row of sums stored through shared memory, 512
 * contiguous bytes a store instruction. */
#ifndef SEGBENCH_INTEGRAL_11_STAGED_CUH
#define SEGBENCH_INTEGRAL_11_STAGED_CUH

#include "10_wide.cuh"

/* A warp's row of sums (32 lanes x 16) leaves through shared memory: each
 * lane puts its 16 sums in as 16-byte chunks, then takes out chunks lane,
 * lane + 32, ..., so each store instruction writes 512 contiguous bytes.
 * Chunk c sits at c ^ ((c / 8) % 8): the 8 lanes of a quarter-warp phase
 * then touch 8 different bank groups both ways. */
template <class T>
struct row_stage {
    enum { CHUNKS = 32 * PIXELS * (int)sizeof(T) / 16, PER_LANE = CHUNKS / 32 };
    uint4 chunk[CHUNKS];
    static __device__ __forceinline__ int at(int c) { return c ^ ((c >> 3) & 7); }
};

template <class T>
__device__ __forceinline__ void store_row_staged(row_stage<T> &st, const T (&acc)[PIXELS], T *row, int x_warp,
                                                 int pw, int lane)
{
    enum { PER_LANE = row_stage<T>::PER_LANE, PER_CHUNK = 16 / (int)sizeof(T) };
#pragma unroll
    for (int j = 0; j < PER_LANE; j++) {
        uint4 v;
        memcpy(&v, &acc[j * PER_CHUNK], 16);
        st.chunk[row_stage<T>::at(lane * PER_LANE + j)] = v;
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        int x = x_warp + c * PER_CHUNK;
        if (x < pw)
            __stcs(reinterpret_cast<uint4 *>(row + x), st.chunk[row_stage<T>::at(c)]);
    }
    __syncwarp();                                 /* the stage is free for the next row */
}

#endif
