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

#include <omp.h>
#include <stdlib.h>

static void openmp_runner(void *self, sb_band_fn fn, void *ctx, int bands)
{
    (void)self;
#pragma omp parallel for num_threads(bands) schedule(static, 1)
    for (int b = 0; b < bands; b++)
        fn(ctx, b, bands);
}

static void openmp_release(void *state)
{
    if (state)
        sb_slic_host_close(state);
    free(state);
}

static sb_status openmp_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    sb_slic_host *h = calloc(1, sizeof *h);
    if (!h)
        return sb_fail(err, SB_ERR_NOMEM, "slic/openmp: out of memory");
    sb_band_runner runner = { openmp_runner, NULL, exec->threads };
    sb_status st = sb_slic_host_open(h, "slic/openmp", in, params, output, runner, err);
    if (st) {
        openmp_release(h);
        return st;
    }
    *state = h;
    return SB_OK;
}

static sb_status openmp_run(void *state, sb_error *err) { return sb_slic_host_run(state, err); }
static sb_status nothing_to_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

const sb_variant_ops sb_slic_openmp_ops = { openmp_prepare, openmp_run, nothing_to_fetch, openmp_release };
