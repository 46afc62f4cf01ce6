/* slic_openmp.c - SLIC with OpenMP (variant "openmp").
 *
 * The algorithm is impl_cpu/slic.c's band-parallel phases; here each
 * phase is one parallel loop over the bands, a band per thread
 * (schedule(static, 1)), and the loop's implicit barrier separates the
 * phases.  Against the pthread variant the only difference is who owns
 * the threads: the OpenMP runtime keeps its team between regions.
 */
#include "segbench/slic.h"
#include "segbench/variant.h"

#include "slic_host.h"

#include <omp.h>

static void openmp_runner(void *self, sb_band_fn fn, void *ctx, int bands)
{
    (void)self;
#pragma omp parallel for num_threads(bands) schedule(static, 1)
    for (int b = 0; b < bands; b++)
        fn(ctx, b, bands);
}

static sb_status openmp_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    sb_band_runner runner = { openmp_runner, NULL, exec->threads };
    return sb_slic_host_prepare(state, exec->who, in, params, output, runner, err);
}

SB_VARIANT("slic", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "the reference's phases as OpenMP loops over row bands",
           openmp_prepare, NULL, sb_slic_host_run_state, sb_slic_host_fetch, sb_slic_host_release)
