/* listing.h - `segbench list`: every algorithm (its stages, contract and
 * options) and every variant with its status on this machine -- runs,
 * skipped (no usable GPU), not built -- as text or (json) as JSON for
 * scripts; algos and variants are comma lists of patterns (NULL: all). */
#ifndef SEGBENCH_LISTING_H
#define SEGBENCH_LISTING_H

#include "segbench/error.h"

sb_status sb_list_print(const char *algos, const char *variants, int json, sb_error *err);

#endif
