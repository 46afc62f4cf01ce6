/* stats.c - order statistics, Mann-Whitney U and a bootstrap interval. */
#include "segbench/stats.h"

#include "segbench/rng.h"

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

double sb_mann_whitney(const double *a, int na, const double *b, int nb, double *u_a)
{
    int n = na + nb;
    if (na <= 0 || nb <= 0) {
        if (u_a)
            *u_a = 0;
        return 1.0;
    }
    struct item { double v; int from_a; } *all = malloc((size_t)n * sizeof *all);
    double *rank = malloc((size_t)n * sizeof *rank);
    if (!all || !rank) {
        free(all);
        free(rank);
        return 1.0;
    }
    for (int i = 0; i < na; i++)
        all[i] = (struct item){ a[i], 1 };
    for (int i = 0; i < nb; i++)
        all[na + i] = (struct item){ b[i], 0 };
    /* sort by value (the comparator reads the leading double of each item) */
    qsort(all, (size_t)n, sizeof *all, stats_cmp_double);

    /* Mid-ranks for ties, and the tie term sum(t^3 - t). */
    double tie_term = 0.0, rank_sum_a = 0.0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && all[j + 1].v == all[i].v)
            j++;
        double mid = 0.5 * (double)(i + j) + 1.0;
        double t = (double)(j - i + 1);
        tie_term += t * t * t - t;
        for (int k = i; k <= j; k++)
            rank[k] = mid;
        i = j + 1;
    }
    for (int i = 0; i < n; i++)
        if (all[i].from_a)
            rank_sum_a += rank[i];
    free(all);
    free(rank);

    double u = rank_sum_a - (double)na * (na + 1) / 2.0;
    if (u_a)
        *u_a = u;
    double mean = (double)na * nb / 2.0;
    double var = (double)na * nb / 12.0 * ((double)(n + 1) - tie_term / ((double)n * (n - 1)));
    if (var <= 0.0)
        return 1.0;                      /* every value tied: no evidence of a difference */
    double z = (fabs(u - mean) - 0.5) / sqrt(var);
    if (z < 0.0)
        z = 0.0;
    return erfc(z / sqrt(2.0));
}

/* One bootstrap resample's median, without sorting it: the resample of
 * x[0..n) (n indices drawn with replacement, as the caller's stream draws
 * them) is the sorted values sorted[0..n) each taken count[r] times, so
 * its order statistics are found by walking the counts -- O(n) a round
 * rather than a sort, and the value a sort would give to the last bit
 * (sb_quantile_sorted's interpolation between the same two values).
 * rank[i]: x[i]'s place in sorted; count: n zeros, left zeroed. */
static double resample_median(const double *sorted, const int *rank, int n, sb_rng *rng, int *count)
{
    for (int i = 0; i < n; i++)
        count[rank[sb_rng_below(rng, (uint32_t)n)]]++;
    double pos = 0.5 * (double)(n - 1);
    int lo = (int)floor(pos), seen = 0;
    double v_lo = 0.0, v_hi = 0.0;
    for (int r = 0, found = 0; r < n; r++) {
        seen += count[r];
        if (!found && seen > lo) {
            v_lo = sorted[r];
            found = 1;
        }
        if (found && seen > lo + 1) {
            v_hi = sorted[r];
            break;
        }
    }
    memset(count, 0, (size_t)n * sizeof *count);
    if (lo >= n - 1)
        return v_lo;
    return v_lo + (pos - (double)lo) * (v_hi - v_lo);
}

/* sorted: x sorted; rank[i]: the place of x[i] in it (ties in distinct
 * places, each x[i] the first free one of its value). */
static int sort_with_ranks(const double *x, int n, double *sorted, int *rank)
{
    int *taken = calloc((size_t)n, sizeof *taken);
    if (!taken)
        return 0;
    memcpy(sorted, x, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, stats_cmp_double);
    for (int i = 0; i < n; i++) {
        int lo = 0, hi = n;                 /* the first place whose value is not below x[i] */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (sorted[mid] < x[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        rank[i] = lo + taken[lo]++;
    }
    free(taken);
    return 1;
}

void sb_bootstrap_ratio(const double *a, int na, const double *b, int nb, int rounds,
                        double level, unsigned long long seed, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (na <= 0 || nb <= 0 || rounds <= 0)
        return;
    double *ratios = malloc((size_t)rounds * sizeof *ratios);
    double *sa = malloc((size_t)na * sizeof *sa), *sb = malloc((size_t)nb * sizeof *sb);
    int *rank_a = malloc((size_t)na * sizeof *rank_a), *rank_b = malloc((size_t)nb * sizeof *rank_b);
    int *count = calloc((size_t)(na > nb ? na : nb), sizeof *count);
    if (ratios && sa && sb && rank_a && rank_b && count && sort_with_ranks(a, na, sa, rank_a) &&
        sort_with_ranks(b, nb, sb, rank_b)) {
        sb_rng rng;
        sb_rng_seed(&rng, seed);
        for (int r = 0; r < rounds; r++) {
            double ma = resample_median(sa, rank_a, na, &rng, count);
            double mb = resample_median(sb, rank_b, nb, &rng, count);
            ratios[r] = ma > 0.0 ? mb / ma : NAN;
        }
        qsort(ratios, (size_t)rounds, sizeof *ratios, stats_cmp_double);
        double tail = (1.0 - level) / 2.0;
        *lo = sb_quantile_sorted(ratios, rounds, tail);
        *hi = sb_quantile_sorted(ratios, rounds, 1.0 - tail);
    }
    free(ratios);
    free(sa);
    free(sb);
    free(rank_a);
    free(rank_b);
    free(count);
}

void sb_compare_samples(const double *a, int na, const double *b, int nb, double alpha,
                        double min_diff, sb_comparison *out)
{
    sb_summary sa, sbs;
    sb_summarize(a, na, &sa);
    sb_summarize(b, nb, &sbs);
    out->ratio = sa.median > 0.0 ? sbs.median / sa.median : NAN;
    out->p_value = sb_mann_whitney(a, na, b, nb, NULL);
    sb_bootstrap_ratio(a, na, b, nb, 2000, 0.95, 0x5eedb007ull, &out->lo, &out->hi);
    out->verdict = SB_SAME;
    if (out->p_value < alpha && fabs(out->ratio - 1.0) >= min_diff) {
        if (out->hi < 1.0)
            out->verdict = SB_FASTER;
        else if (out->lo > 1.0)
            out->verdict = SB_SLOWER;
    }
}

const char *sb_verdict_name(sb_verdict v)
{
    return v == SB_FASTER ? "faster" : v == SB_SLOWER ? "slower" : "same";
}
