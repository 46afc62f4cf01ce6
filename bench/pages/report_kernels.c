/* report_kernels.c - "what the hardware did": the kernel census of one
 * stage (<algo>.kernels.csv, written by bench) on the algorithm's page
 * (see report_parts.h). */
#include "pages/report_parts.h"

#include "variants/registry.h"
#include "machine/env.h"
#include "variants/renames.h"

#include <stdlib.h>
#include <string.h>

void report_kernels(FILE *md, const char *results_dir, const char *algo, const char *stage)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s.kernels.csv", results_dir, algo);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    int rows = 0;
    char *l = NULL;
    size_t cap = 0;
    while (sb_csv_read_record(fp, &l, &cap) > 0) {
        char *f[10];
        int n = sb_csv_split(l, f, 10);
        if (n < 10 || strcmp(f[0], stage) != 0 || sb_is_student_variant(f[1]))
            continue;                       /* the header, another stage, a cut-off line, or a student's rung */
        if (!rows++)
            fprintf(md, "#### What the hardware did, stage %s\n\nEvery kernel each CUDA variant launches, as the "
                        "CUDA occupancy API reports it for the binary and GPU of this run (theoretical occupancy: "
                        "resident warps over the SM's maximum).\n\n| variant | kernel | block | registers/thread | "
                        "static smem (B) | dynamic smem (B) | blocks/SM | occupancy |\n"
                        "|---|---|---:|---:|---:|---:|---:|---:|\n",
                    stage);
        const char *name = strncmp(f[3], "void ", 5) ? f[3] : f[3] + 5;   /* templates demangle with their return type */
        fprintf(md, "| %s | `%s` | %s | %s | %s | %s | %s | %.0f%% |\n", report_md(REPORT_TEXT, sb_variant_current_name(algo, f[1])), report_md(REPORT_TEXT, name), f[4], f[5],
                f[6], f[7], f[8],
                100.0 * atof(f[9]));
    }
    if (rows)
        fprintf(md, "\n");
    free(l);
    fclose(fp);
}
