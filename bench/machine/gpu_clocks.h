/* gpu_clocks.h - the GPU's clocks and why they are held down, read at the
 * start and end of each row's timing, so a row that ran throttled or slow
 * is flagged instead of trusted (the question nvbench's
 * --throttle-threshold answers).
 *
 * Read through NVML (libnvidia-ml.so.1, loaded at run time: no build
 * dependency), or, where NVML cannot be loaded, by asking nvidia-smi (a
 * process started directly, never through a shell; about 50 ms a read).
 *
 * SB_SIMULATE_CLOCKS="SM,MEM,REASONS" (MHz, MHz, NVML's reason bits in
 * hex) answers every read, for tests on machines with no GPU.
 */
#ifndef SEGBENCH_GPU_CLOCKS_H
#define SEGBENCH_GPU_CLOCKS_H

#include <stddef.h>

typedef struct sb_gpu_clocks {
    int ok;                      /* the read succeeded */
    int sm_mhz, mem_mhz;
    unsigned long long reasons;  /* NVML's clocks event (throttle) reason bits */
} sb_gpu_clocks;

/* The reasons that mean the clocks were held below what was asked:
 * software power cap, hardware slowdown, thermal, power brake.  (Idle,
 * application clock settings and sync boost are not throttling.) */
#define SB_CLOCKS_THROTTLE_MASK 0xECull

/* Read the GPU named by its UUID ("GPU-..."; NULL or "" for the first).
 * Returns c->ok. */
int sb_gpu_clocks_read(const char *uuid, sb_gpu_clocks *c);
/* "nvml", "nvidia-smi", "simulated" or "none": where reads come from. */
const char *sb_gpu_clocks_source(void);
/* The throttling reasons in bits, as "sw_power_cap;hw_slowdown" ("" for none). */
void sb_gpu_clocks_reasons_text(unsigned long long reasons, char *out, size_t size);

/* nvbench's convention: a row ran at a low clock when its SM clock was
 * below this fraction of the GPU's peak clock. */
#define SB_CLOCKS_LOW_FRACTION 0.75

#endif
