/* 11_staged.cu - cuda-staged.  Grows from cuda-wide.  The idea: a warp's sums
 * leave through a swizzled shared-memory stage, so every store writes 512
 * contiguous bytes. */
#include "10_wide_sat.cuh"
#include "11_staged.cuh"

/* A warp's row of sums through the stage (store_row_staged). */
struct StagedRows {
    template <class T>
    static __device__ __forceinline__ void store(const T (&acc)[PIXELS], T *row, int x0, int, bool, int pw, int lane,
                                                 int warp)
    {
        __shared__ row_stage<T> stage[STRIP_WARPS];
        store_row_staged(stage[warp], acc, row, x0 + warp * 32 * PIXELS, pw, lane);
    }
};

SB_CUDA_RUNG("integral", "cuda-staged", "cuda-wide", "cuda-shared", 0,
             "each warp's row of sums through shared memory: 512 contiguous bytes a store",
             strip_prepare, integral_cuda_upload, strip_rows_run<StagedRows>, integral_cuda_fetch, strip_release)
