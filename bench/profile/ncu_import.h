/* ncu_import.h - Nsight Compute's kernel-by-kernel CSV (ncu --csv --page
 * raw --print-units base) of a `segbench profile --regions` run, turned
 * into <results>/<algo>.profile.csv: one line per kernel of each profiled
 * region, and one "(all)" line per region with its totals.
 *
 * Regions are found by the marker kernel that starts each (device.h).
 * Columns (PROFILE_CSV_HEADER): what ncu measured, summed over a kernel's
 * launches or weighted by their durations, and two derived from it with
 * the result set's env.json:
 *   dram_pct_of_copy  DRAM bytes over the kernel time, as a fraction of
 *                     the device copy bandwidth bench measured
 *   issue_floor_ms    the warp instructions it executed at the SMs' full
 *                     issue rate (4 a cycle per SM, at the clock ncu saw):
 *                     the time this code needs if nothing but issuing
 *                     instructions held it back
 */
#ifndef SEGBENCH_NCU_IMPORT_H
#define SEGBENCH_NCU_IMPORT_H

#include "segbench/error.h"

extern const char *const SB_PROFILE_CSV_HEADER;

/* Read ncu_csv and regions (segbench profile --regions), write
 * <results_dir>/<algo>.profile.csv for each algorithm in regions. */
sb_status sb_ncu_import(const char *ncu_csv, const char *regions, const char *results_dir, sb_error *err);

#endif
