/* 10_wide.cu - cuda-wide.  Grows from cuda-strips.  The idea: 16 pixels a
 * thread (one 16-byte load, dp4a totals), so more bytes in flight and fewer
 * instructions a byte. */
#include "10_wide_sat.cuh"

/* Four sums out past the caches' keeping (streaming: evict first). */
__device__ __forceinline__ void store4_streaming(uint32_t *p, const uint32_t v[4])
{
    __stcs(reinterpret_cast<uint4 *>(p), make_uint4(v[0], v[1], v[2], v[3]));
}
__device__ __forceinline__ void store4_streaming(uint64_t *p, const uint64_t v[4])
{
    __stcs(reinterpret_cast<ulonglong2 *>(p), make_ulonglong2(v[0], v[1]));
    __stcs(reinterpret_cast<ulonglong2 *>(p) + 1, make_ulonglong2(v[2], v[3]));
}

/* A thread's 16 sums of a row, straight out, 16 bytes a store. */
struct StreamingRows {
    template <class T>
    static __device__ __forceinline__ void store(const T (&acc)[PIXELS], T *row, int, int x, bool inside, int, int,
                                                 int)
    {
        if (inside)
#pragma unroll
            for (int i = 0; i < PIXELS; i += 4)
                store4_streaming(row + x + i, acc + i);
    }
};

SB_CUDA_RUNG("integral", "cuda-wide", "cuda-strips", "cuda-shared", 0,
             "16 pixels a thread: one 16-byte load, a quarter of the scans, streaming stores",
             strip_prepare, integral_cuda_upload, strip_rows_run<StreamingRows>, integral_cuda_fetch, strip_release)
