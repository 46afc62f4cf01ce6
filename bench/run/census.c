/* census.c - the kernel census of a device row (see census.h). */
#include "run/census.h"

#include "base/files.h"

#include "harness/harness.h"
#include "io/results.h"

#include "segbench/device.h"

#include <stdlib.h>
#include <string.h>

sb_status sb_kernels_census(FILE *log, char **seen, const sb_case *c, const sb_variant *v, int threads,
                            void *stream, const char *image, sb_error *err)
{
    sb_status st = sb_census_begin(err);
    if (st)
        return st;
    sb_agreement ag;
    sb_error run_err;
    sb_status run = sb_check_only(c, v, threads, stream, &ag, &run_err);
    sb_kernel_info k[SB_CENSUS_MAX];
    int n = sb_census_end(k, SB_CENSUS_MAX);
    if (run)
        return SB_OK;                       /* the timed run will say what went wrong */
    return sb_kernels_log(log, seen, c->algo->stages[c->stage], v->name, image, k, n, err);
}

sb_status sb_kernels_log(FILE *log, char **seen, const char *stage, const char *variant, const char *image,
                         const sb_kernel_info *k, int n, sb_error *err)
{
    for (int i = 0; i < n; i++) {
        char key[SB_PATH_MAX];                      /* "|stage,variant,kernel,block,smem|" */
        snprintf(key, sizeof key, "|%.64s,%.64s,%.128s,%d,%d|", stage, variant, k[i].name, k[i].block,
                 k[i].dynamic_smem);
        if (*seen && strstr(*seen, key))
            continue;
        size_t have = *seen ? strlen(*seen) : 0;
        char *grown = realloc(*seen, have + strlen(key) + 1);
        if (!grown)
            return sb_fail(err, SB_ERR_NOMEM, "out of memory");
        strcpy(grown + have, key);
        *seen = grown;
        /* quoted where needed: template arguments hold commas, image names anything */
        sb_csv_put_fields(log, (const char *const[]){ stage, variant, image, k[i].name }, 4);
        fprintf(log, ",%d,%d,%d,%d,%d,%.3f\n", k[i].block, k[i].regs, k[i].static_smem, k[i].dynamic_smem,
                k[i].blocks_per_sm, k[i].occupancy);
    }
    return SB_OK;
}
