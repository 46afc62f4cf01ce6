/* ab.h - `segbench ab` and `segbench noise`: two builds, round by round.
 *
 * ab: the baseline build's segbench and this one bench the same rows in
 * turns -- A B, B A, A B, ... -- each turn a fresh process (`bench
 * --rounds 1`, its own folder under the work folder), so each process is
 * one round of evidence and both sides meet the same drift of the host
 * (Laaber et al.: interleaving finds on one cloud host the slowdowns that
 * runs back to back cannot).  The rows are then judged as compare judges
 * result sets (measure/evidence.h) against this machine's noise floor.
 * A host row's round that ran in a spell -- its cache probe (machine/
 * cache_probe.h) well above the fastest of the comparison -- is left out
 * of the evidence and run again, up to --spell-rounds more a side.
 *
 * ab --paired: each round runs both sides at once, one sample at a time
 * in turns (measure/paired.h), so A's sample k of a CPU row and B's run
 * side by side in time and share the host's state; a CPU row's evidence
 * is then each round's median log(B/A) over its pairs of samples (a paired
 * t interval over the rounds), judged against the floors of an A/A run the
 * same way (noise --paired: results/<machine>/noise-paired.csv).  Device
 * rows and rows whose samples did not pair are judged by their rounds.
 *
 * noise: ab of this build against itself (an A/A); its rounds give each
 * class of rows its floor, the 99th percentile of |log B/A| over the
 * pairs of rounds, written to noise.csv (io/noise_floor.h) for compare,
 * ab and the report. */
#ifndef SEGBENCH_AB_H
#define SEGBENCH_AB_H

#include "segbench/error.h"

#define SB_AB_ROUNDS 10          /* rounds a side */
#define SB_AB_PAIRED_SAMPLES 30  /* --paired: a CPU row's samples a round, enough pairs for a
                                     median that a spell's edge does not move */
enum { SB_AB_ROUNDS_MAX = 100 }; /* rounds a side at most, those run again for spells too */
enum { SB_AB_ARGS_MAX = 48 };

typedef struct ab_opts {
    const char *baseline_build;   /* a segbench binary, or a folder holding build/segbench (ab) */
    int rounds;                   /* rounds a side */
    int spell_rounds;             /* at most this many more a side, run again while a host row has
                                     fewer than `rounds` outside spells (compare/ab.c); -1: rounds */
    int keep_spells;              /* every round is evidence, in a spell or not (spells.h) */
    int paired;                   /* a round is both sides at once, their samples in turns
                                     (measure/paired.h): a CPU row's evidence is each round's
                                     median log(B/A) over its pairs of samples */
    int paired_samples;           /* paired: kernel samples a CPU row takes a round */
    const char *work;             /* the rounds' result sets go to <work>/<round>-<a|b>/ */
    const char *bench_args[SB_AB_ARGS_MAX];   /* given to every bench (the rows: --set, --algo, ...) */
    int nbench_args;
    char flag_text[SB_AB_ARGS_MAX][40];       /* the "--name" strings bench_args point at */
    int noise;                    /* segbench noise: this build against itself, the floors written */
    const char *floor_out;        /* noise: where noise.csv goes (NULL: results/<machine>/noise.csv) */
    const char *floor_file;       /* ab: the floors to judge by (NULL: as compare finds them) */
    double fdr, min_diff;
    int fail_on_slower;
    const char *export_csv, *export_json;
    int quiet;                    /* no progress line */
    int resume;                   /* keep the work folder's finished rounds (the same options) and run the rest */
} ab_opts;

sb_status sb_ab_run(const ab_opts *o, sb_error *err);

#endif
