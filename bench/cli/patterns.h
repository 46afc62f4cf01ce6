/* patterns.h - choosing algorithms, variants and stages by name: a comma
 * list of shell-style patterns, as fnmatch(3) reads them ("cuda-*",
 * "meanshift-*,kmeans", "cpu,pthread"). */
#ifndef SEGBENCH_PATTERNS_H
#define SEGBENCH_PATTERNS_H

#include "segbench/error.h"

/* Does some pattern of the list match name?  NULL (no list) matches all. */
int sb_pattern_match(const char *patterns, const char *name);

/* Every pattern of the list must match one of names[]; otherwise an error,
 * for option `what` ("--variant"), that lists the names there are. */
sb_status sb_pattern_check(const char *patterns, const char *const *names, int count, const char *what,
                           sb_error *err);

/* The names of the registry: every algorithm, every variant name and every
 * stage name (each once), for sb_pattern_check.  The arrays are static. */
int sb_algo_names(const char **names, int max);
int sb_variant_names(const char *algos, const char **names, int max);   /* and renamed ones' old names */
/* Does a variant of algo, called `name` now, match: by its name or by the
 * name it had before a rename (io/renames.h)? */
int sb_variant_match(const char *patterns, const char *algo, const char *name);   /* variants of the algos matching `algos` */
/* sb_variant_match for a run of the ladders (bench, check): a student's
 * rung (registry.h) only where the patterns name students ("student-*",
 * "student-cuda-pdl"), never through "all" or "cuda-*". */
int sb_variant_pick(const char *patterns, const char *algo, const char *name);
int sb_stage_names(const char *algos, const char **names, int max);

#endif
