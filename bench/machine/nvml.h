/* nvml.h - NVML (libnvidia-ml.so.1), opened at run time with dlopen, so a
 * build needs neither its header nor its library and a machine without it
 * still runs: the clocks (gpu_clocks.h) and the energy counter (energy.h)
 * then say why they have no reading.  Only the calls segbench makes, with
 * their C types (nvml.h: every call returns 0, NVML_SUCCESS, on success). */
#ifndef SEGBENCH_NVML_H
#define SEGBENCH_NVML_H

typedef struct sb_nvml_dev *sb_nvml_dev;
enum { SB_NVML_CLOCK_SM = 1, SB_NVML_CLOCK_MEM = 2 };

/* Load and initialise once; 1 when NVML answers, else 0 (sb_nvml_why says why). */
int sb_nvml_load(void);
const char *sb_nvml_why(void);
/* The GPU named by its UUID ("GPU-..."; NULL or "": the first); 1 found. */
int sb_nvml_device(const char *uuid, sb_nvml_dev *dev);
/* Each 1 when it answered. */
int sb_nvml_clock(sb_nvml_dev dev, int which, unsigned *mhz);
int sb_nvml_reasons(sb_nvml_dev dev, unsigned long long *reasons);
/* Millijoules since the driver loaded (Volta and later). */
int sb_nvml_energy(sb_nvml_dev dev, unsigned long long *mj);

#endif
