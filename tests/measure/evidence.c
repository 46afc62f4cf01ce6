/* evidence.c - verdicts from rounds (bench/measure/evidence.h): the t
 * distribution, the calls, the false-discovery rate, the floor.  A/A and
 * power are simulated here with a fixed seed; the measured ones are in
 * docs/measuring.md. */
#include "test.h"
#include "test_groups.h"

#include "measure/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A fixed stream of normal deviates (xorshift and Box-Muller). */
static unsigned long long rng = 88172645463325252ull;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((rng >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void) { return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform()); }

/* n round medians around ms with a relative spread sd. */
static void rounds(double *out, int n, double ms, double sd)
{
    for (int i = 0; i < n; i++)
        out[i] = ms * exp(sd * normal());
}

static void test_t_distribution(void)
{
    CHECKF(fabs(sb_t_quantile(0.95, 1) - 12.706) < 0.01, "df 1: %g", sb_t_quantile(0.95, 1));
    CHECKF(fabs(sb_t_quantile(0.95, 10) - 2.228) < 0.002, "df 10: %g", sb_t_quantile(0.95, 10));
    CHECKF(fabs(sb_t_quantile(0.95, 1e6) - 1.960) < 0.002, "df 1e6: %g", sb_t_quantile(0.95, 1e6));
    CHECKF(fabs(sb_t_upper(2.228, 10) - 0.025) < 1e-3, "P(T > 2.228 | 10) = %g", sb_t_upper(2.228, 10));
    CHECK(fabs(sb_t_upper(0, 5) - 0.5) < 1e-9 && sb_t_upper(-40, 3) > 0.999);
}

/* One round against one cannot reach any level; times that are not times
 * decide nothing (before: negative samples read "faster", NaN "same"). */
static void test_too_little_is_undetermined(void)
{
    sb_effect e;
    double a[1] = { 1.0 }, b[1] = { 2.0 };
    sb_effect_judge(a, 1, b, 1, 0.0, &e);
    CHECKF(e.call == SB_CALL_UNDETERMINED && fabs(e.ratio - 2.0) < 1e-12 && e.rounds_needed > 1, "%s %g",
           sb_call_name(e.call), e.ratio);
    double neg[3] = { 1.0, -1.0, 1.0 }, nan3[3] = { NAN, 1.0, 1.0 }, ok[3] = { 1.0, 1.01, 0.99 };
    sb_effect_judge(ok, 3, neg, 3, 0.0, &e);
    CHECK(e.call == SB_CALL_UNDETERMINED);
    sb_effect_judge(ok, 3, nan3, 3, 0.0, &e);
    CHECK(e.call == SB_CALL_UNDETERMINED);
    char words[96];
    sb_effect_judge(a, 1, b, 1, 0.0, &e);
    sb_effect_words(&e, words, sizeof words);
    CHECKF(!strcmp(words, "undetermined: 1 round against 1"), "%s", words);
}

/* A clear change beyond the floor is called and said in words; one inside
 * the floor is the same; one at its edge needs more rounds. */
static void test_calls(void)
{
    double a[10], b[10];
    sb_effect e;
    rounds(a, 10, 1.0, 0.01);
    rounds(b, 10, 1.10, 0.01);
    sb_effect_judge(a, 10, b, 10, 0.03, &e);
    char words[96];
    sb_effect_words(&e, words, sizeof words);
    CHECKF(e.call == SB_CALL_SLOWER && e.lo > 1.03 && e.ratio > 1.07 && e.ratio < 1.13 && !strncmp(words, "slower by ", 10),
           "%s [%g, %g]: %s", sb_call_name(e.call), e.lo, e.hi, words);
    sb_effect_judge(b, 10, a, 10, 0.03, &e);
    CHECK(e.call == SB_CALL_FASTER && e.hi < 0.97);
    rounds(b, 10, 1.0, 0.01);
    sb_effect_judge(a, 10, b, 10, 0.05, &e);
    CHECKF(e.call == SB_CALL_SAME && e.lo > 0.95 && e.hi < 1.05, "%s", sb_call_name(e.call));
    sb_effect_judge(a, 10, b, 10, 0.40, &e);                 /* inside a floor too wide for "same" */
    sb_effect_words(&e, words, sizeof words);
    CHECKF(e.call == SB_CALL_UNDETERMINED && strstr(words, "too wide"), "%s: %s", sb_call_name(e.call), words);
    sb_effect_judge(a, 10, b, 10, 0.0, &e);                  /* no floor: no "same", and no call either */
    CHECK(e.call == SB_CALL_UNDETERMINED || e.call == SB_CALL_FASTER || e.call == SB_CALL_SLOWER);
    rounds(b, 3, 1.05, 0.04);                                 /* near a 5 % floor, noisy: not decided */
    sb_effect_judge(a, 3, b, 3, 0.05, &e);
    CHECKF(e.call == SB_CALL_UNDETERMINED && e.rounds_needed > 3, "%s, %d", sb_call_name(e.call), e.rounds_needed);
}

/* A/A: 2,000 rows of one distribution, five rounds a side, no floor: the
 * interval alone calls about 5 % of them; held to a 5 % false-discovery
 * rate, almost none.  Power: a 1.10x change, 10 rounds a side, 2 % spread,
 * a 4 % floor: called slower in at least 19 of 20 trials. */
