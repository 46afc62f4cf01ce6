/* exercise.h - a lesson as an exercise: a student copy of a rung with the
 * lesson's code taken out, and the reference solution put back.
 *
 * The student copy of a CUDA rung is its file with every part that differs
 * from its parent's file (a line diff) replaced by the parent's lines,
 * between two markers:
 *
 *     // TODO(exercise part 2 of 3): <the edge's idea>.  ...
 *     ...the parent's lines...
 *     // END TODO(exercise part 2)
 *
 * so the stub builds, is exact (it is the parent) and is as fast as the
 * parent: the grader (segbench grade) tells it apart by speed.  A part
 * may hold lines the two files share: two stretches of differences with
 * only blank lines, comments, braces or "#pragma unroll" between them are
 * one part, and a stub has at most 10 parts (the two stretches with the
 * fewest lines between them are joined until it has).  Parts that
 * differ only in comments keep the rung's words (the lesson's statement).
 * An OpenMP variant's lesson is its `#pragma omp` lines: the stub is the
 * serial loop with a TODO where each pragma was.
 *
 * Either copy registers as "student-<rung>" (its SB_VARIANT and SB_RUNG
 * lines renamed), and its quoted #includes point back to the rung's
 * folder, so it builds from exercises/<algo>/ as it is. */
#ifndef SEGBENCH_EXERCISE_H
#define SEGBENCH_EXERCISE_H

#include "variants/registry.h"

#include "segbench/error.h"

#include <stddef.h>

/* The rung a student variant copies ("student-cuda-pdl" -> integral's
 * cuda-pdl), or NULL when `name` is no student name or no such rung. */
const sb_variant *exercise_reference(const char *algo, const char *name);

/* The variant a student's rung is measured against: a CUDA rung's
 * parent, an OpenMP variant's serial reference.  NULL (and why) when the
 * variant has no exercise: a root, the serial reference, a pthread variant. */
const sb_variant *exercise_parent(const sb_variant *rung, char *why, size_t why_size);
/* The rung ALGO/RUNG names (not a student's copy), or why not. */
sb_status exercise_rung(const char *spec, const sb_variant **v, sb_error *err);

/* Write exercises/<algo>/<the rung's file name> under `root`: the student
 * copy, or with `solution` the reference solution.  Refuses to replace a
 * file that is there unless `force` (it may hold a student's work).
 * *parts gets the number of TODO parts (0 for a solution); written gets
 * the path. */
sb_status exercise_write(const sb_variant *rung, const char *root, int solution, int force, int *parts,
                         char *written, size_t written_size, sb_error *err);

/* The TODO parts left in a student's file (0 when none or unreadable). */
int exercise_todo_left(const char *path);

/* The files that hold the solution of `rung`: its own, and the file of
 * every rung that grows from it, at any depth (a descendant holds the
 * lesson's code too; a file gone takes every rung it registers).  Paths
 * from the repository's root, at most max (KIT_MAX_GONE); the count. */
enum { KIT_MAX_GONE = 256 };
int exercise_solution_files(const sb_variant *rung, const char **gone, int max);

/* A student's kit in the new folder dir: the repository at root (its
 * sources, documents, results and the dataset's sources; not its tests or
 * builds) without the reference solution -- the rung's file and the file
 * of every rung that grows from it -- with the stub in exercises/ALGO/
 * and a KIT.md that says what to do.  It builds and grades as it is. */
sb_status exercise_export(const sb_variant *rung, const char *root, const char *dir, sb_error *err);
/* `segbench exercise ALGO/RUNG --export DIR`, from this repository
 * (exercise_kit.c). */
sb_status sb_exercise_export(const char *spec, const char *dir, sb_error *err);

/* `segbench exercise ALGO/RUNG`: the stub (or, solution, the reference
 * solution) written under root/exercises/, and what to do next printed. */
sb_status sb_exercise_hand_out(const char *spec, const char *root, int solution, int force, sb_error *err);

#endif
