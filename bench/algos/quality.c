/* quality.c - <algo>.quality.csv and the report's quality tables. */
#include "algos/quality.h"

#include "base/csv.h"

#include <stdio.h>

const char *const SB_QUALITY_CSV_HEADER = "algo,stage,image,width,height,metric,value";

void sb_quality_put(FILE *fp, const char *algo, const char *stage, const char *image, int width, int height,
                    const sb_quality *q)
{
    for (int i = 0; i < q->count; i++) {
        sb_csv_put_fields(fp, (const char *const[]){ algo, stage, image }, 3);
        fprintf(fp, ",%d,%d,", width, height);
        sb_csv_put_field(fp, q->name[i]);
        fprintf(fp, ",%.6f\n", q->value[i]);
    }
}
