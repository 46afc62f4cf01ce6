/* census.h - the kernel census of a device row: for every CUDA kernel it
 * launches, its block size, registers per thread, static and dynamic
 * shared memory, resident blocks per SM and theoretical occupancy, as the
 * CUDA occupancy API reports them for the binary and GPU of the run
 * (sb_census_begin/end in segbench/device.h).  A measured row's check run
 * usually takes it (measure.h); this takes it for a row whose did not.
 * The kernels reporter writes it (reporters/kernels.c). */
#ifndef SEGBENCH_CENSUS_H
#define SEGBENCH_CENSUS_H

#include "cases/cases.h"

#include "segbench/device.h"

/* One checked run of a device variant under the census, its kernels into
 * k[0..*n) (at most SB_CENSUS_MAX); *n = -1 when the run failed (the
 * timed run says what went wrong).  SB_ERR_UNAVAILABLE when launches
 * cannot be observed here. */
sb_status run_census_take(const sb_case *c, const sb_variant *v, int threads, void *stream, sb_kernel_info *k,
                          int *n, sb_error *err);

#endif