static void test_aa_and_power(void)
{
    enum { ROWS = 2000 };
    static sb_effect e[ROWS];
    static sb_effect *p[ROWS];
    int calls = 0;
    for (int r = 0; r < ROWS; r++) {
        double a[5], b[5];
        rounds(a, 5, 2.0, 0.05);
        rounds(b, 5, 2.0, 0.05);
        sb_effect_judge(a, 5, b, 5, 0.0, &e[r]);
        calls += e[r].call == SB_CALL_FASTER || e[r].call == SB_CALL_SLOWER;
        p[r] = &e[r];
    }
    CHECKF(calls > 40 && calls < 170, "%d of %d rows called at 95 %% without the FDR", calls, ROWS);
    double expect;
    int kept = sb_effects_fdr(p, ROWS, SB_EVIDENCE_FDR, &expect);
    CHECKF(kept <= ROWS / 100 && fabs(expect - SB_EVIDENCE_FDR * kept) < 1e-12, "%d calls kept", kept);
    int slower = 0;
    for (int trial = 0; trial < 20; trial++) {
        double a[10], b[10];
        rounds(a, 10, 1.0, 0.02);
        rounds(b, 10, 1.10, 0.02);
        sb_effect x;
        sb_effect_judge(a, 10, b, 10, 0.04, &x);
        slower += x.call == SB_CALL_SLOWER;
    }
    CHECKF(slower >= 19, "a 1.10x change called slower in %d of 20 trials", slower);
}

/* The floor: the 99th percentile of |log B/A| over A/A pairs. */
static void test_floor(void)
{
    double a[101], b[101];
    for (int i = 0; i <= 100; i++) {
        a[i] = 1.0;
        b[i] = exp(i / 1000.0);                 /* |log ratio| 0 .. 0.1 */
    }
    double f = sb_floor_from_pairs(a, b, 101, 0.99);
    CHECKF(fabs(f - expm1(0.099)) < 1e-9, "%g", f);
    b[3] = NAN;
    CHECK(sb_floor_from_pairs(a, b, 101, 0.99) > 0.09);
    CHECK(sb_floor_from_pairs(a, b, 0, 0.99) == 0.0);
}

/* Paired rounds (ab --paired): one log(B/A) a round; a t interval on
 * their mean with n - 1 degrees of freedom; the same calls as unpaired. */
static void test_paired(void)
{
    sb_effect e;
    const double slower[] = { 0.22, 0.21, 0.23, 0.22, 0.20 };          /* about 1.25x, tight */
    sb_effect_judge_paired(slower, 5, 0.05, 0.0, SB_EVIDENCE_LEVEL, &e);
    CHECKF(e.call == SB_CALL_SLOWER && e.na == 5 && e.nb == 5 && fabs(log(e.ratio) - 0.216) < 1e-9 && e.lo < e.ratio &&
               e.hi > e.ratio && e.p < 0.01,
           "%s %g [%g, %g] p %g", sb_call_name(e.call), e.ratio, e.lo, e.hi, e.p);
    /* the half-width is t(0.975, 4) * sd / sqrt(5) */
    double sd = sqrt((0.004 * 0.004 + 0.006 * 0.006 + 0.014 * 0.014 + 0.004 * 0.004 + 0.016 * 0.016) / 4);
    CHECKF(fabs(log(e.hi) - 0.216 - 2.7764451 * sd / sqrt(5.0)) < 1e-6, "hi %g", e.hi);
    const double same[] = { 0.004, -0.003, 0.001, 0.0, -0.002, 0.002 };
    sb_effect_judge_paired(same, 6, 0.05, 0.0, SB_EVIDENCE_LEVEL, &e);
    CHECKF(e.call == SB_CALL_SAME, "%s", sb_call_name(e.call));
    sb_effect_judge_paired(slower, 1, 0.05, 0.0, SB_EVIDENCE_LEVEL, &e);   /* one round reaches no level */
    CHECK(e.call == SB_CALL_UNDETERMINED && e.rounds_needed == 3 && e.lo == 0.0);
    const double wide[] = { 0.3, -0.1, 0.25, -0.05 };                    /* straddles: how many rounds */
    sb_effect_judge_paired(wide, 4, 0.02, 0.0, SB_EVIDENCE_LEVEL, &e);
    CHECKF(e.call == SB_CALL_UNDETERMINED && e.rounds_needed > 4, "%s %d", sb_call_name(e.call), e.rounds_needed);
    const double broken[] = { 0.1, NAN, 0.1 };
    sb_effect_judge_paired(broken, 3, 0.02, 0.0, SB_EVIDENCE_LEVEL, &e);
    CHECK(e.call == SB_CALL_UNDETERMINED && e.ratio == 0.0);
}

const sb_test tests_evidence[] = {
    { "evidence: Student's t, its tail and its quantile", test_t_distribution },
    { "evidence: one round against one, and times that are not times, are undetermined", test_too_little_is_undetermined },
    { "evidence: beyond the floor faster or slower, inside it the same (a floor up to 25 %), at its edge more rounds",
      test_calls },
    { "evidence: A/A of 2,000 rows held to the false-discovery rate; a 1.10x change found 19 times in 20", test_aa_and_power },
    { "evidence: the floor is the 99th percentile of |log ratio| over A/A pairs", test_floor },
    { "evidence: paired rounds (ab --paired): a t interval on the mean log ratio, the same calls", test_paired },
};
const int tests_evidence_count = sizeof tests_evidence / sizeof tests_evidence[0];
