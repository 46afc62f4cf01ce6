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

#endif
