/* evidence.c - verdicts from rounds (see evidence.h). */
#include "measure/evidence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sb_call_name(sb_call call)
{
    switch (call) {
    case SB_CALL_SAME: return "same";
    case SB_CALL_FASTER: return "faster";
    case SB_CALL_SLOWER: return "slower";
    case SB_CALL_WORK_DIFFERS: return "work differs";
    case SB_CALL_UNDETERMINED: break;
    }
    return "undetermined";
}

/* ---- Student's t ---- */

/* The continued fraction of the regularized incomplete beta function
 * I_x(a, b), evaluated by the modified Lentz method; converges quickly
 * for x < (a + 1) / (a + b + 2), which the caller arranges. */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    d = fabs(d) < tiny ? tiny : d;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double even = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + even * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + even / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        h *= d * c;
        double odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + odd * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + odd / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        double step = d * c;
        h *= step;
        if (fabs(step - 1.0) < 1e-14)
            break;
    }
    return h;
}

static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_fraction(a, b, x) / a;
    return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double sb_t_upper(double t, double df)
{
    if (!(df > 0) || isnan(t))
        return 1.0;
    double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
    return t >= 0 ? tail : 1.0 - tail;
}

double sb_t_quantile(double level, double df)
{
    double want = (1.0 - level) / 2.0, lo = 0.0, hi = 1.0;
    while (sb_t_upper(hi, df) > want && hi < 1e12)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (sb_t_upper(mid, df) > want)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* ---- one row ---- */

/* Mean and variance of the logarithms; 0 when a value cannot be one. */
static int log_moments(const double *x, int n, double *mean, double *var)
{
    double s = 0.0, ss = 0.0;
    for (int i = 0; i < n; i++) {
        if (!(x[i] > 0) || !isfinite(x[i]))
            return 0;
        s += log(x[i]);
    }
    *mean = s / n;
    for (int i = 0; i < n; i++)
        ss += (log(x[i]) - *mean) * (log(x[i]) - *mean);
    *var = n > 1 ? ss / (n - 1) : 0.0;
    return 1;
}

/* Rounds a side at which the interval's half-width would be `room` (on
 * the log scale), for a spread like this row's. */
static int rounds_for(double var_a, double var_b, double room, double level)
{
    double var = 0.5 * (var_a + var_b);
    if (!(room > 0))
        return SB_EVIDENCE_ROUNDS_MAX + 1;
    for (int n = 2; n <= SB_EVIDENCE_ROUNDS_MAX; n++) {
        double half = sb_t_quantile(level, 2.0 * n - 2.0) * sqrt(2.0 * var / n);
        if (half < room)
            return n;
    }
    return SB_EVIDENCE_ROUNDS_MAX + 1;
}

static int decide(sb_effect *e, double d, double se, double df, double half, double f, double same_max);

void sb_effect_judge(const double *a, int na, const double *b, int nb, double floor, sb_effect *e)
{
    sb_effect_judge_min(a, na, b, nb, floor, 0.0, e);
}

void sb_effect_judge_min(const double *a, int na, const double *b, int nb, double floor, double min_diff,
                         sb_effect *e)
{
    sb_effect_judge_at(a, na, b, nb, floor, min_diff, SB_EVIDENCE_LEVEL, e);
}

void sb_effect_judge_at(const double *a, int na, const double *b, int nb, double floor, double min_diff,
                        double level, sb_effect *e)
{
    memset(e, 0, sizeof *e);
    e->na = na;
    e->nb = nb;
    floor = floor > 0 ? floor : 0.0;
    double same_max = min_diff >= floor ? fmax(min_diff, SB_EVIDENCE_SAME_MAX) : SB_EVIDENCE_SAME_MAX;
    e->floor = fmax(floor, min_diff);
    e->p = 1.0;
    e->call = SB_CALL_UNDETERMINED;
    double ma, va, mb, vb;
    if (na < 1 || nb < 1 || !log_moments(a, na, &ma, &va) || !log_moments(b, nb, &mb, &vb))
        return;                                       /* nothing to judge by, or times that are not times */
    double d = mb - ma, f = log1p(e->floor);
    e->ratio = exp(d);
    if (na < 2 || nb < 2) {                           /* no spread to judge by: one round cannot reach any level */
        e->rounds_needed = 3;
        return;
    }
    double se2 = va / na + vb / nb;
    /* identical rounds: no spread at all; the interval is the point */
    double se = sqrt(se2), df = se2 > 0 ? se2 * se2 / ((va / na) * (va / na) / (na - 1) +
                                                        (vb / nb) * (vb / nb) / (nb - 1))
                                        : na + nb - 2;
    double half = sb_t_quantile(level, df) * se;
    e->lo = exp(d - half);
    e->hi = exp(d + half);
    if (decide(e, d, se, df, half, f, same_max))
        e->rounds_needed = rounds_for(va, vb, fabs(fabs(d) - f), level);
}

/* The call from the estimate d (log B/A), its standard error se on df
 * degrees of freedom and the interval's half-width, against the floor f
 * (log scale); returns 1 when it is undetermined for want of rounds. */
static int decide(sb_effect *e, double d, double se, double df, double half, double f, double same_max)
{
    double beyond = fabs(d) - f;                      /* how far past the floor the estimate lies */
    e->p = se > 0 ? fmin(1.0, 2.0 * sb_t_upper(beyond / se, df)) : (beyond > 0 ? 0.0 : 1.0);
    if (d - half > f)
        e->call = SB_CALL_SLOWER;
    else if (d + half < -f)
        e->call = SB_CALL_FASTER;
    else if (f > 0 && d - half > -f && d + half < f && e->floor <= same_max)
        e->call = SB_CALL_SAME;
    else if (f > 0 && d - half > -f && d + half < f)
        e->rounds_needed = 0;                         /* inside a floor too wide to call anything the same */
    else
        return 1;
    return 0;
}

void sb_effect_judge_paired(const double *log_ratio, int n, double floor, double min_diff, double level,
                            sb_effect *e)
{
    memset(e, 0, sizeof *e);
    e->na = e->nb = n;
    floor = floor > 0 ? floor : 0.0;
    double same_max = min_diff >= floor ? fmax(min_diff, SB_EVIDENCE_SAME_MAX) : SB_EVIDENCE_SAME_MAX;
    e->floor = fmax(floor, min_diff);
    e->p = 1.0;
    e->call = SB_CALL_UNDETERMINED;
    double sum = 0.0, ss = 0.0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(log_ratio[i]))
            return;                                   /* a pair that is not two times */
        sum += log_ratio[i];
    }
    if (n < 1)
        return;
    double d = sum / n, f = log1p(e->floor);
    e->ratio = exp(d);
    if (n < 2) {
        e->rounds_needed = 3;
        return;
    }
    for (int i = 0; i < n; i++)
        ss += (log_ratio[i] - d) * (log_ratio[i] - d);
    double var = ss / (n - 1), se = sqrt(var / n), df = n - 1;
    double half = sb_t_quantile(level, df) * se;
    e->lo = exp(d - half);
    e->hi = exp(d + half);
    if (!decide(e, d, se, df, half, f, same_max))
        return;
    double room = fabs(fabs(d) - f);                  /* rounds at which the interval would clear it */
    e->rounds_needed = SB_EVIDENCE_ROUNDS_MAX + 1;
    for (int k = 2; room > 0 && k <= SB_EVIDENCE_ROUNDS_MAX; k++)
        if (sb_t_quantile(level, k - 1.0) * sqrt(var / k) < room) {
            e->rounds_needed = k;
            break;
        }
}

