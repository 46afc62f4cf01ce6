/* clock.c - CLOCK_MONOTONIC in milliseconds. */
#include "segbench/clock.h"

#include <time.h>

double sb_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
