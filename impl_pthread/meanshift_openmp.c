/* meanshift_openmp.c - mean-shift with OpenMP (variant "openmp" of every
 * mean-shift step): impl_cpu/meanshift*.c's phases, each one parallel
 * loop over the bands, a band per thread; the loop's implicit barrier
 * separates the phases.  Against pthread, only who owns the threads differs. */
#include "segbench/meanshift.h"
#include "segbench/variant.h"

#include "meanshift_host.h"

#include <omp.h>

static void openmp_runner(void *self, sb_band_fn fn, void *ctx, int bands)
{
    (void)self;
#pragma omp parallel for num_threads(bands) schedule(static, 1)
    for (int b = 0; b < bands; b++)
        fn(ctx, b, bands);
}

#define MS_OPENMP_PREPARE(fn, step)                                                                     \
    static sb_status fn(void **state, const sb_image *in, const void *params, void *output,             \
                        const sb_exec *exec, sb_error *err)                                              \
    {                                                                                                    \
        sb_band_runner runner = { openmp_runner, NULL, exec->threads };                                  \
        return sb_ms_host_prepare(state, step, exec->who, in, params, output, runner, err);             \
    }
MS_OPENMP_PREPARE(filter_prepare, SB_MS_FILTER)
MS_OPENMP_PREPARE(flood_prepare, SB_MS_FLOOD)
MS_OPENMP_PREPARE(merge_prepare, SB_MS_MERGE)
MS_OPENMP_PREPARE(pipeline_prepare, SB_MS_PIPELINE)

SB_VARIANT("meanshift-filter", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "interleaved rows, one OpenMP loop",
           filter_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
SB_VARIANT("meanshift-flood", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "union-find in row bands as OpenMP loops, seams joined between",
           flood_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
SB_VARIANT("meanshift-merge", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "every phase in row bands as OpenMP loops, atomic per-region sums",
           merge_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
SB_VARIANT("meanshift", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "the three steps with OpenMP",
           pipeline_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release)
