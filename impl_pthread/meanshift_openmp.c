/* meanshift_openmp.c - mean-shift with OpenMP (variant "openmp" of every
 * mean-shift stage): impl_cpu/meanshift*.c's phases, each one parallel
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

#define MS_OPENMP_OPS(name, stage, who)                                                                  \
    static sb_status name##_prepare(void **state, const sb_image *in, const void *params, void *output, \
                                    const sb_exec *exec, sb_error *err)                                \
    {                                                                                                    \
        sb_band_runner runner = { openmp_runner, NULL, exec->threads };                                  \
        return sb_ms_host_prepare(state, stage, who, in, params, output, runner, err);                   \
    }                                                                                                    \
    const sb_variant_ops name = { name##_prepare, NULL, sb_ms_host_run, sb_ms_host_fetch, sb_ms_host_release };

MS_OPENMP_OPS(sb_ms_filter_openmp_ops, SB_MS_FILTER, "meanshift-filter/openmp")
MS_OPENMP_OPS(sb_ms_flood_openmp_ops, SB_MS_FLOOD, "meanshift-flood/openmp")
MS_OPENMP_OPS(sb_ms_merge_openmp_ops, SB_MS_MERGE, "meanshift-merge/openmp")
MS_OPENMP_OPS(sb_ms_pipeline_openmp_ops, SB_MS_PIPELINE, "meanshift/openmp")
