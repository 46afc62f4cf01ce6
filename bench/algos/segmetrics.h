/* segmetrics.h - quality of a segmentation against ground truth.
 *
 * Label maps are int32, width * height, rows packed; labels must be in
 * 0 .. width*height-1 (SLIC's are).  Definitions:
 *   boundary pixel    a pixel whose right or lower neighbour has another
 *                     label (each border is marked once, on its upper/left
 *                     side)
 *   boundary recall   the fraction of the truth's boundary pixels with a
 *                     boundary pixel of the segmentation within `radius`
 *                     (Chebyshev distance: a (2r+1)^2 square); 1 when the
 *                     truth has no boundary
 *   undersegmentation error (Neubert and Protzel 2012)
 *                     (1/N) sum over truth regions G, over segments S that
 *                     meet G, of min(|S and G|, |S minus G|)
 *   achievable segmentation accuracy
 *                     (1/N) sum over segments S of max over G of |S and G|
 *   pieces per label  4-connected pieces / distinct labels (1: every label
 *                     is connected)
 */
#ifndef SEGBENCH_SEGMETRICS_H
#define SEGBENCH_SEGMETRICS_H

#include <stdint.h>

#include "segbench/error.h"

/* max(1, round(0.0025 * diagonal)), the tolerance. */
int sb_boundary_radius(int width, int height);

/* Each returns SB_ERR_NOMEM on failure to allocate, labels outside
 * 0..n-1 as SB_ERR_USAGE. */
sb_status sb_boundary_recall(const int32_t *seg, const int32_t *truth, int width, int height, int radius,
                             double *recall, sb_error *err);
sb_status sb_overlap_scores(const int32_t *seg, const int32_t *truth, int width, int height, double *under_error,
                            double *accuracy, sb_error *err);
sb_status sb_pieces_per_label(const int32_t *seg, int width, int height, double *pieces, sb_error *err);

#endif
