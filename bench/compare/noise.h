/* noise.h - signs that a timing should not be trusted, said the way
 * hyperfine warns about outliers: one line naming the row and the likely
 * cause, and a flag in the results CSV's flags column.
 *
 *   spread     the p25-p75 range is more than SB_NOISE_SPREAD of the median
 *              (measured on the H100 run of record: 21 of 1064 rows, all at 16
 *              threads; 1 % of rows on a quiet machine, most of a busy one)
 *   over_peak  a CPU row moves more bytes per second than the host copy peak
 *              measured at its thread count (the peak was measured while the
 *              machine was busy, or the data stayed in cache)
 *   governor   a CPU row, while Linux says the frequency governor is not
 *              "performance" (clocks that ramp make short runs slower)
 *   e2e_below_frame  the median of whole cold runs (setup + a frame) is
 *              below the median frame: impossible for the same work, so one
 *              of the two was disturbed (7 rows of the H100 run 0c5c)
 *   throttled  a GPU row, when NVML named a power, thermal or hardware
 *              slowdown reason just before or after its timed runs
 *   low_clock  a GPU row whose SM clock then was below SB_CLOCKS_LOW_FRACTION
 *              of the GPU's peak clock (nvbench's --throttle-threshold, 75 %)
 *   unstable   a host row whose interleaved rounds disagree: a round's median
 *              more than SB_ROUND_UNSTABLE (10 %) from the row's, or whose
 *              CPUs lost more than SB_STEAL_UNSTABLE (10 %) of their time to
 *              other tenants of the machine (steal) while it ran, or whose
 *              CPUs ran a fixed loop more than SB_SLOWDOWN_UNSTABLE slower
 *              than their best around its rounds (a busy neighbour), or, a
 *              slow row (its runs are its samples), whose runs began or ended
 *              with the host's memory read more than SB_MEMORY_UNSTABLE
 *              slower than its best (a neighbour's memory traffic).
 *   slower_than_serial  a threaded CPU row slower than the serial reference
 *              measured in the same rounds: not noise but a result, flagged
 *              so that no table shows it without its cause (the warning
 *              names it: the row is unstable, or the host's memory bandwidth
 *              barely grows with threads, or the threads cost more than the
 *              work at this size).  Two runs
 *              of such a row need not agree within 10 %, which is what the
 *              flag says (docs/measuring.md).
 */
#ifndef SEGBENCH_NOISE_H
#define SEGBENCH_NOISE_H

#include <stddef.h>
#include <stdio.h>

#include "io/rows.h"
#include "machine/gpu_clocks.h"
#include "measure/measure.h"
#include "machine/host_noise.h"

#define SB_NOISE_SPREAD 0.25

enum {
    SB_NOISE_FLAG_SPREAD = 1,
    SB_NOISE_FLAG_OVER_PEAK = 2,
    SB_NOISE_FLAG_GOVERNOR = 4,
    SB_NOISE_FLAG_E2E = 8,
    SB_NOISE_FLAG_THROTTLED = 16,
    SB_NOISE_FLAG_LOW_CLOCK = 32,
    SB_NOISE_FLAG_UNSTABLE = 64,
    SB_NOISE_FLAG_SLOWER_THAN_SERIAL = 128,
    SB_NOISE_FLAG_CACHE_RESIDENT = 256,   /* above the DRAM copy peak, as a working set in cache runs */
    SB_NOISE_FLAG_UNPAIRED = 512          /* paired, its samples did not pair with the partner's */
};

/* The flags of one sample set: spread only (as compare sees it). */
int sb_noise_spread_flag(const sb_summary *s);
/* The flags of a benchmark row; host says whether it ran on the CPU. */
int sb_noise_row_flags(const sb_row *r, int host);
/* Whether a variant's rows take the host rows' flags (sb_noise_row_flags'
 * host): a CPU variant's, and a device variant's whose every pass waits on
 * the host's computing (SB_HOST_BOUND, segbench/variant.h). */
int sb_noise_host_row(unsigned variant_flags);
/* The clock flags of a device row (throttled, low_clock), given the GPU's
 * peak SM clock (0: unknown, no low_clock). */
int sb_noise_clock_flags(const sb_row *r, int peak_sm_mhz);
/* A host row above the host copy peak whose bytes fit in the last-level
 * cache (llc_bytes, 0 unknown) ran from cache, as expected: over_peak
 * becomes cache_resident, which is no noise. */
int sb_noise_cache_resident(int flags, const sb_row *r, double llc_bytes);
/* "spread;over_peak" (no commas: it is a CSV field). */
void sb_noise_flag_text(int flags, char *out, size_t size);
/* One warning line: "warning: LABEL: <what> (<likely cause>)". */
void sb_noise_warn(FILE *fp, const char *label, int flags, const sb_summary *s, double peak_fraction);
/* The slower_than_serial line and its likely cause: unstable, memory
 * bandwidth (memcpy gbps_1 at one thread, gbps_n at the row's count), or
 * the threads' own cost. */
void sb_noise_warn_slower(FILE *fp, const char *label, int flags, const sb_row *r, double serial_ms, double gbps_1,
                          double gbps_n);
/* The unstable flag's line, from the row's rounds and steal. */
void sb_noise_warn_unstable(FILE *fp, const char *label, const sb_row *r);

/* The CPU frequency governor when Linux names one that is not
 * "performance" ("powersave", "schedutil"): 1 and its name; else 0. */
int sb_noise_governor(char *name, size_t size);

#endif
