/* kmeans_host.h - the host internals of k-means (kmeans.h) that the CPU
 * variants share: the assignment of a band of rows, and the state and
 * loop of the host variants.  Reached only by impl_cpu/, impl_pthread/ and
 * the tests, as "kmeans_host.h" on the -Iimpl_cpu path the Makefile gives
 * them; the public header keeps the contract. */
#ifndef SEGBENCH_KMEANS_HOST_H
#define SEGBENCH_KMEANS_HOST_H

#include "segbench/kmeans.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Assignment of rows [y0, y1): write labels (packed, width per row), add
 * every pixel to sums[label], return the number of changed labels
 * (first_pass: all of them). */
long sb_kmeans_assign_rows(const sb_image *rgb, int y0, int y1, const sb_kmeans_prepped *centres, int k,
                           int first_pass, uint8_t *labels, sb_kmeans_sums *sums);

/* What every host-driven variant (cpu, pthread, openmp, cuda-seed) keeps.
 * A variant's state embeds it as its first member, so the state pointer
 * is also an sb_kmeans_host pointer (and the pass function's ctx). */
typedef struct sb_kmeans_host {
    const sb_image *in;
    sb_kmeans_params params;
    sb_kmeans_out *out;
    int threads;
    int32_t initial[SB_KMEANS_MAX_K][3];
} sb_kmeans_host;

/* prepare(): allocate `size` zeroed bytes of state (at least an
 * sb_kmeans_host), fill the sb_kmeans_host part and check the parameters
 * and the image (run makes the initial centres: a frame's own); `who`
 * names the variant in messages.  On failure *state is
 * NULL and nothing is left allocated. */
sb_status sb_kmeans_host_open(size_t size, void **state, const sb_image *in, const void *params, void *output,
                              int threads, const char *who, sb_error *err);
/* run(): the frame's initial centres (its input and warm start now), then
 * the loop from them, one `pass` per pass. */
sb_status sb_kmeans_host_run(sb_kmeans_host *h, sb_kmeans_pass_fn pass, sb_error *err);
/* fetch() for variants that compute straight into the output. */
sb_status sb_kmeans_host_fetch(void *state, sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
