/* cache_probe.c - a fixed loop over cache-held data (cache_probe.h). */
#include "machine/cache_probe.h"

#include "segbench/clock.h"

enum { PROBE_CENTRES = 8 };

void sb_cache_probe_fill(float image[SB_CACHE_PROBE_FLOATS])
{
    unsigned x = 12345u;
    for (int i = 0; i < SB_CACHE_PROBE_FLOATS; i++) {
        x = x * 1103515245u + 12345u;
        image[i] = (float)((x >> 16) & 255u);
    }
}

double sb_cache_probe_pass(const float image[SB_CACHE_PROBE_FLOATS], int *checksum)
{
    float centre[PROBE_CENTRES * 3];
    for (int k = 0; k < PROBE_CENTRES * 3; k++)
        centre[k] = (float)((k * 37) % 256);
    int count[PROBE_CENTRES] = { 0 };
    double t0 = sb_clock_ms();
    for (int i = 0; i < SB_CACHE_PROBE_FLOATS; i += 3) {
        const float *p = image + i;
        float best = 1e30f;
        int nearest = 0;
        for (int k = 0; k < PROBE_CENTRES; k++) {
            float d0 = p[0] - centre[3 * k], d1 = p[1] - centre[3 * k + 1], d2 = p[2] - centre[3 * k + 2];
            float d = d0 * d0 + d1 * d1 + d2 * d2;
            if (d < best) {
                best = d;
                nearest = k;
            }
        }
        count[nearest]++;
    }
    double ms = sb_clock_ms() - t0;
    *checksum = count[0];
    return ms;
}
