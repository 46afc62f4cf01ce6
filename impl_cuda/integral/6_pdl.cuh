/* 6_pdl.cuh - what cuda-pdl (6_pdl.cu) brings every rung after it:
 * programmatic dependent launch, each kernel starting while the one
 * before it drains, waiting for it only where it reads its results. */
#ifndef SEGBENCH_INTEGRAL_6_PDL_CUH
#define SEGBENCH_INTEGRAL_6_PDL_CUH

#include "integral_device.cuh"

/* The two halves of programmatic dependent launch (no-ops before sm_90,
 * where the launches are in plain stream order). */
__device__ __forceinline__ void wait_for_previous_kernel()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void let_next_kernel_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

/* A launch that may start while the one before it drains, where the GPU
 * supports it (overlap: compute capability 9.0+):
 * cudaLaunchKernelEx(&l.cfg, kernel, ...). */
struct pdl_launch {
    cudaLaunchAttribute early;
    cudaLaunchConfig_t cfg;
};
static inline void pdl_launch_init(pdl_launch *l, cudaStream_t stream, int overlap, dim3 grid, dim3 block)
{
    *l = pdl_launch{};
    l->early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    l->early.val.programmaticStreamSerializationAllowed = 1;
    l->cfg.stream = stream;
    l->cfg.attrs = &l->early;
    l->cfg.numAttrs = overlap ? 1 : 0;
    l->cfg.gridDim = grid;
    l->cfg.blockDim = block;
}

#endif
