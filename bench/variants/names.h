/* names.h - the registry's names, for choosing algorithms, variants and
 * stages by pattern (base/patterns.h) and for naming one variant on a
 * command line ("algo/variant@threads"). */
#ifndef SEGBENCH_NAMES_H
#define SEGBENCH_NAMES_H

#include "variants/registry.h"
#include "segbench/error.h"

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

/* Parse "algo/variant" or "algo/variant@threads". */
sb_status sb_parse_variant_spec(const char *spec, const sb_variant **v, int *threads, sb_error *err);

#endif
