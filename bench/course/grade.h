/* grade.h - `segbench grade ALGO/student-RUNG`: a student's copy of a
 * rung graded as a course must (grade.c says how).  A whole class:
 * grade_class.h. */
#ifndef SEGBENCH_GRADE_H
#define SEGBENCH_GRADE_H

#include "cases/select.h"
#include "measure/evidence.h"
#include "variants/algo.h"

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

/* A class is graded from kits: no student's build holds the reference
 * solution, so none can call it.  The grader times the reference itself,
 * once, against its parent (the same images, seed and runs as a student's
 * grade), and holds each student's kit grade to it through the parent
 * they share (grade_against_reference). */
typedef struct grade_reference {
    char stage[32], image[128];
    int n;                                   /* rounds of each */
    double reference[GRADE_ROUNDS], parent[GRADE_ROUNDS];   /* round medians, ms */
    int beats_parent;                        /* faster than its parent, from the rounds */
    double speedup;                          /* over its parent */
} grade_reference;
sb_status grade_time_reference(const grade_opts *o, const sb_variant *rung, grade_reference *ref, sb_error *err);

/* What a class's grader takes from a student's kit grade record. */
typedef struct grade_kit_record {
    char verdict[96];
    int todo_left;
    char rounds_student[GRADE_ROUNDS * 24], rounds_parent[GRADE_ROUNDS * 24];   /* "ms ms ...", as written */
} grade_kit_record;

/* The class's verdict for that record (grade.c's rules, the reference's
 * speed from `ref`), *code its exit status; NULL when the record holds no
 * rounds to judge by.  vs_parent and vs_reference get the effects. */
const char *grade_against_reference(const grade_opts *o, const grade_kit_record *rec, const grade_reference *ref,
                                    sb_effect *vs_parent, sb_effect *vs_reference, int *code);


#endif
