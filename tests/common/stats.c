/* test_stats.c - summaries, Mann-Whitney, the bootstrap and verdicts. */
#include "test_groups.h"

#include "segbench/rng.h"
#include "segbench/stats.h"

#include <math.h>
#include <stdlib.h>

static void test_summary(void)
{
    const double v[] = { 5, 1, 4, 2, 3 };
    sb_summary s;
    sb_summarize(v, 5, &s);
    CHECK(s.n == 5 && s.min == 1 && s.max == 5 && s.median == 3 && s.p25 == 2 && s.p75 == 4);
    const double w[] = { 1, 2, 3, 4 };
    sb_summarize(w, 4, &s);
    CHECK(fabs(s.median - 2.5) < 1e-12 && fabs(s.p25 - 1.75) < 1e-12);
    sb_summarize(w, 0, &s);
    CHECK(s.n == 0);
}

static void noisy(double *out, int n, double centre, double spread, unsigned long long seed)
{
    sb_rng r;
    sb_rng_seed(&r, seed);
    for (int i = 0; i < n; i++)
        out[i] = centre * (1.0 + spread * (sb_rng_unit(&r) - 0.5));
}

static void test_mann_whitney(void)
{
    double a[30], b[30];
    noisy(a, 30, 1.0, 0.05, 1);
    noisy(b, 30, 1.0, 0.05, 2);
    double p = sb_mann_whitney(a, 30, b, 30, NULL);
    CHECKF(p > 0.01, "same distribution gave p = %g", p);
    noisy(b, 30, 1.2, 0.05, 3);
    p = sb_mann_whitney(a, 30, b, 30, NULL);
    CHECKF(p < 1e-6, "20%% apart gave p = %g", p);
    double ties[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    CHECK(sb_mann_whitney(ties, 9, ties, 9, NULL) == 1.0);
}

static void test_verdicts(void)
{
    double a[21], b[21];
    noisy(a, 21, 1.0, 0.04, 5);
    sb_comparison c;
    sb_compare_samples(a, 21, a, 21, 0.01, 0.03, &c);
    CHECKF(c.verdict == SB_SAME && fabs(c.ratio - 1.0) < 1e-12, "a variant against itself: %s",
           sb_verdict_name(c.verdict));
    noisy(b, 21, 0.5, 0.04, 6);
    sb_compare_samples(a, 21, b, 21, 0.01, 0.03, &c);
    CHECK(c.verdict == SB_FASTER && c.hi < 1.0 && c.ratio < 0.55);
    noisy(b, 21, 1.5, 0.04, 7);
    sb_compare_samples(a, 21, b, 21, 0.01, 0.03, &c);
    CHECK(c.verdict == SB_SLOWER && c.lo > 1.0);
    /* 1 % apart and clearly significant, but below the practical threshold */
    noisy(b, 21, 1.01, 0.001, 8);
    noisy(a, 21, 1.0, 0.001, 9);
    sb_compare_samples(a, 21, b, 21, 0.01, 0.03, &c);
    CHECK(c.p_value < 0.01 && c.verdict == SB_SAME);
    /* the bootstrap is reproducible */
    double lo1, hi1, lo2, hi2;
    sb_bootstrap_ratio(a, 21, b, 21, 500, 0.95, 42, &lo1, &hi1);
    sb_bootstrap_ratio(a, 21, b, 21, 500, 0.95, 42, &lo2, &hi2);
    CHECK(lo1 == lo2 && hi1 == hi2 && lo1 <= hi1);
}

static void test_rse(void)
{
    sb_summary s = { 100, 1.0, 1.9, 2.0, 2.1, 3.0 };
    double rse = sb_median_rel_se(&s);
    CHECKF(fabs(rse - 1.2533 * (0.2 / 1.349) / 10.0 / 2.0) < 1e-9, "rse %g", rse);
    sb_summary one = { 1, 1, 1, 1, 1, 1 };
    CHECK(isinf(sb_median_rel_se(&one)));
}

/* The bootstrap as written first: each resample drawn, sorted, its
 * median read (the definition the interval follows). */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double sorted_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return sb_quantile_sorted(v, n, 0.5);
}

static void bootstrap_by_sorting(const double *a, int na, const double *b, int nb, int rounds,
                                 unsigned long long seed, double *lo, double *hi)
{
    double *ratios = malloc((size_t)rounds * sizeof *ratios), ra[64], rb[64];
    sb_rng rng;
    sb_rng_seed(&rng, seed);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < na; i++)
            ra[i] = a[sb_rng_below(&rng, (uint32_t)na)];
        for (int i = 0; i < nb; i++)
            rb[i] = b[sb_rng_below(&rng, (uint32_t)nb)];
        double ma = sorted_median(ra, na);
        ratios[r] = ma > 0 ? sorted_median(rb, nb) / ma : NAN;
    }
    qsort(ratios, (size_t)rounds, sizeof *ratios, cmp_double);
    double tail = (1.0 - 0.95) / 2.0;          /* as sb_bootstrap_ratio reads a 95 % level */
    *lo = sb_quantile_sorted(ratios, rounds, tail);
    *hi = sb_quantile_sorted(ratios, rounds, 1.0 - tail);
    free(ratios);
}

/* The bootstrap reads each resample's median from its counts instead of
 * sorting it (compare took 5 s on a small bench's 100 rows, 0.25 s now):
 * the same interval to the last bit, ties, zeros and one sample included. */
static void test_bootstrap_counts_equal_sorting(void)
{
    sb_rng g;
    sb_rng_seed(&g, 2026);
    int differ = 0;
    for (int trial = 0; trial < 200; trial++) {
        int na = 1 + (int)sb_rng_below(&g, 60), nb = 1 + (int)sb_rng_below(&g, 60);
        double a[64], b[64];
        for (int i = 0; i < na; i++)
            a[i] = trial % 3 == 0 ? (double)sb_rng_below(&g, 4) : 1.0 + sb_rng_unit(&g);
        for (int i = 0; i < nb; i++)
            b[i] = trial % 3 == 0 ? (double)sb_rng_below(&g, 4) : 1.0 + sb_rng_unit(&g);
        double lo1, hi1, lo2, hi2;
        bootstrap_by_sorting(a, na, b, nb, 300, 7 + (unsigned long long)trial, &lo1, &hi1);
        sb_bootstrap_ratio(a, na, b, nb, 300, 0.95, 7 + (unsigned long long)trial, &lo2, &hi2);
        int same = (lo1 == lo2 || (isnan(lo1) && isnan(lo2))) && (hi1 == hi2 || (isnan(hi1) && isnan(hi2)));
        CHECKF(same || differ++, "trial %d (%d and %d samples): [%.17g, %.17g] by sorting, [%.17g, %.17g] by counts",
               trial, na, nb, lo1, hi1, lo2, hi2);
    }
    CHECKF(differ == 0, "%d of 200 intervals differ", differ);
}

const sb_test tests_stats[] = {
    { "stats: median, quartiles, extremes", test_summary },
    { "stats: the bootstrap's counted resamples give the sorted resamples' interval, to the bit",
      test_bootstrap_counts_equal_sorting },
    { "stats: Mann-Whitney separates different samples, not equal ones", test_mann_whitney },
    { "stats: verdicts need significance, a clear interval and a practical difference", test_verdicts },
    { "stats: stopping rule (relative standard error of the median)", test_rse },
};
const int tests_stats_count = sizeof tests_stats / sizeof tests_stats[0];
