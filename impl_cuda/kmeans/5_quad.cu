/* 5_quad.cu - cuda-quad.  Grows from cuda-fourpixels.  The idea: a quad's 4
 * labels stored as one word. */
#include "5_quad.cuh"

enum { BLOCK_THREADS = 256 };

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(GlobalLoader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
            int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_shared_sums(prepped, k, sums, [&](const float4 *centre, unsigned *acc) {
        km_quad_walk(load, quads, n, labels, k, first_pass, centre, acc, km_count_quad{ control }, km_add_pixels());
    });
}

KM_GRID_OPS(km_pass, true)

SB_CUDA_RUNG("kmeans", "cuda-quad", "cuda-fourpixels", "cuda-shared", 0,
             "a word of 4 labels out a thread, the changed ones counted 4 at a time with __vcmpne4",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
