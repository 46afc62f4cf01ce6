/* partition.h - the harness's partition check: do two labellings of the
 * same pixels describe the same regions, whatever the region numbers?
 *
 * An algorithm whose output is a segmentation with no canonical numbering
 * (mean-shift's flood and merge; any labelling compared up to renaming)
 * states its contract as "the same partition" and calls this from its
 * check.  Exact: one pixel in a different region fails it.
 */
#ifndef SEGBENCH_PARTITION_H
#define SEGBENCH_PARTITION_H

#include "segbench/error.h"

#include <stdint.h>

/* Do a and b (n labels each) describe the same partition (equal up to a
 * one-to-one renaming)?  Returns the number of pixels whose label pair
 * breaks the one-to-one matching (0: the same partition), -1 with err set
 * when out of memory; *first gets the first such pixel (-1 when none). */
long sb_partition_diff(const int32_t *a, const int32_t *b, long n, long *first, sb_error *err);

#endif
