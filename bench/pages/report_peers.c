/* report_peers.c - the report's peers table: results/<machine>/peers.csv
 * (written by `make peers`: OpenCV, scikit-image, CuPy, PyTorch on the same
 * images and machine) beside segbench's best variant at the same stage and
 * image, as a ratio (see report_parts.h). */
#include "pages/report_parts.h"

#include "io/catalogue.h"
#include "pages/report.h"
#include "machine/env.h"

#include <stdlib.h>
#include <string.h>

/* The figure of a row that compares with a peer: a host peer (OpenCV,
 * scikit-image) takes a host image and returns a host image, so it meets
 * segbench's per-frame time (upload + run + download); a GPU peer is timed
 * on data already on the device, so it meets the kernel time.  Rows from
 * before the per-frame column fall back to the kernel time. */
static double row_ms(const sb_row *r, int host_peer)
{
    return host_peer && r->frame.n > 0 ? r->frame.median : r->kernel.median;
}

/* segbench's fastest agreeing row at (stage, image), all backends or CPU only. */
static const sb_row *segbench_best(const sb_rows *rows, const char *stage, const char *image, int cpu_only,
                                   int host_peer)
{
    const sb_row *best = NULL;
    for (int i = 0; i < rows->count; i++) {
        const sb_row *r = &rows->row[i];
        const sb_variant *v = sb_catalogue_find(rows->catalogue, r->algo, r->variant);
        if (strcmp(r->stage, stage) || strcmp(r->image, image) || !strcmp(r->agreement, "FAIL") || !v ||
            view_is_floor(v) || (cpu_only && !view_is_cpu_backend(v->backend)))
            continue;
        if (!best || row_ms(r, host_peer) < row_ms(best, host_peer))
            best = r;
    }
    return best;
}

static void best_cell(FILE *md, const sb_row *r, double peer_ms, int host_peer)
{
    double ms = r ? row_ms(r, host_peer) : 0.0;
    if (ms <= 0) {
        fprintf(md, " - | - |");
        return;
    }
    double ratio = peer_ms / ms;
    if (r->threads > 1)
        fprintf(md, " %s@%d %.4g ms |", r->variant, r->threads, ms);
    else
        fprintf(md, " %s %.4g ms |", r->variant, ms);
    fprintf(md, " %.*fx |", ratio < 10 ? 2 : ratio < 100 ? 1 : 0, ratio);
}

void report_peers(FILE *md, const char *results_dir, const sb_rows *rows, const sb_algo *const *algos, int nalgo)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/peers.csv", results_dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    fprintf(md, "## Peers\n\nWhat a user would otherwise pick, on the same image and the same kind of machine "
                "(`make peers`, `%s/peers.csv`, run in a session of its own, so on a host of the same GPU model "
                "that may not be the one the timings above came from): the peer's median, segbench's fastest variant at the same stage and image, and "
                "how many times faster segbench is; then the same against segbench's fastest CPU variant. Like "
                "is compared with like: a peer on the CPU takes and returns host images, so segbench's figure is "
                "its per-frame time (upload, run, download into existing buffers); a peer on the GPU is timed "
                "on data already there, so segbench's figure is its kernel time.\n\n"
                "| algorithm | stage | image | peer | on | peer ms | segbench best | x | segbench best CPU | x | "
                "note |\n|---|---|---|---|---|---:|---|---:|---|---:|---|\n",
            results_dir);
    char *l = NULL;
    size_t cap = 0;
    int line = 0;
    while (sb_csv_read_record(fp, &l, &cap) > 0) {
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
        int host_peer = strcmp(f[3], "cpu") == 0;
        fprintf(md, "| %s | %s | %s | %s | %s | %.4g |", report_md(REPORT_TEXT, f[0]), report_md(REPORT_TEXT, f[1]), report_md(REPORT_TEXT, f[4]),
                report_md(REPORT_TEXT, f[2]), report_md(REPORT_TEXT, f[3]), peer_ms);
        best_cell(md, algo_rows ? segbench_best(algo_rows, f[1], f[4], 0, host_peer) : NULL, peer_ms, host_peer);
        best_cell(md, algo_rows ? segbench_best(algo_rows, f[1], f[4], 1, host_peer) : NULL, peer_ms, host_peer);
        fprintf(md, " %s |\n", report_md(REPORT_TEXT, f[11]));
    }
    fprintf(md, "\n");
    free(l);
    fclose(fp);
}
