/* kernels.c - the kernel census reporter: for every CUDA kernel a device
 * row launched, one line of <algo>.kernels.csv (block size, registers,
 * shared memory, resident blocks per SM, theoretical occupancy), each
 * (stage, variant, kernel, block, dynamic shared memory) once an
 * algorithm (reporter.h; run/census.h takes the census). */
#include "reporters/reporters.h"

#include "base/csv.h"

#include <stdlib.h>
#include <string.h>

static const char KERNELS_CSV_HEADER[] =
    "stage,variant,image,kernel,block,regs,static_smem,dynamic_smem,blocks_per_sm,occupancy";

/* Append k[0..n) of one row, each not in *seen yet (a growing text). */
sb_status sb_kernels_put(FILE *log, char **seen, const char *stage, const char *variant, const char *image,
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

static sb_status kernels_row(sb_reporter *self, const sb_row_report *rr, sb_error *err)
{
    sb_file_reporter *f = self->state;
    if (!rr->census)
        return SB_OK;
    sb_status st = sb_kernels_put(f->log.fp, &f->seen, rr->stage, rr->v->name, rr->image, rr->census, rr->census_n, err);
    return st ? st : sb_csv_log_flush(&f->log, err);
}

void sb_kernels_reporter(sb_reporter *rep, sb_file_reporter *f)
{
    sb_file_reporter_make(rep, f, "kernels", ".kernels.csv", KERNELS_CSV_HEADER, NULL);
    rep->row = kernels_row;          /* the census, not the row */
}
