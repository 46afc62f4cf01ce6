/* 6_quadsums.cu - cuda-quadsums.  Grows from cuda-quad.  The idea: a quad of
 * one label adds as one value. */
#include "5_quad.cuh"
#include "6_quadsums.cuh"

enum { BLOCK_THREADS = 256 };

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(GlobalLoader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
            int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_shared_sums(prepped, k, sums, [&](const float4 *centre, unsigned *acc) {
        km_quad_walk(load, quads, n, labels, k, first_pass, centre, acc, km_count_quad{ control }, km_add_quad());
    });
}

KM_GRID_OPS(km_pass, true)

SB_CUDA_RUNG("kmeans", "cuda-quadsums", "cuda-quad", "cuda-shared", 0,
             "a quad of one label joins the sums as one value: one warp aggregation for 4 pixels",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
