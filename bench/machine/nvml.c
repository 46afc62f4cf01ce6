/* nvml.c - NVML loaded at run time (nvml.h). */
#include "machine/nvml.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

static struct {
    int tried, ok;
    char why[96];
    int (*init)(void);
    int (*by_uuid)(const char *, sb_nvml_dev *);
    int (*by_index)(unsigned, sb_nvml_dev *);
    int (*clock)(sb_nvml_dev, int, unsigned *);
    int (*reasons)(sb_nvml_dev, unsigned long long *);
    int (*total_energy)(sb_nvml_dev, unsigned long long *);
} nvml;

int sb_nvml_load(void)
{
    if (nvml.tried)
        return nvml.ok;
    nvml.tried = 1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(nvml.why, sizeof nvml.why, "no NVML here (libnvidia-ml.so.1 not found)");
        return 0;
    }
    *(void **)&nvml.init = dlsym(lib, "nvmlInit_v2");
    *(void **)&nvml.by_uuid = dlsym(lib, "nvmlDeviceGetHandleByUUID");
    *(void **)&nvml.by_index = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    *(void **)&nvml.clock = dlsym(lib, "nvmlDeviceGetClockInfo");
    /* the newer name first; drivers before r535 have only the older */
    *(void **)&nvml.reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nvml.reasons)
        *(void **)&nvml.reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    *(void **)&nvml.total_energy = dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
    nvml.ok = nvml.init && nvml.by_uuid && nvml.by_index && nvml.clock && nvml.init() == 0;
    if (!nvml.ok)
        snprintf(nvml.why, sizeof nvml.why, "NVML did not initialise");
    return nvml.ok;
}

const char *sb_nvml_why(void) { return nvml.why; }

int sb_nvml_device(const char *uuid, sb_nvml_dev *dev)
{
    if (!sb_nvml_load())
        return 0;
    return (uuid && *uuid ? nvml.by_uuid(uuid, dev) : nvml.by_index(0, dev)) == 0;
}

int sb_nvml_clock(sb_nvml_dev dev, int which, unsigned *mhz) { return nvml.clock(dev, which, mhz) == 0; }

int sb_nvml_reasons(sb_nvml_dev dev, unsigned long long *reasons)
{
    return nvml.reasons && nvml.reasons(dev, reasons) == 0;
}

int sb_nvml_energy(sb_nvml_dev dev, unsigned long long *mj) { return nvml.total_energy && nvml.total_energy(dev, mj) == 0; }
