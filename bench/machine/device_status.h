/* device_status.h - what the harness tells a user about the GPU: whether
 * CUDA variants can run here, and if not, one line saying why and what to
 * do about it.  Every command asks here (never sb_device_query itself), so
 * the wording is the same in list, run, bench, check and compare.
 *
 * SB_SIMULATE_DEVICE (for tests on machines with or without a GPU):
 *   none        as if no GPU or driver were found
 *   noimage:CC  as if a GPU of compute capability CC (e.g. 90) were found
 *               that this binary has no code for
 */
#ifndef SEGBENCH_DEVICE_STATUS_H
#define SEGBENCH_DEVICE_STATUS_H

#include <stddef.h>

#include "segbench/device.h"

/* sb_device_query, with SB_SIMULATE_DEVICE applied. */
void sb_device_status(sb_device_info *info);

/* 1 when CUDA variants can run; otherwise 0 and one line in why:
 * "no NVIDIA GPU or driver found", "not built for sm_90 (rebuild: make
 * CUDA_ARCH=90)", ... */
int sb_device_usable(char *why, size_t why_size);

#endif
