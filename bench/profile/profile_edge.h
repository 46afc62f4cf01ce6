/* profile_edge.h - one edge of a ladder under Nsight Compute: the rung
 * and the rung it grows from, side by side, from a result set's
 * <algo>.profile.csv (what `make profile ALGO=... RUNG=...` prints). */
#ifndef SEGBENCH_PROFILE_EDGE_H
#define SEGBENCH_PROFILE_EDGE_H

#include "variants/registry.h"

#include "segbench/error.h"

#include <stdio.h>

/* For each stage where results_dir's profile has both the rung and its
 * parent at one image: their totals (time under ncu, DRAM bytes and
 * throughput, L2, issue slots, occupancy, warp instructions, launches,
 * the top stall) and the change, then each side's kernels.  Fails when
 * the rung has no parent or the profile has neither. */
sb_status profile_edge_print(const char *results_dir, const sb_variant *rung, FILE *fp, sb_error *err);

#endif
