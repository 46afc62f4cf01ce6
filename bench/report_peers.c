/* report_peers.c - the report's peers table: results/<machine>/peers.csv
 * (written by `make peers`: OpenCV, scikit-image, CuPy, PyTorch on the same
 * images and machine) beside segbench's best variant at the same stage and
 * image, as a ratio (see report_parts.h). */
#include "report_parts.h"

#include "catalogue.h"
#include "commands.h"
#include "env.h"

#include <stdlib.h>
#include <string.h>

/* segbench's fastest agreeing row at (stage, image), all backends or CPU only. */
static const sb_row *segbench_best(const sb_rows *rows, const char *stage, const char *image, int cpu_only)
{
    const sb_row *best = NULL;
    for (int i = 0; i < rows->count; i++) {
        const sb_row *r = &rows->row[i];
        const sb_variant *v = sb_catalogue_find(r->algo, r->variant);
        if (strcmp(r->stage, stage) || strcmp(r->image, image) || !strcmp(r->agreement, "FAIL") || !v ||
            view_is_floor(v) || (cpu_only && !view_is_cpu_backend(v->backend)))
            continue;
        if (!best || r->kernel.median < best->kernel.median)
            best = r;
    }
    return best;
}

static void best_cell(FILE *md, const sb_row *r, double peer_ms)
{
    if (!r || r->kernel.median <= 0) {
        fprintf(md, " - | - |");
        return;
    }
    double ratio = peer_ms / r->kernel.median;
    if (r->threads > 1)
        fprintf(md, " %s@%d %.4g ms |", r->variant, r->threads, r->kernel.median);
    else
        fprintf(md, " %s %.4g ms |", r->variant, r->kernel.median);
    fprintf(md, " %.*fx |", ratio < 10 ? 2 : ratio < 100 ? 1 : 0, ratio);
}

void report_peers(FILE *md, const char *results_dir, const sb_rows *rows, const sb_algo *const *algos, int nalgo)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/peers.csv", results_dir);
    char *text = sb_read_text(path);
    if (!text)
        return;
    fprintf(md, "## Peers\n\nWhat a user would otherwise pick, on the same image and machine (`make peers`, "
                "`%s/peers.csv`): the peer's median, segbench's fastest variant at the same stage and image, and "
                "how many times faster segbench is; then the same against segbench's fastest CPU variant.\n\n"
                "| algorithm | stage | image | peer | on | peer ms | segbench best | x | segbench best CPU | x | "
                "note |\n|---|---|---|---|---|---:|---|---:|---|---:|---|\n",
            results_dir);
    char *save = NULL;
    int line = 0;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (line++ == 0)
            continue;                       /* the header */
        char *f[12];
        int n = sb_csv_split(l, f, 12);
        if (n < 12)
            continue;
        double peer_ms = atof(f[8]);
        const sb_rows *algo_rows = NULL;
        for (int a = 0; a < nalgo; a++)
            if (!strcmp(algos[a]->name, f[0]))
                algo_rows = &rows[a];
        fprintf(md, "| %s | %s | %s | %s | %s | %.4g |", f[0], f[1], f[4], f[2], f[3], peer_ms);
        best_cell(md, algo_rows ? segbench_best(algo_rows, f[1], f[4], 0) : NULL, peer_ms);
        best_cell(md, algo_rows ? segbench_best(algo_rows, f[1], f[4], 1) : NULL, peer_ms);
        fprintf(md, " %s |\n", f[11]);
    }
    fprintf(md, "\n");
    free(text);
}
