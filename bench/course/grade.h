/* grade.h - `segbench grade ALGO/student-RUNG`: a student's copy of a
 * rung graded as a course must (grade.c says how).  A whole class:
 * grade_class.h. */
#ifndef SEGBENCH_GRADE_H
#define SEGBENCH_GRADE_H

#include "cases/select.h"

#include "segbench/error.h"

#include <stdio.h>

enum { GRADE_MAX_GENERATED = 16 };

/* A grade's exit status (sb_exit_code of its verdict). */
enum { GRADE_EXIT_PASS = 0, GRADE_EXIT_WRONG = 1, GRADE_EXIT_USAGE = 2, GRADE_EXIT_SLOWER = 3 };

typedef struct grade_opts {
    const char *set, *speed_set;           /* the set it must be exact on; the set whose summary image is timed */
    sb_image_choice images;                /* --image files instead of the set */
    unsigned long long seed;
    int have_seed, generated, samples, threads, sanitizer;
    const char *stage, *json, *class_csv, *student;
    double min_diff, alpha;
} grade_opts;

/* Grade the work `spec` names: the summary line on stdout, --json and
 * --class written; SB_ERR_AGREEMENT when wrong, SB_ERR_SLOWER when exact
 * but the lesson is not learnt. */
sb_status sb_grade_run(const grade_opts *o, const char *spec, sb_error *err);

/* The unit of a grade's speed evidence is the round, never a sample
 * against a sample (measure/evidence.h): one side's n interleaved runs
 * cut into up to GRADE_ROUNDS stretches of at least three, each stretch's
 * median a round.  The three sides ran in turns within every stretch, so
 * a burst of noise lands on all of them alike, and no floor between
 * processes applies: the smallest change that matters is --min-diff.
 * Returns the rounds (n >= 9: 3 to GRADE_ROUNDS). */
enum { GRADE_ROUNDS = 5 };
int grade_rounds(const double *ms, int n, double out[GRADE_ROUNDS]);


#endif