/* ---- a comparison's rows ---- */

static int by_p(const void *x, const void *y)
{
    double a = (*(sb_effect *const *)x)->p, b = (*(sb_effect *const *)y)->p;
    return (a > b) - (a < b);
}

int sb_effects_fdr(sb_effect *const *effects, int n, double q, double *expected_false)
{
    sb_effect **calls = malloc((size_t)(n > 0 ? n : 1) * sizeof *calls);
    int m = 0, kept = 0;
    for (int i = 0; calls && i < n; i++)
        if (effects[i]->call == SB_CALL_FASTER || effects[i]->call == SB_CALL_SLOWER)
            calls[m++] = effects[i];
    if (calls) {
        qsort(calls, (size_t)m, sizeof *calls, by_p);
        /* the largest k with p(k) <= k q / n over every row judged, calls or not */
        int judged = 0;
        for (int i = 0; i < n; i++)
            judged += effects[i]->na > 1 && effects[i]->nb > 1;
        for (int k = m; k >= 1 && !kept; k--)
            if (calls[k - 1]->p <= k * q / (judged > 0 ? judged : 1))
                kept = k;
        for (int k = kept; k < m; k++) {
            calls[k]->call = SB_CALL_UNDETERMINED;
            calls[k]->rounds_needed = calls[k]->rounds_needed ? calls[k]->rounds_needed : SB_EVIDENCE_ROUNDS_MAX + 1;
        }
    }
    free(calls);
    if (expected_false)
        *expected_false = q * kept;
    return kept;
}

