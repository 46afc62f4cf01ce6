/* 9_strips.cuh - what cuda-strips (9_strips.cu) lends the strip rungs
 * after it: its state, prepare and release, and the first two launches
 * of a table -- each strip's column totals, then their scan down the
 * strips -- which cuda-wide and cuda-staged keep. */
#ifndef SEGBENCH_INTEGRAL_9_STRIPS_CUH
#define SEGBENCH_INTEGRAL_9_STRIPS_CUH

#include "6_pdl.cuh"

struct strip_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    strip_scratch carries;
    int overlap;           /* programmatic dependent launch (compute capability 9.0+) */
};

/* After integral_device_open of a state that starts with a strip_state:
 * its carries, and whether its launches overlap. */
sb_status strip_init(strip_state *s, sb_error *err);

/* A variant's prepare and release with a strip_state. */
sb_status strip_prepare(void **state, const sb_image *in, const void *params, void *output, const sb_exec *exec,
                        sb_error *err);
void strip_release(void *state);

/* Enqueue the column totals of every strip of d->in, then their scan down
 * the strips, into c (Op: SumOp or SquareOp); the scan may overlap the
 * totals. */
template <class Op>
sb_status strip_carries_scan(integral_device *d, strip_carries<typename Op::T> c, int overlap, sb_error *err);

#endif
