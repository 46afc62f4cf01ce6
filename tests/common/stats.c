/* stats.c - the summary of a row's samples and the stopping rule.  (The
 * verdicts' tests are tests/measure/evidence.c: from rounds.) */
#include "test_groups.h"

#include "segbench/stats.h"

#include <math.h>

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

static void test_rse(void)
{
    sb_summary s = { 100, 1.0, 1.9, 2.0, 2.1, 3.0 };
    double rse = sb_median_rel_se(&s);
    CHECKF(fabs(rse - 1.2533 * (0.2 / 1.349) / 10.0 / 2.0) < 1e-9, "rse %g", rse);
    sb_summary one = { 1, 1, 1, 1, 1, 1 };
    CHECK(isinf(sb_median_rel_se(&one)));
}

const sb_test tests_stats[] = {
    { "stats: median, quartiles, extremes", test_summary },
    { "stats: stopping rule (relative standard error of the median)", test_rse },
};
const int tests_stats_count = sizeof tests_stats / sizeof tests_stats[0];