void sb_speedup_text(double slow_ms, double fast_ms, double spread, const char *mark, char *out, size_t size)
{
    if (!(slow_ms > 0) || !(fast_ms > 0)) {
        snprintf(out, size, "-");
        return;
    }
    double g = slow_ms / fast_ms;
    int n = snprintf(out, size, "%.*fx%s", g < 10 ? 2 : g < 100 ? 1 : 0, g, mark);
    if (spread > 0 && n > 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, " \xc2\xb1%.*f %%", spread < 0.01 ? 1 : 0, 100.0 * spread);
}

double sb_effect_half_width(const sb_effect *e)
{
    return e->ratio > 0 && e->hi > e->lo ? (e->hi - e->lo) / 2.0 / e->ratio : 0.0;
}

void sb_effect_words(const sb_effect *e, char *out, int size)
{
    double pct = 100.0 * fabs(e->ratio - 1.0);
    double half = 100.0 * (e->hi - e->lo) / 2.0;
    switch (e->call) {
    case SB_CALL_FASTER:
    case SB_CALL_SLOWER:
        snprintf(out, (size_t)size, "%s by %.1f %% +- %.1f %%", e->call == SB_CALL_FASTER ? "faster" : "slower",
                 pct, half);
        break;
    case SB_CALL_SAME: snprintf(out, (size_t)size, "same within %.1f %%", 100.0 * e->floor); break;
    case SB_CALL_WORK_DIFFERS: snprintf(out, (size_t)size, "work differs"); break;
    case SB_CALL_UNDETERMINED:
        if (e->na < 2 || e->nb < 2)
            snprintf(out, (size_t)size, "undetermined: %d round%s against %d", e->na, e->na == 1 ? "" : "s", e->nb);
        else if (e->rounds_needed == 0)
            snprintf(out, (size_t)size, "undetermined: within the floor, but a floor of %.0f %% is too wide to call "
                                        "it the same", 100.0 * e->floor);
        else if (e->rounds_needed > SB_EVIDENCE_ROUNDS_MAX)
            snprintf(out, (size_t)size, "undetermined: at the floor's edge");
        else
            snprintf(out, (size_t)size, "undetermined: ~%d rounds a side would settle it", e->rounds_needed);
        break;
    }
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double sb_floor_from_pairs(const double *a, const double *b, int n, double q)
{
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    int m = 0;
    for (int i = 0; d && i < n; i++)
        if (a[i] > 0 && b[i] > 0 && isfinite(a[i]) && isfinite(b[i]))
            d[m++] = fabs(log(b[i] / a[i]));
    double floor = 0.0;
    if (m > 0) {
        qsort(d, (size_t)m, sizeof *d, by_value);
        double at = q * (m - 1);
        int lo = (int)at;
        double frac = at - lo;
        floor = expm1(lo + 1 < m ? d[lo] + frac * (d[lo + 1] - d[lo]) : d[lo]);
    }
    free(d);
    return floor;
}
