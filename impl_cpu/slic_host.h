/* slic_host.h - the host internals of SLIC (slic.h) that the CPU variants
 * share: the state every host variant keeps and the variant functions
 * built on it.  Reached only by impl_cpu/, impl_pthread/ and the tests, as
 * "slic_host.h" on the -Iimpl_cpu path the Makefile gives them; the
 * public header keeps the contract. */
#ifndef SEGBENCH_SLIC_HOST_H
#define SEGBENCH_SLIC_HOST_H

#include "segbench/bands.h"
#include "segbench/regions.h"
#include "segbench/slic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What every host variant (cpu, pthread, openmp) keeps.  The algorithm is
 * written once, as band-parallel phases (bands.h); a variant's state
 * embeds this as its first member and supplies the runner. */
typedef struct sb_slic_host {
    const char *who;               /* "slic/pthread", for messages */
    const sb_image *in;
    sb_slic_params params;
    sb_slic_geometry geo;
    sb_slic_out *out;
    sb_band_runner runner;
    uint16_t *colour;              /* 3 channels a pixel */
    sb_slic_sums *band_sums;       /* bands x centres; a band touches only its cell rows */
    int *band_lo, *band_hi;        /* the cell rows each band's sums cover */
    int32_t *spare;                /* the majority filter's second buffer */
    const int32_t *filter_from;    /* the filter pass under way */
    int32_t *filter_to;
    uint8_t *used;                 /* by centre: some pixel carries it */
    int *band_unsettled;           /* by band: the centres the last update left unsettled (converge mode) */
    sb_regions regions;
} sb_slic_host;

/* prepare(): fill `h` (allocated by the caller, zeroed) for this image. */
sb_status sb_slic_host_open(sb_slic_host *h, const char *who, const sb_image *in, const void *params,
                            void *output, sb_band_runner runner, sb_error *err);
/* run(): the whole algorithm into h->out. */
sb_status sb_slic_host_run(sb_slic_host *h, sb_error *err);
void sb_slic_host_close(sb_slic_host *h);

/* The variant functions every host variant shares: prepare allocates an
 * sb_slic_host and opens it with the variant's runner; fetch has nothing
 * to do (the host computes straight into the output). */
sb_status sb_slic_host_prepare(void **state, const char *who, const sb_image *in, const void *params,
                               void *output, sb_band_runner runner, sb_error *err);
sb_status sb_slic_host_run_state(void *state, sb_error *err);
sb_status sb_slic_host_fetch(void *state, sb_error *err);
void sb_slic_host_release(void *state);

#ifdef __cplusplus
}
#endif
#endif
