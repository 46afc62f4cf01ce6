/* clock.h - the monotonic wall clock used for CPU and end-to-end timing,
 * and a thread's CPU clock. */
#ifndef SEGBENCH_CLOCK_H
#define SEGBENCH_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds on CLOCK_MONOTONIC, from an arbitrary origin. */
double sb_clock_ms(void);

/* Milliseconds of CPU time the calling thread has used
 * (CLOCK_THREAD_CPUTIME_ID): its work, without the time it waited for a
 * core it shared.  0 where the clock cannot be read. */
double sb_thread_cpu_ms(void);

#ifdef __cplusplus
}
#endif
#endif
