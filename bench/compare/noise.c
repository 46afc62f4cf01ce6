/* noise.c - noise flags and warnings (see noise.h). */
#include "compare/noise.h"

#include <stdio.h>
#include <string.h>

int sb_noise_spread_flag(const sb_summary *s)
{
    return s->n >= 3 && s->median > 0 && (s->p75 - s->p25) > SB_NOISE_SPREAD * s->median ? SB_NOISE_FLAG_SPREAD
                                                                                           : 0;
}

int sb_noise_row_flags(const sb_row *r, int host)
{
    int flags = sb_noise_spread_flag(&r->kernel);
    if (host && r->peak_fraction > 1.0)
        flags |= SB_NOISE_FLAG_OVER_PEAK;
    if (r->e2e.n > 0 && r->frame.n > 0 && r->e2e.median < r->frame.median)
        flags |= SB_NOISE_FLAG_E2E;
    if (host && (r->round_spread > SB_ROUND_UNSTABLE || r->steal > SB_STEAL_UNSTABLE ||
                 r->cpu_slowdown > SB_SLOWDOWN_UNSTABLE || r->mem_slowdown > SB_MEMORY_UNSTABLE))
        flags |= SB_NOISE_FLAG_UNSTABLE;
    char governor[64];
    if (host && sb_noise_governor(governor, sizeof governor))
        flags |= SB_NOISE_FLAG_GOVERNOR;
    return flags;
}

int sb_noise_host_row(unsigned variant_flags)
{
    return !(variant_flags & SB_DEVICE) || (variant_flags & SB_HOST_BOUND);
}

int sb_noise_cache_resident(int flags, const sb_row *r, double llc_bytes)
{
    if ((flags & SB_NOISE_FLAG_OVER_PEAK) && llc_bytes > 0 && r->bytes > 0 && r->bytes <= llc_bytes)
        return (flags & ~SB_NOISE_FLAG_OVER_PEAK) | SB_NOISE_FLAG_CACHE_RESIDENT;
    return flags;
}

int sb_noise_clock_flags(const sb_row *r, int peak_sm_mhz)
{
    int flags = r->clock_reasons[0] ? SB_NOISE_FLAG_THROTTLED : 0;
    for (int k = 0; k < 2; k++)
        if (peak_sm_mhz > 0 && r->sm_mhz[k] > 0 && r->sm_mhz[k] < SB_CLOCKS_LOW_FRACTION * peak_sm_mhz)
            flags |= SB_NOISE_FLAG_LOW_CLOCK;
    return flags;
}

void sb_noise_flag_text(int flags, char *out, size_t size)
{
    static const struct {
        int flag;
        const char *name;
    } NAMES[] = { { SB_NOISE_FLAG_SPREAD, "spread" }, { SB_NOISE_FLAG_OVER_PEAK, "over_peak" },
                  { SB_NOISE_FLAG_GOVERNOR, "governor" }, { SB_NOISE_FLAG_E2E, "e2e_below_frame" },
                  { SB_NOISE_FLAG_THROTTLED, "throttled" }, { SB_NOISE_FLAG_LOW_CLOCK, "low_clock" },
                  { SB_NOISE_FLAG_UNSTABLE, "unstable" }, { SB_NOISE_FLAG_SLOWER_THAN_SERIAL, "slower_than_serial" },
                  { SB_NOISE_FLAG_CACHE_RESIDENT, "cache_resident" }, { SB_NOISE_FLAG_UNPAIRED, "unpaired" } };
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0] && used < size; i++)
        if (flags & NAMES[i].flag)
            used += (size_t)snprintf(out + used, size - used, "%s%s", used ? ";" : "", NAMES[i].name);
}

