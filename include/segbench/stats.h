/* stats.h - summaries of timing samples and the stopping rule (the verdicts
 * are measure/evidence.h's, from rounds). */
#ifndef SEGBENCH_STATS_H
#define SEGBENCH_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_summary {
    int n;
    double min, p25, median, p75, max;
} sb_summary;

/* Quantile q in [0,1] of sorted values, linear interpolation between ranks. */
double sb_quantile_sorted(const double *sorted, int n, double q);

/* Sort a copy of the samples and summarise them (n = 0 gives zeros). */
void sb_summarize(const double *samples, int n, sb_summary *s);

/* Relative standard error of the median, estimated from the interquartile
 * range: 1.2533 * (IQR / 1.349) / sqrt(n) / median.  Used as the stopping
 * rule for repetition ("the median is stable"). */
double sb_median_rel_se(const sb_summary *s);

#ifdef __cplusplus
}
#endif
#endif
