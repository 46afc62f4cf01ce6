/* compare.h - `segbench compare`'s work: is B faster than A, beyond
 * noise?  Two variants timed in interleaved rounds on the same images, or
 * two saved result sets row by row, each row's rounds its evidence
 * (measure/evidence.h says how the verdict is reached). */
#ifndef SEGBENCH_COMPARE_H
#define SEGBENCH_COMPARE_H

#include "cases/select.h"

#include "segbench/error.h"

#define COMPARE_ROUNDS 10        /* A B: rounds a side */
#define COMPARE_SAMPLES 5        /* A B: samples a round (its median the round's evidence) */
#define COMPARE_MIN_DIFF 0.0     /* a floor below this is raised to it */

typedef struct compare_opts {
    const char *spec[2];           /* A and B: algo/variant[@threads] */
    sb_image_choice images;        /* A B: --set, --image, --rect */
    const char *algos, *variants, *stages;
    int rounds, samples;
    double min_diff, fdr;
    const char *floor_file;        /* --floor FILE: a noise.csv; NULL: the current set's, else this machine's */
    int runs_floor;                /* --baseline: hold rows of two runs to what the same code moved by between
                                      the machine's committed runs too (--runs-floor auto; 0: off) */
    const char *results_root;      /* where the machine's runs of record are (git history): "results" */
    int flush_l2;
    const char *baseline, *current;
    int fail_on_slower;
    const char *export_json, *export_csv;
} compare_opts;

/* The comparison, its table printed as it goes, its verdict, and the
 * exports; SB_ERR_AGREEMENT when a row broke its contract, SB_ERR_SLOWER
 * when B is slower somewhere and fail_on_slower is set. */
sb_status sb_compare_run(const compare_opts *o, sb_error *err);

/* The noise floors a comparison judges by: the file named (an error when
 * it cannot be read), else <dir>/noise.csv of the first of dirs that has
 * one, else results/<this machine>/noise.csv, else the defaults; said in
 * one line on stderr when they are the defaults. */
struct sb_noise_floor;
sb_status sb_compare_floors(const char *file, const char *const *dirs, int ndirs, struct sb_noise_floor *f,
                            sb_error *err);
/* The same with another file name than noise.csv (ab --paired's
 * noise-paired.csv: floors of paired rounds). */
sb_status sb_compare_floors_named(const char *file, const char *name, const char *const *dirs, int ndirs,
                                  struct sb_noise_floor *f, sb_error *err);
/* results/<this machine>/<name>, where noise writes its floors (out:
 * SB_PATH_MAX bytes). */
sb_status sb_floor_default_path(const char *name, char *out, sb_error *err);

#endif
