/* report_quality.c - the quality tables on an algorithm's page, from
 * <algo>.quality.csv (written by bench: algos/quality.c). */
#include "pages/report_parts.h"

#include "base/files.h"

#include "base/csv.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_METRICS = 8 };   /* MAX_IMAGES: report_view.h */

typedef struct quality_table {
    char metric[MAX_METRICS][48];
    int nmetric;
    char image[MAX_IMAGES][128];
    int nimage;
    double value[MAX_IMAGES][MAX_METRICS];
    int has[MAX_IMAGES][MAX_METRICS];
} quality_table;

static int index_of(char (*names)[128], int *count, int max, const char *name)
{
    for (int i = 0; i < *count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    if (*count == max)
        return -1;
    snprintf(names[*count], 128, "%s", name);
    return (*count)++;
}

static int metric_index(quality_table *t, const char *name)
{
    for (int i = 0; i < t->nmetric; i++)
        if (strcmp(t->metric[i], name) == 0)
            return i;
    if (t->nmetric == MAX_METRICS)
        return -1;
    snprintf(t->metric[t->nmetric], sizeof t->metric[0], "%s", name);
    return t->nmetric++;
}

void report_quality(FILE *md, const char *results_dir, const sb_algo *algo)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.quality.csv", results_dir, algo->name);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    quality_table *t = calloc((size_t)algo->stage_count, sizeof *t);
    if (!t) {
        fclose(fp);
        return;
    }
    char *line = NULL;
    size_t cap = 0;
    int lines = 0;
    while (sb_csv_read_record(fp, &line, &cap) > 0)
        if (lines++ > 0) {
            char *f[8];
            if (sb_csv_split(line, f, 8) != 7)
                continue;
            for (int s = 0; s < algo->stage_count; s++)
                if (strcmp(algo->stages[s], f[1]) == 0) {
                    int i = index_of(t[s].image, &t[s].nimage, MAX_IMAGES, f[2]), m = metric_index(&t[s], f[5]);
                    if (i >= 0 && m >= 0) {
                        t[s].value[i][m] = atof(f[6]);
                        t[s].has[i][m] = 1;
                    }
                }
        }
    free(line);
    fclose(fp);

    fprintf(md, "### %s: quality against ground truth\n\nComputed on the reference's output (every timed row's output "
                "was checked equal to it). %s\n\n",
            algo->name,
            algo->quality_note ? algo->quality_note
                               : "Boundary recall counts the truth's border pixels with a superpixel border within "
                                 "round(0.0025 x diagonal) pixels (at least 1); undersegmentation error is Neubert and "
                                 "Protzel's; photos have no ground truth, so only the truth-free measures.");
    for (int s = 0; s < algo->stage_count; s++) {
        quality_table *q = &t[s];
        if (!q->nimage)
            continue;
        fprintf(md, "Stage %s:\n\n| image |", algo->stages[s]);
        for (int m = 0; m < q->nmetric; m++)
            fprintf(md, " %s |", report_md(REPORT_TEXT, q->metric[m]));
        fprintf(md, "\n|---|");
        for (int m = 0; m < q->nmetric; m++)
            fprintf(md, "---:|");
        fprintf(md, "\n");
        double sum[MAX_METRICS] = { 0 };
        int synth = 0;
        for (int i = 0; i < q->nimage; i++) {
            fprintf(md, "| %s |", report_md(REPORT_TEXT, q->image[i]));
            int is_synth = strncmp(q->image[i], "synth-", 6) == 0;
            synth += is_synth;
            for (int m = 0; m < q->nmetric; m++) {
                if (q->has[i][m])
                    fprintf(md, " %.4g |", q->value[i][m]);
                else
                    fprintf(md, " - |");
                if (is_synth)
                    sum[m] += q->value[i][m];
            }
            fprintf(md, "\n");
        }
        if (synth) {
            fprintf(md, "| **mean, %d synthetic** |", synth);
            for (int m = 0; m < q->nmetric; m++)
                fprintf(md, " **%.4g** |", sum[m] / synth);
            fprintf(md, "\n");
        }
        fprintf(md, "\n");
    }
    free(t);
}
