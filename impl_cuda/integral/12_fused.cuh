/* 12_fused.cuh - what cuda-fused (12_fused.cu) lends cuda-colour
 * (15_colour.cu), which runs its kernels on a grey it makes itself. */
#ifndef SEGBENCH_INTEGRAL_12_FUSED_CUH
#define SEGBENCH_INTEGRAL_12_FUSED_CUH

#include "9_strips.cuh"

/* The stage's tables from d->in, both of sqsum from one pass (a
 * variant's run; its state a strip_state). */
sb_status fused_run(void *state, sb_error *err);

#endif
