/* quality.h - quality measures of each (stage, image), as CSV.
 *
 * results/<machine-id>/<algo>.quality.csv, one line per measure:
 *     algo,stage,image,width,height,metric,value
 * computed on the reference's output (every variant's output is checked
 * equal to it before it is timed) against the image's ground truth.
 */
#ifndef SEGBENCH_QUALITY_H
#define SEGBENCH_QUALITY_H

#include <stdio.h>

#include "variants/algo.h"

extern const char *const SB_QUALITY_CSV_HEADER;
/* The measures of one (stage, image) as lines of <algo>.quality.csv. */
void sb_quality_put(FILE *fp, const char *algo, const char *stage, const char *image, int width, int height,
                    const sb_quality *q);

#endif
