/* report_repeat.c - the report's repeatability line from repeat.csv: the
 * summary image's rows each run measured again at its end, kept across
 * runs of some algorithms, so the line says which algorithms (and how
 * many runs) the share is of, not only what the last run measured. */
#include "pages/report_parts.h"

#include "base/csv.h"
#include "variants/registry.h"

#include "segbench/variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALGOS_MAX = 32, RUNS_MAX = 64 };

typedef struct repeat_tally {
    int rows[2], within[2];                 /* CPU, GPU */
    const char *algo[ALGOS_MAX];
    int nalgo;
    char run[RUNS_MAX][48];
    int nrun, unrecorded;                   /* lines of before repeat.csv named their run */
} repeat_tally;

static void tally_line(repeat_tally *t, char **f, int n)
{
    const sb_algo *algo = sb_algo_find(f[0]);
    const sb_variant *v = sb_variant_find(f[0], f[2]);
    int gpu = v ? (v->flags & SB_DEVICE) != 0 : strncmp(f[2], "cuda", 4) == 0;
    t->rows[gpu]++;
    t->within[gpu] += strcmp(f[10], "yes") == 0;
    int known = 0;
    for (int i = 0; i < t->nalgo && !known; i++)
        known = algo && t->algo[i] == algo->name;
    if (algo && !known && t->nalgo < ALGOS_MAX)
        t->algo[t->nalgo++] = algo->name;
    if (n < 16 || !f[12][0]) {
        t->unrecorded++;
        return;
    }
    known = 0;
    for (int i = 0; i < t->nrun && !known; i++)
        known = !strcmp(t->run[i], f[12]);
    if (!known && t->nrun < RUNS_MAX)
        snprintf(t->run[t->nrun++], sizeof t->run[0], "%s", f[12]);
}

static int percent(int part, int whole) { return whole ? (int)(100.0 * part / whole + 0.5) : 0; }

int report_repeat_csv(FILE *md, const char *results_dir)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/repeat.csv", results_dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    repeat_tally t;
    memset(&t, 0, sizeof t);
    char *line = NULL;
    size_t cap = 0;
    for (int k = 0; sb_csv_read_record(fp, &line, &cap) > 0; k++) {
        char *f[17];
        int n = sb_csv_split(line, f, 17);
        if (k > 0 && (n == 12 || n == 16))
            tally_line(&t, f, n);
    }
    free(line);
    fclose(fp);
    if (!t.rows[0] && !t.rows[1])
        return 0;
    fprintf(md, "**Repeatability on this machine:** ");
    if (t.rows[0])
        fprintf(md, "%d %% of %d CPU rows%s", percent(t.within[0], t.rows[0]), t.rows[0], t.rows[1] ? " and " : "");
    if (t.rows[1])
        fprintf(md, "%d %% of %d GPU rows", percent(t.within[1], t.rows[1]), t.rows[1]);
    fprintf(md, " within 10 %% of their first measurement (`repeat.csv`: the summary image's rows, measured again "
                "at the end of their run) -- of %d of %d algorithms (", t.nalgo, sb_algo_count());
    for (int i = 0; i < t.nalgo; i++)
        fprintf(md, "%s%s", i ? ", " : "", t.algo[i]);
    fprintf(md, "); the others' runs did not measure it");
    if (t.nrun)
        fprintf(md, "; from %d run%s%s", t.nrun, t.nrun == 1 ? "" : "s",
                t.unrecorded ? " and lines of before repeat.csv named their run" : "");
    fprintf(md, ".");
    return 1;
}
