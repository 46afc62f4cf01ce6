/* census.c - the kernel census of a device row (see census.h). */
#include "run/census.h"

#include "measure/measure.h"

sb_status run_census_take(const sb_case *c, const sb_variant *v, int threads, void *stream, sb_kernel_info *k,
                          int *n, sb_error *err)
{
    *n = -1;
    sb_status st = sb_census_begin(err);
    if (st)
        return st;
    sb_agreement ag;
    sb_error run_err;
    sb_status run = sb_check_only(c, v, threads, stream, &ag, &run_err);
    int got = sb_census_end(k, SB_CENSUS_MAX);
    if (!run)
        *n = got;
    return SB_OK;
}
