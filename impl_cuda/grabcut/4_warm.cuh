/* 4_warm.cuh - what cuda-warm (4_warm.cu) lends the cuts after it:
 * where a cut starts. */
#ifndef SEGBENCH_GC_4_WARM_CUH
#define SEGBENCH_GC_4_WARM_CUH

#include "gc_tiles.cuh"

/* The run's first cut from zero flow, every later one, when last_term is
 * given, from the preflow the cut before left, repaired node by node
 * where the t-links changed (maxflow.h's sb_mf_rewarm); enqueued on
 * d->stream.  last_term (device; NULL: every cut cold) keeps the t-links
 * the flow is for.  f: unused here (cuda-keep's start sets f->keep). */
sb_status gc_warm_start(gc_dev *d, int it, int32_t *last_term, gc_loop_flags *f, sb_error *err);

#endif
