/* agreement.h - the harness's agreement check, driven by the algorithm's
 * description of its output (algo.h's sb_out_part, outputs.h).
 *
 * Every part is compared with the reference's as the algorithm declared:
 *   SB_CHECK_EXACT      every element equal to the bit (integers, doubles,
 *                       structs as bytes);
 *   SB_CHECK_PARTITION  int32 labels describing the same regions whatever
 *                       their numbers (partition.h);
 *   SB_CHECK_REPORT     not compared -- a count that differs by design
 *                       (a solver's rounds) -- but shown.
 * A variant flagged SB_FLOOR is compared with the algorithm's floor_output
 * instead of the reference; one flagged SB_INT32 also fails on a part
 * marked SB_PART_INT32_RANGE wherever the reference exceeds INT32_MAX.
 *
 * The metric says what was compared ("all 2073600 labels, 16 centres and
 * the pass count (12) equal") or, for each part that differs, how many
 * elements and the first one ("3 of 2073600 labels differ, first at
 * (11,5): 4 != 7").
 */
#ifndef SEGBENCH_AGREEMENT_H
#define SEGBENCH_AGREEMENT_H

#include "variants/algo.h"

void sb_output_check(const sb_algo *algo, const sb_image *in, const void *params, const void *ref, const void *got,
                     unsigned variant_flags, sb_agreement *ag);

#endif
