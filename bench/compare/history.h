/* history.h - when did a row get faster or slower, and was it the code or
 * the machine?  A machine's runs of record over commits (or folders of
 * result sets: io/run_history.h) as series of measurements: one a row
 * (algorithm, stage, variant, threads, image) and one for the fastest
 * variant of each (algorithm, stage, image), a point each time a run
 * measured it anew.  A step is a move between two points beyond the
 * machine's noise floor (noise.csv: what two processes of one build may
 * differ by) with their samples' quartiles apart; it is put down to the
 * code when the fastest variant or the variant's code identity changed,
 * else to the machine, its driver or the protocol.  Points of two
 * machines are never judged against each other. */
#ifndef SEGBENCH_COMPARE_HISTORY_H
#define SEGBENCH_COMPARE_HISTORY_H

#include "io/code_ids.h"
#include "io/noise_floor.h"
#include "io/run_history.h"

#include <stdio.h>

/* A measurement: a row of a run, first seen at snapshot `snap`. */
typedef struct sb_history_point {
    int snap;
    double median, p25, p75;  /* kernel times, ms */
    char variant[48], backend[32];
    int threads;
    char run_id[48], commit[64], code_id[24];   /* the run and code that measured it */
} sb_history_point;

typedef struct sb_history_series {
    char algo[32], stage[32], image[128];
    int width, height;
    char variant[48], backend[32];   /* "" for a fastest-variant series */
    int threads;
    int best;                        /* the fastest variant of (algo, stage, image) */
    int floor;                       /* a speed-of-light row (SB_FLOOR): never the fastest variant */
    int present;                     /* its row was in the last CSV of its algorithm read */
    sb_history_point *pt;
    int n, cap;
} sb_history_series;

typedef enum sb_step_cause { SB_STEP_CODE, SB_STEP_MACHINE, SB_STEP_UNKNOWN } sb_step_cause;

typedef struct sb_history_step {
    int series, at;                  /* between points at - 1 and at */
    double ratio;                    /* after / before */
    double floor;                    /* the floor it cleared (a ratio's distance from 1) */
    sb_step_cause cause;
    char why[240];
} sb_history_step;

/* The history's own floors: what runs of one row's same code moved by. */
enum { SB_HISTORY_CLASSES = 16, SB_HISTORY_MIN_MOVES = 20, SB_HISTORY_WINDOW = 3 };
#define SB_HISTORY_QUANTILE 0.99
typedef struct sb_history_class {
    char name[48];                   /* "gpu 0.1-1 ms": a noise class (io/noise_floor.h), a decade of time */
    double floor;                    /* the 99th percentile move, as a ratio's distance from 1 */
    int moves;                       /* how many moves it is of */
} sb_history_class;

typedef struct sb_history {
    sb_history_snap *snap;
    int nsnap, snap_cap;
    sb_history_series *s;
    int ns, s_cap;
    sb_history_step *step;
    int nstep, step_cap;
    int unjudged;                    /* moves between points of two machines, not judged */
    sb_history_class cls[SB_HISTORY_CLASSES];   /* its own floors, of classes with enough moves */
    int nclass;
    int hint;                        /* where the last series was found (rows come in order) */
} sb_history;

/* The history of results_root/machine/ over git (last: the last so many
 * commits; 0: all), or of folders of result sets in the order given. */
sb_status sb_history_from_git(sb_history *h, const char *results_root, const char *machine, int last,
                              sb_error *err);
sb_status sb_history_from_sets(sb_history *h, const char *const *dirs, int n, sb_error *err);

/* Find the steps of the fastest-variant series (variant NULL) or of the
 * named variant's rows, against the floors; ids (may be NULL) finds the
 * code identities of rows older than the column, from git. */
sb_status sb_history_find_steps(sb_history *h, const char *variant, const sb_noise_floor *floors, sb_code_ids *ids,
                                sb_error *err);

/* The step at point `at` of series i, or NULL. */
const sb_history_step *sb_history_step_at(const sb_history *h, int series, int at);

/* The history's own floors (h->cls) from its runs, without judging a
 * step: what the same code moved by between runs of one machine, by row
 * class (compare --baseline holds two sets of two runs to them too). */
sb_status sb_history_own_floors(sb_history *h, sb_error *err);

/* The own floor of a row whose time is ms (its class's), 0 where its
 * class has too few moves to tell. */
double sb_history_floor_for(const sb_history *h, const sb_row *row, double ms);

/* The own floors in words: "gpu 0.1-1 ms 16.4 % (1268 moves), ...", or
 * "too few moves to tell". */
const char *sb_history_floors_words(const sb_history *h, char *out, size_t size);

/* On the terminal: each fastest-variant series (or, with a variant
 * named, that variant's) that has a step, its steps, and a count. */
void sb_history_print(const sb_history *h, const char *variant, FILE *fp);

/* The steps of the series shown (each stage and image's fastest variant,
 * or the named variant's rows), counted. */
typedef struct sb_history_tally {
    int series, stepped;             /* shown; with a step */
    int steps, cause[3];             /* all; by sb_step_cause */
} sb_history_tally;
void sb_history_count(const sb_history *h, const char *variant, sb_history_tally *t);
/* The tally in words: "122 steps in 119 of 191 series (code 122, machine 0, unknown 0)". */
const char *sb_history_tally_words(const sb_history_tally *t, char *out, size_t size);

/* "15 commits", "15 commits and the working tree", "6 result sets". */
const char *sb_history_span(const sb_history *h, char *out, size_t size);

void sb_history_free(sb_history *h);

#endif
