/* energy.c - the GPU's and the CPU's energy counters (energy.h). */
#include "machine/energy.h"

#include "machine/nvml.h"

#include "segbench/clock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static struct {
    int opened;
    int gpu;                          /* the counter answered once */
    sb_nvml_dev dev;
    char gpu_why[96];
    int sockets;                      /* RAPL packages readable */
    char rapl[SB_ENERGY_SOCKETS][80]; /* their energy_uj files */
    unsigned long long range_uj[SB_ENERGY_SOCKETS];
    char cpu_why[96];
} energy;

static int read_ull(const char *path, unsigned long long *v, int *errno_out)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        *errno_out = errno;
        return 0;
    }
    int ok = fscanf(fp, "%llu", v) == 1;
    fclose(fp);
    *errno_out = ok ? 0 : EIO;
    return ok;
}

/* RAPL's package domains: intel-rapl:0, intel-rapl:1, ... (the sub-domains,
 * intel-rapl:0:0 and so on, are parts of a package and not added). */
static void rapl_open(void)
{
    int denied = 0, found = 0;
    for (int s = 0; s < SB_ENERGY_SOCKETS; s++) {
        char path[80];
        unsigned long long v;
        int e;
        snprintf(path, sizeof path, "/sys/class/powercap/intel-rapl:%d/energy_uj", s);
        if (!read_ull(path, &v, &e)) {
            denied += e == EACCES || e == EPERM;
            found += e != ENOENT;
            continue;
        }
        found++;
        int n = energy.sockets++;
        snprintf(energy.rapl[n], sizeof energy.rapl[n], "%s", path);
        snprintf(path, sizeof path, "/sys/class/powercap/intel-rapl:%d/max_energy_range_uj", s);
        if (!read_ull(path, &energy.range_uj[n], &e))
            energy.range_uj[n] = 0;
    }
    if (energy.sockets == 0)
        snprintf(energy.cpu_why, sizeof energy.cpu_why, "%s",
                 denied ? "n/a: RAPL's counters are readable by root only here"
                 : found ? "n/a: RAPL's counters did not answer"
                         : "n/a: this host exposes no RAPL (/sys/class/powercap)");
}

void sb_energy_open(const char *gpu_uuid)
{
    if (energy.opened)
        return;
    energy.opened = 1;
    rapl_open();
    unsigned long long mj;
    if (!gpu_uuid || !*gpu_uuid)
        snprintf(energy.gpu_why, sizeof energy.gpu_why, "n/a: no GPU");
    else if (!sb_nvml_load())
        snprintf(energy.gpu_why, sizeof energy.gpu_why, "n/a: %s", sb_nvml_why());
    else if (!sb_nvml_device(gpu_uuid, &energy.dev))
        snprintf(energy.gpu_why, sizeof energy.gpu_why, "n/a: NVML does not know %s", gpu_uuid);
    else if (!sb_nvml_energy(energy.dev, &mj))
        snprintf(energy.gpu_why, sizeof energy.gpu_why, "n/a: this GPU has no total-energy counter");
    else
        energy.gpu = 1;
}

void sb_energy_mark_now(sb_energy_mark *m)
{
    memset(m, 0, sizeof *m);
    m->t_ms = sb_clock_ms();
    m->gpu_ok = energy.gpu && sb_nvml_energy(energy.dev, &m->gpu_mj);
    for (int s = 0; s < energy.sockets; s++) {
        int e;
        if (!read_ull(energy.rapl[s], &m->cpu_uj[s], &e))
            return;                          /* every socket or none */
    }
    m->cpu_sockets = energy.sockets;
}

void sb_energy_between(const sb_energy_mark *a, const sb_energy_mark *b, sb_energy *e)
{
    memset(e, 0, sizeof *e);
    e->seconds = (b->t_ms - a->t_ms) / 1000.0;
    e->gpu_j = e->cpu_j = -1;
    int long_enough = e->seconds >= SB_ENERGY_MIN_S;
    if (!energy.opened)
        snprintf(e->gpu_why, sizeof e->gpu_why, "n/a: the counters were not opened");
    else if (!energy.gpu)
        snprintf(e->gpu_why, sizeof e->gpu_why, "%s", energy.gpu_why);
    else if (!a->gpu_ok || !b->gpu_ok)
        snprintf(e->gpu_why, sizeof e->gpu_why, "n/a: NVML's energy counter did not answer");
    else if (!long_enough)
        snprintf(e->gpu_why, sizeof e->gpu_why, "n/a: %.2f s is below the counter's %.0f s window", e->seconds,
                 SB_ENERGY_MIN_S);
    else
        e->gpu_j = (double)(b->gpu_mj - a->gpu_mj) / 1000.0;

    if (!energy.opened)
        snprintf(e->cpu_why, sizeof e->cpu_why, "n/a: the counters were not opened");
    else if (energy.sockets == 0)
        snprintf(e->cpu_why, sizeof e->cpu_why, "%s", energy.cpu_why);
    else if (a->cpu_sockets != energy.sockets || b->cpu_sockets != energy.sockets)
        snprintf(e->cpu_why, sizeof e->cpu_why, "n/a: RAPL's counters did not answer");
    else if (!long_enough)
        snprintf(e->cpu_why, sizeof e->cpu_why, "n/a: %.2f s is below the %.0f s window", e->seconds,
                 SB_ENERGY_MIN_S);
    else {
        double uj = 0;
        for (int s = 0; s < energy.sockets; s++) {
            unsigned long long d = b->cpu_uj[s] - a->cpu_uj[s];
            if (b->cpu_uj[s] < a->cpu_uj[s])          /* wrapped once */
                d = energy.range_uj[s] - a->cpu_uj[s] + b->cpu_uj[s];
            uj += (double)d;
        }
        e->cpu_j = uj / 1e6;
    }
}

const sb_energy *sb_energy_idle(void)
{
    static sb_energy idle;
    static int measured;
    if (measured)
        return &idle;
    measured = 1;
    sb_energy_mark a, b;
    sb_energy_mark_now(&a);
    if (energy.gpu || energy.sockets) {
        double ms = SB_ENERGY_MIN_S * 1000.0 + 50.0;
        struct timespec ts = { (time_t)(ms / 1000.0), (long)((ms - (long)(ms / 1000.0) * 1000.0) * 1e6) };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    } else {
        a.t_ms -= SB_ENERGY_MIN_S * 1000.0;   /* nothing to read: say why without sleeping */
    }
    sb_energy_mark_now(&b);
    sb_energy_between(&a, &b, &idle);
    return &idle;
}
