/* stats.h - summaries of timing samples and the tests `compare` uses. */
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

/* Two-sided Mann-Whitney U test (normal approximation with tie correction
 * and continuity correction).  Returns the p-value; *u_a gets U for a. */
double sb_mann_whitney(const double *a, int na, const double *b, int nb, double *u_a);

/* Bootstrap percentile interval of median(b) / median(a): `rounds`
 * resamples drawn with a fixed seed, so the interval is reproducible. */
void sb_bootstrap_ratio(const double *a, int na, const double *b, int nb, int rounds,
                        double level, unsigned long long seed, double *lo, double *hi);

typedef enum sb_verdict { SB_SAME, SB_FASTER, SB_SLOWER } sb_verdict;

typedef struct sb_comparison {
    double ratio;            /* median(b) / median(a): below 1 means b is faster */
    double lo, hi;           /* 95 % bootstrap interval of the ratio */
    double p_value;          /* Mann-Whitney, two-sided */
    sb_verdict verdict;      /* of b relative to a */
} sb_comparison;

/* b is "faster" or "slower" than a only when the difference is significant
 * (p < alpha), the whole interval lies on one side of 1, and the ratio
 * differs from 1 by at least min_diff (the smallest difference that
 * matters); otherwise "same". */
void sb_compare_samples(const double *a, int na, const double *b, int nb, double alpha,
                        double min_diff, sb_comparison *out);

const char *sb_verdict_name(sb_verdict v);

#ifdef __cplusplus
}
#endif
#endif
