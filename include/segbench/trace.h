/* trace.h - named ranges on the profiler's timeline (NVTX).
 *
 *     sb_trace_push("%s/%s/%s/%s", algo, variant, stage, image);
 *     ...
 *     sb_trace_pop();
 *
 * Nsight Systems and Nsight Compute show each range over the kernels it
 * holds (ncu --nvtx --nvtx-include "slic/cuda-registers/" selects one variant).  With no
 * profiler attached a push or pop is one test of a function pointer, and
 * the harness places them outside every timed region anyway.  Built
 * without NVTX's header (no CUDA toolkit), both do nothing.
 */
#ifndef SEGBENCH_TRACE_H
#define SEGBENCH_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void sb_trace_push(const char *fmt, ...);
void sb_trace_pop(void);
/* 1 when built with NVTX. */
int sb_trace_built(void);

#ifdef __cplusplus
}
#endif
#endif
