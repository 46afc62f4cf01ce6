/* census.h - <algo>.kernels.csv: for every CUDA kernel a device variant
 * launches, its block size, registers per thread, static and dynamic
 * shared memory, resident blocks per SM and theoretical occupancy, as the
 * CUDA occupancy API reports them for the binary and GPU of the run
 * (sb_census_begin/end in segbench/device.h). */
#ifndef SEGBENCH_CENSUS_H
#define SEGBENCH_CENSUS_H

#include "harness/cases.h"

#include "segbench/device.h"

#include <stdio.h>

#define SB_KERNELS_CSV_HEADER "stage,variant,image,kernel,block,regs,static_smem,dynamic_smem,blocks_per_sm,occupancy"

/* One checked run of a device variant under the census (bench --check-only,
 * and a row whose measurement took none); append to log each
 * (stage, variant, kernel, block, dynamic shared memory) not in *seen yet
 * (a growing text the caller frees).  SB_ERR_UNAVAILABLE when launches
 * cannot be observed here. */
sb_status sb_kernels_census(FILE *log, char **seen, const sb_case *c, const sb_variant *v, int threads,
                            void *stream, const char *image, sb_error *err);

/* Append the census k[0..n) of one row (taken by sb_measure's check run,
 * harness.h) to log, as sb_kernels_census does. */
sb_status sb_kernels_log(FILE *log, char **seen, const char *stage, const char *variant, const char *image,
                         const sb_kernel_info *k, int n, sb_error *err);

#endif
