/* energy.h - joules a stretch of work cost, from the counters the
 * hardware keeps, for the stream rows (stream.h).
 *
 *   GPU: NVML's total-energy counter (nvmlDeviceGetTotalEnergyConsumption,
 *   millijoules since the driver loaded; Volta and later).  It updates
 *   every 20-100 ms, so a window shorter than SB_ENERGY_MIN_S is not
 *   reported.  libnvidia-ml is opened at run time (dlopen): a build or a
 *   machine without it still runs, and says why there is no number.
 *
 *   CPU: RAPL's package counters (/sys/class/powercap/intel-rapl:N/
 *   energy_uj, one per socket, microjoules, wrapping at
 *   max_energy_range_uj).  Often readable by root alone; a cloud VM
 *   usually has none.
 *
 * Each side answers with joules or with the reason it cannot, in one
 * line ("n/a: ..."), which the row keeps. */
#ifndef SEGBENCH_ENERGY_H
#define SEGBENCH_ENERGY_H

#include <stddef.h>

/* The shortest window whose joules are reported (the NVML counter's
 * update period is up to 100 ms: 10 % at most). */
#define SB_ENERGY_MIN_S 1.0

enum { SB_ENERGY_SOCKETS = 8 };

/* A reading of both counters at one moment. */
typedef struct sb_energy_mark {
    double t_ms;                     /* host clock */
    int gpu_ok;
    unsigned long long gpu_mj;
    int cpu_sockets;                 /* RAPL packages read (0: none) */
    unsigned long long cpu_uj[SB_ENERGY_SOCKETS];
} sb_energy_mark;

/* Joules between two marks, each side with its reason when absent. */
typedef struct sb_energy {
    double seconds;
    double gpu_j, cpu_j;             /* < 0: not known (the why says) */
    char gpu_why[96], cpu_why[96];   /* "" when known */
} sb_energy;

/* Open the counters once (the GPU named by its UUID, "GPU-..."; NULL or ""
 * for none); later calls do nothing.  Never fails: what cannot be read
 * says why in the sb_energy it gives. */
void sb_energy_open(const char *gpu_uuid);
void sb_energy_mark_now(sb_energy_mark *m);
void sb_energy_between(const sb_energy_mark *a, const sb_energy_mark *b, sb_energy *e);

/* The GPU's and the CPU's power while nothing runs, measured once over
 * SB_ENERGY_MIN_S of sleep on the first call and kept; < 0 with the
 * reason in the sb_energy's why when not known. */
const sb_energy *sb_energy_idle(void);

#endif
