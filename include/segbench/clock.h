/* clock.h - the monotonic wall clock used for CPU and end-to-end timing. */
#ifndef SEGBENCH_CLOCK_H
#define SEGBENCH_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds on CLOCK_MONOTONIC, from an arbitrary origin. */
double sb_clock_ms(void);

#ifdef __cplusplus
}
#endif
#endif
