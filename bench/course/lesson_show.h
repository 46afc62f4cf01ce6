/* lesson_show.h - `segbench lesson ALGO/RUNG | ALGO`: one edge of a ladder
 * as a course hands it out -- the rung it grows from, its one idea, what it
 * bought in a result set (kernel and per-frame time, kernel census), and
 * `diff -u` of the parent's file against the rung's -- or the algorithm's
 * whole tree.  The numbers come from `results` (NULL: the reference
 * machine's set); stage NULL: every stage. */
#ifndef SEGBENCH_LESSON_SHOW_H
#define SEGBENCH_LESSON_SHOW_H

#include "segbench/error.h"

sb_status sb_lesson_show(const char *spec, const char *results, const char *stage, int no_diff, sb_error *err);

#endif
