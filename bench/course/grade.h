/* grade.h - `segbench grade ALGO/student-RUNG`: a student's copy of a
 * rung graded as a course must (grade.c says how), and the class
 * leaderboard it appends to. */
#ifndef SEGBENCH_GRADE_H
#define SEGBENCH_GRADE_H

#include "harness/select.h"

#include "segbench/error.h"

#include <stdio.h>

enum { GRADE_MAX_GENERATED = 16 };

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

/* One line of a class leaderboard. */
typedef struct grade_class_row {
    const char *date, *student, *variant, *verdict;
    int exit_code;
    unsigned long long seed;
    int checks;
    double vs_parent, vs_reference, x_limit;    /* speed-ups (0: not timed) and x limit */
    const char *machine, *commit;
} grade_class_row;

#define GRADE_CLASS_HEADER \
    "date,student,variant,verdict,exit,seed,checks,speedup_vs_parent,speedup_vs_reference,x_limit,machine,commit\n"

/* Append a row to the leaderboard at path (created with its header): the
 * old file and the row written whole to a temporary file and renamed over
 * it.  Every field goes through base/csv.h, so any name comes back as it
 * went in.  A file whose first line is not the header is refused. */
sb_status grade_class_append(const char *path, const grade_class_row *row, sb_error *err);

#endif
