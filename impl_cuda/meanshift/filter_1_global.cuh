/* filter_1_global.cuh - what cuda-global's filter (filter_1_global.cu)
 * lends the regions rungs' pipelines, which run it: a header of its own,
 * so that their code identity (bench/base/code_id.h) reaches the file. */
#ifndef SEGBENCH_MS_FILTER_1_GLOBAL_CUH
#define SEGBENCH_MS_FILTER_1_GLOBAL_CUH

#include "ms_device.cuh"

/* The fastest filter, d->luv -> d->filtered, on d's stream. */
sb_status ms_filter_global(ms_device *d, sb_error *err);

/* A run with this filter: cuda-global's, and every regions rung's (their
 * pipelines run it before flood and merge). */
sb_status ms_run_global(void *state, sb_error *err);

#endif
