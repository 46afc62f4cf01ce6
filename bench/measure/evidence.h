/* evidence.h - whether B is faster than A, from rounds.
 *
 * The unit of evidence is the round: one summary (its median) per round
 * that started the variant afresh, never the samples of one round against
 * another's -- the samples of one run share that run's clocks, placement
 * and neighbours, and a test over them counts them as far more
 * independent evidence than they are (issue 76: a rank test over samples
 * called 10 % of the rows of two runs of one build faster or slower).
 *
 * The effect is B/A, the ratio of the geometric means of the round
 * medians, with a 95 % interval from Welch's t on their logarithms
 * (Kalibera and Jones treat a ratio of means the same way; a t interval on
 * log round medians with Welch's degrees of freedom is the simple form).
 * The noise floor is what two runs of one build differ by on this machine
 * (the 99th percentile of |log B/A| between A/A rounds: `segbench noise`);
 * a verdict needs the whole interval beyond it:
 *
 *   faster / slower   the whole interval clears 1 and the floor
 *   same              the whole interval lies inside the floor, and the
 *                     floor is at most SB_EVIDENCE_SAME_MAX
 *   undetermined      neither: with the rounds a side likely to settle it
 *
 * One round against one cannot reach any level: undetermined.  Across the
 * rows of one comparison the calls are held to a false-discovery rate
 * (Benjamini-Hochberg): a call whose p-value the procedure does not keep
 * becomes undetermined.
 */
#ifndef SEGBENCH_EVIDENCE_H
#define SEGBENCH_EVIDENCE_H

#include <stddef.h>

typedef enum sb_call {
    SB_CALL_UNDETERMINED,
    SB_CALL_SAME,
    SB_CALL_FASTER,
    SB_CALL_SLOWER,
    SB_CALL_WORK_DIFFERS          /* the two sides did different amounts of work (iterations) */
} sb_call;

/* "undetermined", "same", "faster", "slower", "work differs" */
const char *sb_call_name(sb_call call);

/* The confidence of every interval, and the false-discovery rate of one
 * comparison's calls. */
#define SB_EVIDENCE_LEVEL 0.95
#define SB_EVIDENCE_FDR 0.05
/* "Same" needs a floor no wider than this: two runs a quarter apart are
 * not the same, whatever the machine's noise (a row that noisy is
 * undetermined). */
#define SB_EVIDENCE_SAME_MAX 0.25
/* Rounds a side beyond which more are not suggested. */
enum { SB_EVIDENCE_ROUNDS_MAX = 100 };

typedef struct sb_effect {
    int na, nb;                   /* rounds a side */
    double ratio;                 /* B/A: below 1, B is faster */
    double lo, hi;                /* its interval at SB_EVIDENCE_LEVEL; 0, 0: none (too few rounds) */
    double p;                     /* the chance of an interval this far beyond the floor with no
                                     change beyond it (one-sided, doubled); 1 when none */
    double floor;                 /* the floor used, as a ratio's distance from 1 (0.04: 4 %) */
    sb_call call;
    int rounds_needed;            /* undetermined: rounds a side likely to settle it
                                     (SB_EVIDENCE_ROUNDS_MAX + 1: more than that) */
} sb_effect;

/* The effect of B against A from their round medians (ms, > 0; a round
 * of 0, a negative, NaN or infinite time makes the row undetermined) and
 * the floor (a ratio's distance from 1; 0: none). */
void sb_effect_judge(const double *a, int na, const double *b, int nb, double floor, sb_effect *e);
/* The same with the user's smallest change that matters (compare's
 * --min-diff): the floor used is the larger of the two, and where the
 * user's bound is that floor, "same" within it is the user's to ask for,
 * however wide. */
void sb_effect_judge_min(const double *a, int na, const double *b, int nb, double floor, double min_diff,
                         sb_effect *e);
/* The same with the interval at another level (0.99: a 99 % interval;
 * the grader's --alpha is 1 - level). */
void sb_effect_judge_at(const double *a, int na, const double *b, int nb, double floor, double min_diff,
                        double level, sb_effect *e);

/* The same from paired rounds (ab --paired: measure/paired.h): one
 * log(B/A) a round, the median over the round's pairs of samples, each
 * pair's two samples taken next to each other.  The interval is Student's
 * t on their mean with n - 1 degrees of freedom; na = nb = n. */
void sb_effect_judge_paired(const double *log_ratio, int n, double floor, double min_diff, double level,
                            sb_effect *e);

/* Benjamini-Hochberg over the calls of one comparison at rate q: every
 * faster or slower call whose p-value the procedure does not keep becomes
 * undetermined.  Returns the number of calls kept; *expected_false gets
 * the number of false calls to expect among them (q times the calls
 * kept). */
int sb_effects_fdr(sb_effect *const *effects, int n, double q, double *expected_false);

/* "slower by 7.2 % +- 2.1 %", "faster by 12 % (8-16 %)", "same within 3 %";
 * a reader can quote it. */
void sb_effect_words(const sb_effect *e, char *out, int size);
/* The interval's half-width as a fraction of the ratio ((hi - lo) / 2 /
 * ratio: 0.02 is "+- 2 %", and the same fraction of a speed-up 1/ratio);
 * 0 where there is no interval. */
double sb_effect_half_width(const sb_effect *e);
/* A speed-up slow/fast as a reader sees it: "12.3x", then mark, then
 * where spread > 0 (sb_effect_half_width's) " \u00b12 %"; "-" when either
 * time is missing.  The report's cells and the lessons' gains alike. */
void sb_speedup_text(double slow_ms, double fast_ms, double spread, const char *mark, char *out, size_t size);

/* Student's t: the two-sided quantile for level (0.95 -> 1.96 at large
 * df), and the upper tail P(T > t); df need not be whole. */
double sb_t_quantile(double level, double df);
double sb_t_upper(double t, double df);

/* The q-quantile (0..1) of |log ratio| over paired A/A round medians,
 * as a ratio's distance from 1: the noise floor of rows like them. */
double sb_floor_from_pairs(const double *a, const double *b, int n, double q);

#endif