void sb_noise_warn(FILE *fp, const char *label, int flags, const sb_summary *s, double peak_fraction)
{
    if (flags & SB_NOISE_FLAG_SPREAD)
        fprintf(fp, "warning: %s: p25-p75 is %.0f %% of the median (%.4g-%.4g ms); other programs or "
                    "frequency changes are probably disturbing the run\n",
                label, 100.0 * (s->p75 - s->p25) / s->median, s->p25, s->p75);
    if (flags & SB_NOISE_FLAG_E2E)
        fprintf(fp, "warning: %s: a whole cold run (setup + frame) took less than a frame alone (medians); one of "
                    "the two was disturbed\n", label);
    if (flags & SB_NOISE_FLAG_THROTTLED)
        fprintf(fp, "warning: %s: the GPU was throttled during the timed runs (power cap, thermal or hardware "
                    "slowdown; the row's clock_reasons column says which)\n", label);
    if (flags & SB_NOISE_FLAG_LOW_CLOCK)
        fprintf(fp, "warning: %s: the GPU's SM clock was below %.0f %% of its peak during the timed runs\n", label,
                100.0 * SB_CLOCKS_LOW_FRACTION);
    if (flags & SB_NOISE_FLAG_OVER_PEAK)
        fprintf(fp, "warning: %s: %.1f %% of the measured host copy peak; the peak was probably measured "
                    "while the machine was busy\n",
                label, 100.0 * peak_fraction);
    if (flags & SB_NOISE_FLAG_CACHE_RESIDENT)
        fprintf(fp, "note: %s: %.1f %% of the host's DRAM copy peak, as expected for a cache-resident image (its "
                    "bytes fit in the last-level cache)\n",
                label, 100.0 * peak_fraction);
}

void sb_noise_warn_unstable(FILE *fp, const char *label, const sb_row *r)
{
    if (r->round_spread > SB_ROUND_UNSTABLE)
        fprintf(fp, "warning: %s: unstable: its %d rounds' medians lie up to %.0f %% from the row's; other "
                    "programs or the machine's other tenants disturbed some of them\n",
                label, r->rounds, 100.0 * r->round_spread);
    if (r->steal > SB_STEAL_UNSTABLE)
        fprintf(fp, "warning: %s: unstable: its CPUs lost %.0f %% of their time to other tenants of this "
                    "(virtual) machine while it ran (steal)\n",
                label, 100.0 * r->steal);
    if (r->cpu_slowdown > SB_SLOWDOWN_UNSTABLE)
        fprintf(fp, "warning: %s: unstable: its CPUs ran a fixed loop up to %.0f %% slower than their best in this "
                    "run (another tenant on the same physical cores, or a lower clock)\n",
                label, 100.0 * (r->cpu_slowdown - 1.0));
    if (r->mem_slowdown > SB_MEMORY_UNSTABLE)
        fprintf(fp, "warning: %s: unstable: the host's memory read a fixed buffer up to %.0f %% slower than its "
                    "best in this run around the row's %d run%s (another tenant's memory traffic); so few runs "
                    "cannot show that they repeat\n",
                label, 100.0 * (r->mem_slowdown - 1.0), r->kernel.n, r->kernel.n == 1 ? "" : "s");
}

void sb_noise_warn_slower(FILE *fp, const char *label, int flags, const sb_row *r, double serial_ms, double gbps_1,
                          double gbps_n)
{
    if (!(flags & SB_NOISE_FLAG_SLOWER_THAN_SERIAL))
        return;
    fprintf(fp, "warning: %s: slower than the serial reference beside it (%.4g against %.4g ms): ", label,
            r->kernel.median, serial_ms);
    if (flags & SB_NOISE_FLAG_UNSTABLE)
        fprintf(fp, "it is unstable (above)\n");
    else if (gbps_1 > 0 && gbps_n > 0 && gbps_n < 1.5 * gbps_1)
        fprintf(fp, "memory bandwidth here barely grows with threads (memcpy %.1f GB/s at 1 thread, %.1f at %d), "
                    "and this variant moves more bytes than the serial code\n",
                gbps_1, gbps_n, r->threads);
    else
        fprintf(fp, "starting and joining %d threads costs more than the work they share at %dx%d\n", r->threads,
                r->width, r->height);
}

int sb_noise_governor(char *name, size_t size)
{
    char governor[64] = "";              /* read each time: a few microseconds, and no state kept */
    FILE *fp = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
    if (fp) {
        if (fgets(governor, sizeof governor, fp))
            governor[strcspn(governor, "\n")] = '\0';
        fclose(fp);
    }
    if (!governor[0] || strcmp(governor, "performance") == 0)
        return 0;
    snprintf(name, size, "%s", governor);
    return 1;
}
