/* grade_class.h - a whole class: the leaderboard file every grade can
 * append to (`segbench grade --class`), and `segbench grade --submissions
 * DIR`, which grades every student's file of one exercise in a tree of
 * its own, one after the other, with the teacher's seed and images. */
#ifndef SEGBENCH_GRADE_CLASS_H
#define SEGBENCH_GRADE_CLASS_H

#include "course/grade.h"
#include "io/dir_lock.h"

#include "segbench/error.h"

#include <stdio.h>

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

/* The rows of a leaderboard for one exercise and seed (variant
 * "ALGO/student-RUNG"), the last row of each student only, in the order
 * of their first row.  The strings live in *buf (free it, and *rows). */
sb_status grade_class_read(const char *path, const char *variant, unsigned long long seed, grade_class_row **rows,
                           int *count, char **buf, sb_error *err);

/* How a class is graded (beside grade_opts, which every student's grade
 * gets as it is). */
typedef struct grade_class_opts {
    const char *submissions;   /* DIR: DIR/<student>/<the exercise's file>, or DIR/<student>.c|.cu */
    const char *work;          /* each student's tree is built under it */
    const char *root;          /* the teacher's repository (its sources and build/ are shared) */
    double timeout_s;          /* a student's build, and their grade, each at most this long */
    int no_sandbox;            /* run their code as this user, with no sandbox (course/sandbox.h) */
    /* each process of a student's build and grade at most (0: no limit):
     * its memory, its CPU time, the user's processes (spawn.h) */
    size_t memory_bytes;
    double cpu_s;
    long processes;
} grade_class_opts;

/* What came of grading a class. */
typedef struct grade_class_result {
    int students, passed, wrong, slower, failed;   /* failed: did not build, crashed, timed out */
    char variant[160];                             /* "ALGO/student-RUNG" */
} grade_class_result;

/* Take the work folder for one grading of a class, before anything is
 * written there: made if absent, with a mark that segbench made it
 * (GRADE_WORK_MARK); refused, naming what it holds, when it holds files
 * and no mark -- a folder of the teacher's, whose WORK/NNN would be
 * removed and rebuilt -- unless all it holds has the names the grader
 * gives (a work folder from before the mark); refused when another
 * grading holds its lock (io/dir_lock.h: held until released or the
 * process ends). */
#define GRADE_WORK_MARK ".segbench-grade-work"
sb_status grade_class_claim_work(const char *work, sb_dir_lock *lock, sb_error *err);

/* Grade every submission of the exercise `spec` names (ALGO/RUNG or
 * ALGO/student-RUNG): each in its own tree under c->work (links to the
 * teacher's sources, a copy of the teacher's build, the student's file in
 * exercises/ALGO/), built with make and graded by that tree's segbench
 * with o (o->class_csv gets a row per student, whatever happened: a build
 * that fails, a crash, a time limit are rows too).  One line per student
 * on stdout.  Fails only when the class cannot be graded at all. */
sb_status grade_class_run(const grade_opts *o, const grade_class_opts *c, const char *spec, grade_class_result *res,
                          sb_error *err);

#endif
