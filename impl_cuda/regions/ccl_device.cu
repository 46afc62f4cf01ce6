/* ccl_device.cu - components' roots from a union-find forest (ccl_device.cuh). */
#include "ccl_device.cuh"

#include "union_find.cuh"

enum { CCL_THREADS = 256 };

static __global__ void ccl_flatten(unsigned n, const int32_t *parent, int32_t *comp)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        comp[i] = rg_find(parent, (int32_t)i);
}

sb_status ccl_device_roots(unsigned n, const int32_t *parent, int32_t *comp, cudaStream_t stream, const char *who,
                           sb_error *err)
{
    ccl_flatten<<<sb_div_up(n, CCL_THREADS), CCL_THREADS, 0, stream>>>(n, parent, comp);
    SB_CUDA_LAUNCHED(err, who);
    return SB_OK;
}
