/* host_costs.c - what the host would pay, on one core, for the pixel work
 * the GPU rungs do on the device (issue 48's "convert on the GPU where
 * that pays"): SLIC's Lab conversion of a 4K frame (slic.h's exact rule,
 * 8 bytes a pixel out), the luma of a 4K frame (image.h's rule, what the
 * integral image's grey input costs), and widening 4K 16-bit labels back
 * to int32 (what a program that needs int32 would pay for cuda-labels16's
 * output).  Medians of 11 runs, with the fastest and slowest.
 *
 *   gcc -O3 -std=c11 -D_XOPEN_SOURCE=700 -ffp-contract=off -Iinclude \
 *       -o build/host_costs scripts/host_costs.c -lm && build/host_costs
 *
 * The sRGB table is computed here (a lookup costs the same whatever its
 * values); the results are not compared with anything, only timed.
 */
#include "segbench/image.h"
#include "segbench/slic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { WIDTH = 3840, HEIGHT = 2160, RUNS = 11 };

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    const size_t n = (size_t)WIDTH * HEIGHT;
    uint8_t *rgb = malloc(3 * n), *grey = malloc(n);
    uint16_t *lab = malloc(4 * n * sizeof *lab), *narrow = malloc(n * sizeof *narrow);
    int32_t *wide = malloc(n * sizeof *wide);
    if (!rgb || !grey || !lab || !narrow || !wide) {
        fprintf(stderr, "host_costs: out of memory\n");
        return 2;
    }
    float linear[256];
    for (int i = 0; i < 256; i++) {
        float c = i / 255.0f;
        linear[i] = c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
    }
    unsigned seed = 1;
    for (size_t i = 0; i < 3 * n; i++) {
        seed = seed * 1103515245u + 12345u;
        rgb[i] = (uint8_t)(seed >> 16);
    }
    for (size_t i = 0; i < n; i++)
        narrow[i] = (uint16_t)(i / 4000);

    double ms[3][RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ms();
        for (size_t i = 0; i < n; i++)
            sb_slic_convert(linear, SB_SLIC_LAB, rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], lab + 4 * i);
        double t1 = now_ms();
        for (size_t i = 0; i < n; i++)
            grey[i] = sb_luma_u8(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
        double t2 = now_ms();
        for (size_t i = 0; i < n; i++)
            wide[i] = narrow[i];
        double t3 = now_ms();
        ms[0][r] = t1 - t0;
        ms[1][r] = t2 - t1;
        ms[2][r] = t3 - t2;
    }
    static const char *const what[3] = { "SLIC's Lab conversion of a 4K frame", "the luma of a 4K frame",
                                          "widening 4K 16-bit labels to int32" };
    for (int k = 0; k < 3; k++) {
        qsort(ms[k], RUNS, sizeof ms[k][0], by_value);
        printf("%-40s %8.2f ms median (%.2f-%.2f), one core\n", what[k], ms[k][RUNS / 2], ms[k][0], ms[k][RUNS - 1]);
    }
    /* keep the work: what was made is read */
    printf("(read back: %u %u %d)\n", lab[12345], grey[777], wide[n - 1]);
    free(rgb);
    free(grey);
    free(lab);
    free(narrow);
    free(wide);
    return 0;
}
