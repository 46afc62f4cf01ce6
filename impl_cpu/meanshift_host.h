/* meanshift_host.h - the host steps of mean-shift (meanshift.h), shared
 * by impl_cpu/meanshift*.c and the pthread and OpenMP variants, which
 * reach it (as "meanshift_host.h") on the -Iimpl_cpu path the Makefile
 * gives impl_pthread/ and the tests.  Each step is band-parallel phases
 * (bands.h); the serial, pthread and OpenMP variants differ only in the
 * runner. */
#ifndef SEGBENCH_MEANSHIFT_HOST_H
#define SEGBENCH_MEANSHIFT_HOST_H

#include "segbench/bands.h"
#include "segbench/meanshift.h"

/* Scratch for the region steps of one image size (about 60 bytes a pixel). */
typedef struct sb_ms_scratch {
    int width, height;
    uint8_t *join;            /* ccl.h's join bits */
    int32_t *parent, *comp;   /* union-find links; each pixel's region */
    int32_t *count;           /* by region: pixels */
    int64_t *sum;             /* by region: L, u, v sums (3 a region) */
    uint32_t *mean;           /* by region: packed mean colour */
    uint64_t *best;           /* by region: the most similar neighbour's key */
    int32_t *target, *end, *first;   /* pruning: pointers, their ends, each group's smallest region */
    int *band_count;          /* numbering: regions per band */
    int merged;               /* pruning: some region merged this round */
} sb_ms_scratch;

sb_status sb_ms_scratch_alloc(sb_ms_scratch *s, int width, int height, int bands, sb_error *err);
void sb_ms_scratch_free(sb_ms_scratch *s);

/* RGB (3 channels) to packed LUV. */
void sb_ms_host_convert(const sb_band_runner *run, const sb_image *rgb, uint32_t *luv);
/* The filter: every pixel's mode. */
void sb_ms_host_filter(const sb_band_runner *run, int width, int height, const uint32_t *luv,
                       const sb_ms_params *p, uint32_t *out);
/* Flood: labels = smallest index of each pixel's region; returns the count. */
int sb_ms_host_flood(const sb_band_runner *run, sb_ms_scratch *s, const uint32_t *colour, int range,
                     int32_t *labels);
/* Merge: labels 0..count-1; returns the count. */
int sb_ms_host_merge(const sb_band_runner *run, sb_ms_scratch *s, const uint32_t *colour, const int32_t *flood,
                     const sb_ms_params *p, int32_t *labels);

/* Host variants: every step is band-parallel phases run by `runner`. */
sb_status sb_ms_host_prepare(void **state, int step, const char *who, const sb_image *in, const void *params,
                             void *output, sb_band_runner runner, sb_error *err);
sb_status sb_ms_host_run(void *state, sb_error *err);
sb_status sb_ms_host_fetch(void *state, sb_error *err);
void sb_ms_host_release(void *state);

#endif
