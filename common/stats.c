/* stats.c - order statistics: a summary of samples and the stopping rule.
 * (Verdicts are measure/evidence.h's, from rounds.) */
#include "segbench/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int stats_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sb_quantile_sorted(const double *sorted, int n, double q)
{
    if (n <= 0)
        return 0.0;
    double pos = q * (double)(n - 1);
    int i = (int)floor(pos);
    if (i >= n - 1)
        return sorted[n - 1];
    double frac = pos - (double)i;
    return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

void sb_summarize(const double *samples, int n, sb_summary *s)
{
    memset(s, 0, sizeof *s);
    if (n <= 0)
        return;
    double *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return;
    memcpy(v, samples, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, stats_cmp_double);
    s->n = n;
    s->min = v[0];
    s->max = v[n - 1];
    s->p25 = sb_quantile_sorted(v, n, 0.25);
    s->median = sb_quantile_sorted(v, n, 0.5);
    s->p75 = sb_quantile_sorted(v, n, 0.75);
    free(v);
}

double sb_median_rel_se(const sb_summary *s)
{
    if (s->n < 2 || s->median <= 0.0)
        return INFINITY;
    double sigma = (s->p75 - s->p25) / 1.349;
    return 1.2533 * sigma / sqrt((double)s->n) / s->median;
}
