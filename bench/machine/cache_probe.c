/* cache_probe.c - a fixed loop over cache-held data (cache_probe.h). */
#include "machine/cache_probe.h"

#include "segbench/clock.h"

#include <pthread.h>

enum { PROBE_PIXELS = 160 * 120, PROBE_CENTRES = 8, PROBE_TRIES = 2 };

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static float probe_image[PROBE_PIXELS * 3];
static int probe_made;
static volatile int probe_sink;        /* the result goes somewhere: the loop is not dropped */

/* A fixed, patchy image: the same in every process and build. */
static void probe_make(void)
{
    unsigned x = 12345u;
    for (int i = 0; i < PROBE_PIXELS * 3; i++) {
        x = x * 1103515245u + 12345u;
        probe_image[i] = (float)((x >> 16) & 255u);
    }
    probe_made = 1;
}

/* One nearest-centre pass: each pixel's squared distance to every centre. */
static double probe_once(void)
{
    float centre[PROBE_CENTRES * 3];
    for (int k = 0; k < PROBE_CENTRES * 3; k++)
        centre[k] = (float)((k * 37) % 256);
    int count[PROBE_CENTRES] = { 0 };
    double t0 = sb_clock_ms();
    for (int i = 0; i < PROBE_PIXELS; i++) {
        const float *p = probe_image + 3 * i;
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
    probe_sink = count[0];
    return ms;
}

double sb_cache_probe_ms(void)
{
    pthread_mutex_lock(&probe_lock);
    if (!probe_made)
        probe_make();
    double best = 1e300;
    for (int i = 0; i < PROBE_TRIES; i++) {
        double ms = probe_once();
        best = ms < best ? ms : best;
    }
    pthread_mutex_unlock(&probe_lock);
    return best;
}
