/* hd.h - SB_HD, the one marker for a function that the host and the device
 * both run.
 *
 * The per-pixel rules of every algorithm (an assignment distance, a colour
 * conversion, a push of flow) are written once, in the algorithm's header,
 * and compiled twice: by the C compiler for impl_cpu and impl_pthread, and
 * by nvcc for impl_cuda.  Bit-for-bit agreement between the two rests on
 * that, and on the operations of exact.h.
 */
#ifndef SEGBENCH_HD_H
#define SEGBENCH_HD_H

#if defined(__CUDACC__)
#define SB_HD __host__ __device__ __forceinline__
#else
#define SB_HD static inline
#endif

#endif
