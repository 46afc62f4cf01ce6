/* report_peers.c - the report's peers table: results/<machine>/peers.csv
 * (written by `make peers`: OpenCV, scikit-image, CuPy, PyTorch on the same
 * images and machine) beside segbench's best variant at the same stage and
 * image, as a ratio (see report_parts.h). */
#include "pages/report_parts.h"

#include "io/git.h"

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

/* Where peers.csv came from: its run, commit, machine and date, from its
 * columns (one run, or how many), else -- a file of before them -- from
 * git, the commit that last changed it, and said to be that. */
static void peers_provenance(FILE *md, const char *path, const char *run, const char *commit, const char *machine,
                             const char *date, int runs)
{
    if (runs == 1) {
        fprintf(md, "Measured by run `%s` of `make peers` on %s, %.10s, at commit %.12s.\n\n", report_md(REPORT_TEXT, run),
                report_md(REPORT_TEXT, machine), date, commit);
        return;
    }
    if (runs > 1) {
        fprintf(md, "Measured by %d runs of `make peers`, the last `%s` on %s, %.10s, at commit %.12s.\n\n", runs,
                report_md(REPORT_TEXT, run), report_md(REPORT_TEXT, machine), date, commit);
        return;
    }
    char *argv[] = { "git", "log", "-1", "--format=%h %cs", "--", (char *)path, NULL };
    char *said = sb_git_output(argv);
    if (said)
        said[strcspn(said, "\n")] = '\0';
    fprintf(md, "Written before peers.csv recorded its run, commit and date: %s%s%s.\n\n",
            said && said[0] ? "git last changed it in commit " : "where it came from is not known",
            said && said[0] ? said : "", said && said[0] ? " (the measurement is no later)" : "");
    free(said);
}

void report_peers(FILE *md, const char *results_dir, const sb_rows *rows, const sb_algo *const *algos, int nalgo)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/peers.csv", results_dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    char *table = NULL;
    size_t table_len = 0;
    FILE *out = open_memstream(&table, &table_len);
    if (!out) {
        fclose(fp);
        return;
    }
    char *l = NULL, run[64] = "", commit[64] = "", machine[128] = "", date[40] = "";
    size_t cap = 0;
    int line = 0, runs = 0;
    while (sb_csv_read_record(fp, &l, &cap) > 0) {
        if (line++ == 0)
            continue;                       /* the header */
        char *f[16];
        int n = sb_csv_split(l, f, 16);
        if (n < 12)
            continue;
        if (n == 16 && strcmp(run, f[12]) != 0) {   /* its provenance (a file of before it: 12 fields) */
            runs++;
            snprintf(run, sizeof run, "%s", f[12]);
            snprintf(commit, sizeof commit, "%s", f[13]);
            snprintf(machine, sizeof machine, "%s", f[14]);
            snprintf(date, sizeof date, "%s", f[15]);
        }
        double peer_ms = atof(f[8]);
        const sb_rows *algo_rows = NULL;
        for (int a = 0; a < nalgo; a++)
            if (!strcmp(algos[a]->name, f[0]))
                algo_rows = &rows[a];
        int host_peer = strcmp(f[3], "cpu") == 0;
        fprintf(out, "| %s | %s | %s | %s | %s | %.4g |", report_md(REPORT_TEXT, f[0]), report_md(REPORT_TEXT, f[1]),
                report_md(REPORT_TEXT, f[4]), report_md(REPORT_TEXT, f[2]), report_md(REPORT_TEXT, f[3]), peer_ms);
        best_cell(out, algo_rows ? segbench_best(algo_rows, f[1], f[4], 0, host_peer) : NULL, peer_ms, host_peer);
        best_cell(out, algo_rows ? segbench_best(algo_rows, f[1], f[4], 1, host_peer) : NULL, peer_ms, host_peer);
        fprintf(out, " %s |\n", report_md(REPORT_TEXT, f[11]));
    }
    free(l);
    fclose(fp);
    fclose(out);
    fprintf(md, "## Peers\n\nWhat a user would otherwise pick, on the same image and the same kind of machine "
                "(`make peers`, `%s/peers.csv`, run in a session of its own, so on a host of the same GPU model "
                "that may not be the one the timings above came from): the peer's median, segbench's fastest variant at the same stage and image, and "
                "how many times faster segbench is; then the same against segbench's fastest CPU variant. Like "
                "is compared with like: a peer on the CPU takes and returns host images, so segbench's figure is "
                "its per-frame time (upload, run, download into existing buffers); a peer on the GPU is timed "
                "on data already there, so segbench's figure is its kernel time.\n\n",
            results_dir);
    peers_provenance(md, path, run, commit, machine, date, runs);
    fprintf(md, "| algorithm | stage | image | peer | on | peer ms | segbench best | x | segbench best CPU | x | "
                "note |\n|---|---|---|---|---|---:|---|---:|---|---:|---|\n%s\n",
            table ? table : "");
    free(table);
}
