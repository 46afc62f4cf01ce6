/* device_status.c - the GPU as the harness reports it (device_status.h). */
#include "machine/device_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replace the real answer with a simulated one, when the environment asks. */
static void simulate(sb_device_info *info)
{
    const char *sim = getenv("SB_SIMULATE_DEVICE");
    int cc;
    if (!sim || !*sim)
        return;
    if (strcmp(sim, "none") == 0) {
        memset(info, 0, sizeof *info);
        snprintf(info->reason, sizeof info->reason, "no NVIDIA GPU or driver found");
    } else if (sscanf(sim, "noimage:%d", &cc) == 1 && cc >= 10 && cc < 1000) {
        memset(info, 0, sizeof *info);
        info->present = 1;
        info->cc_major = cc / 10;
        info->cc_minor = cc % 10;
        snprintf(info->name, sizeof info->name, "Simulated GPU sm_%d", cc);
    }
}

void sb_device_status(sb_device_info *info)
{
    sb_device_query(info);
    simulate(info);
}

int sb_device_usable(char *why, size_t why_size)
{
    sb_device_info info;
    sb_device_status(&info);
    if (!info.present) {
        snprintf(why, why_size, "%s", info.reason);
        return 0;
    }
    if (!info.has_image) {
        int cc = 10 * info.cc_major + info.cc_minor;
        snprintf(why, why_size, "not built for sm_%d (rebuild: make CUDA_ARCH=%d)", cc, cc);
        return 0;
    }
    snprintf(why, why_size, "available");
    return 1;
}
