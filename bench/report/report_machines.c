/* report_machines.c - report/MACHINES.md: several machines side by side.
 *
 * For every algorithm and stage, at the largest synthetic image that every
 * machine measured: the fastest variant of each backend on each machine
 * (speed-of-light floors left out), and each machine's speed relative to
 * the first.  The device copy bandwidths are compared the same way, so a
 * reader sees which GPU kernels follow memory bandwidth and which do not.
 */
#include "report/report_parts.h"
#include "cli/commands.h"

#include "cli/args.h"
#include "io/env.h"
#include "harness/registry.h"
#include "io/results.h"

#include "segbench/atomic_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_MACHINES = 8 };

/* "floor": the speed-of-light copy over the same bytes (SB_FLOOR variants) */
static const char *const BACKENDS[] = { "cpu", "pthread", "openmp", "cuda-global", "cuda-shared", "cuda-texture",
                                        "lib", "floor" };
enum { NBACKENDS = sizeof BACKENDS / sizeof BACKENDS[0] };

typedef struct machine {
    char id[96], dir[1200];
    double copy_gbps;
    sb_rows rows[64];              /* one per algorithm, in registry order */
} machine;

static int is_floor(const sb_row *r)
{
    const sb_variant *v = sb_variant_find(r->algo, r->variant);
    return v && (v->flags & SB_FLOOR);
}

/* The fastest agreeing row of a backend at (stage, image), or NULL. */
static const sb_row *best(const sb_rows *rows, const char *stage, const char *image, const char *backend)
{
    const sb_row *b = NULL;
    for (int i = 0; i < rows->count; i++) {
        const sb_row *r = &rows->row[i];
        int floor = strcmp(backend, "floor") == 0;
        if (strcmp(r->stage, stage) || strcmp(r->image, image) || (!floor && strcmp(r->backend, backend)) ||
            strcmp(r->agreement, "FAIL") == 0 || is_floor(r) != floor || r->kernel.median <= 0)
            continue;
        if (!b || r->kernel.median < b->kernel.median)
            b = r;
    }
    return b;
}

static int has_image(const sb_rows *rows, const char *stage, const char *image)
{
    for (int i = 0; i < rows->count; i++)
        if (!strcmp(rows->row[i].stage, stage) && !strcmp(rows->row[i].image, image))
            return 1;
    return 0;
}

/* The largest synthetic image of the stage that every machine has. */
static const char *common_image(machine *m, int n, int a, const char *stage)
{
    const char *pick = NULL;
    long pick_px = 0;
    const sb_rows *first = &m[0].rows[a];
    for (int i = 0; i < first->count; i++) {
        const sb_row *r = &first->row[i];
        long px = (long)r->width * r->height;
        if (strcmp(r->stage, stage) || strncmp(r->image, "synth-", 6) || px <= pick_px)
            continue;
        int everywhere = 1;
        for (int k = 1; k < n; k++)
            everywhere &= has_image(&m[k].rows[a], stage, r->image);
        if (everywhere) {
            pick = r->image;
            pick_px = px;
        }
    }
    return pick;
}

static void free_machines(machine *m, int n)
{
    for (int k = 0; k < n; k++)
        for (int a = 0; a < sb_algo_count(); a++)
            sb_rows_free(&m[k].rows[a]);
}

/* The cluster tasks of slurm-tasks.tsv (bench/slurm/report.sbatch writes
 * it): the failed ones named first, then a row per task. */
static void cluster_tasks(FILE *md, const char *tasks_path)
{
    char *text = sb_read_text(tasks_path);
    if (!text) {
        fprintf(md, "## Cluster tasks\n\n%s could not be read.\n\n", tasks_path);
        return;
    }
    char failed[2000] = "";
    int total = 0, bad = 0;
    char *save = NULL;
    static char rows[64][6][200];
    for (char *line = strtok_r(text, "\n", &save); line && total < 64; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || strncmp(line, "task\t", 5) == 0)
            continue;
        char *f[6];
        int n = sb_split_fields(line, '\t', f, 6);
        for (int i = 0; i < 6; i++)
            snprintf(rows[total][i], sizeof rows[0][0], "%s", i < n ? f[i] : "");
        if (strcmp(rows[total][4], "ok") != 0) {
            size_t used = strlen(failed);
            snprintf(failed + used, sizeof failed - used, "%stask %s (%s): %s", bad ? "; " : "", rows[total][0],
                     rows[total][1], rows[total][5][0] ? rows[total][5] : rows[total][4]);
            bad++;
        }
        total++;
    }
    free(text);
    fprintf(md, "## Cluster tasks\n\nFrom `%s` (`make bench-slurm`). ", tasks_path);
    if (bad)
        fprintf(md, "**%d of %d tasks failed: %s.**\n\n", bad, total, failed);
    else
        fprintf(md, "All %d tasks finished.\n\n", total);
    fprintf(md, "| task | partition or GRES | node | machine | status | detail |\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < total; i++)
        fprintf(md, "| %s | %s | %s | %s | %s%s%s | %s |\n", rows[i][0], rows[i][1], rows[i][2], rows[i][3],
                strcmp(rows[i][4], "ok") ? "**" : "", rows[i][4], strcmp(rows[i][4], "ok") ? "**" : "",
                rows[i][5]);
    fprintf(md, "\n");
}

sb_status sb_report_machines(char dirs[][1200], int ndirs, const char *out_path, const char *tasks_path,
                             sb_error *err)
{
    static machine m[MAX_MACHINES];
    int n = ndirs < MAX_MACHINES ? ndirs : MAX_MACHINES;
    memset(m, 0, sizeof m);
    for (int k = 0; k < n; k++) {
        char path[1300], value[32];
        snprintf(m[k].dir, sizeof m[k].dir, "%s", dirs[k]);
        snprintf(path, sizeof path, "%s/env.json", dirs[k]);
        char *env = sb_read_text(path);
        sb_json_get(env, "machine_id", m[k].id, sizeof m[k].id);
        sb_json_get(env, "device_copy_gbps", value, sizeof value);
        m[k].copy_gbps = atof(value);
        free(env);
        for (int a = 0; a < sb_algo_count(); a++) {
            snprintf(path, sizeof path, "%s/%s.csv", dirs[k], sb_algo_at(a)->name);
            sb_error ignored;
            if (sb_rows_read_csv(path, &m[k].rows[a], &ignored) != SB_OK)
                memset(&m[k].rows[a], 0, sizeof m[k].rows[a]);
        }
    }

    char *text = NULL;
    size_t len = 0;
    FILE *md = open_memstream(&text, &len);
    if (!md) {
        free_machines(m, n);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    fprintf(md, "# segbench: machines side by side\n\nGenerated by `segbench report` from ");
    for (int k = 0; k < n; k++)
        fprintf(md, "%s`%s/`", k ? (k + 1 == n ? " and " : ", ") : "", m[k].dir);
    fprintf(md, "; each machine's own report is `report/<machine>/REPORT.md`.\n\n"
                "For each algorithm and stage, at the largest synthetic image every machine measured: the fastest "
                "variant of each backend (kernel median, ms; threaded variants at their best thread count), "
                "and the speed-of-light floor (a copy over the same bytes) where the algorithm has one, and how much faster than `%s` each other machine is.\n\n",
            m[0].id);
    fprintf(md, "| measured device copy (GB/s, read + write) |");
    for (int k = 0; k < n; k++)
        fprintf(md, m[k].copy_gbps > 0 ? " %s: %.0f |" : " %s: n/a (no GPU) |", m[k].id, m[k].copy_gbps);
    fprintf(md, "\n|---|%s\n\n", n > 1 ? "---|---|" : "---|");
    if (tasks_path)
        cluster_tasks(md, tasks_path);

    /* the GPU stages that gain at least half of the bandwidth ratio, and those that gain little */
    char follow[2000] = "", flat[2000] = "";
    double bw_ratio = n > 1 && m[0].copy_gbps > 0 ? m[1].copy_gbps / m[0].copy_gbps : 0.0;
    fprintf(md, "| algorithm | stage | image | backend |");
    for (int k = 0; k < n; k++)
        fprintf(md, " %s |", m[k].id);
    for (int k = 1; k < n; k++)
        fprintf(md, " %s vs %s |", m[k].id, m[0].id);
    fprintf(md, "\n|---|---|---|---|");
    for (int k = 0; k < 2 * n - 1; k++)
        fprintf(md, "---:|");
    fprintf(md, "\n");
    for (int a = 0; a < sb_algo_count(); a++) {
        const sb_algo *algo = sb_algo_at(a);
        for (int s = 0; s < algo->stage_count; s++) {
            const char *image = common_image(m, n, a, algo->stages[s]);
            if (!image)
                continue;
            double best_gpu[MAX_MACHINES] = { 0 };
            for (int b = 0; b < NBACKENDS; b++) {
                const sb_row *r[MAX_MACHINES];
                int any = 0;
                for (int k = 0; k < n; k++)
                    any |= (r[k] = best(&m[k].rows[a], algo->stages[s], image, BACKENDS[b])) != NULL;
                if (!any)
                    continue;
                fprintf(md, "| %s | %s | %s | %s |", algo->name, algo->stages[s], report_md(image), BACKENDS[b]);
                for (int k = 0; k < n; k++) {
                    if (!r[k]) {
                        fprintf(md, " - |");
                        continue;
                    }
                    double ms = r[k]->kernel.median;
                    fprintf(md, ms >= 100 ? " %.0f" : ms >= 1 ? " %.2f" : " %.4f", ms);
                    if (r[k]->threads > 1)
                        fprintf(md, " (%s @%d) |", r[k]->variant, r[k]->threads);
                    else
                        fprintf(md, " (%s) |", r[k]->variant);
                    if (!strncmp(BACKENDS[b], "cuda", 4) && (!best_gpu[k] || r[k]->kernel.median < best_gpu[k]))
                        best_gpu[k] = r[k]->kernel.median;
                }
                for (int k = 1; k < n; k++)
                    if (r[0] && r[k])
                        fprintf(md, " %.2fx |", r[0]->kernel.median / r[k]->kernel.median);
                    else
                        fprintf(md, " - |");
                fprintf(md, "\n");
            }
            if (n > 1 && best_gpu[0] > 0 && best_gpu[1] > 0 && bw_ratio > 1.0) {
                double gain = best_gpu[0] / best_gpu[1];
                char item[160];
                snprintf(item, sizeof item, "%s %s (%.2fx)", algo->name, algo->stages[s], gain);
                char *list = gain - 1.0 >= 0.5 * (bw_ratio - 1.0) ? follow : flat;
                size_t used = strlen(list);
                snprintf(list + used, 2000 - used, "%s%s", used ? ", " : "", item);
            }
        }
    }
    if (n > 1 && bw_ratio > 1.0)
        fprintf(md, "\n%s copies %.2fx faster than %s. GPU stages whose fastest variant gains at least half of "
                    "that, so follow memory bandwidth: %s. Stages that gain less, so are bound by instructions, "
                    "latency, launches or synchronisation rather than by memory bandwidth: %s. CPU rows compare "
                    "the two hosts' processors, not the GPUs.\n",
                m[1].id, bw_ratio, m[0].id, follow[0] ? follow : "none at these sizes", flat[0] ? flat : "none");
    fclose(md);
    sb_status st = sb_atomic_write_text(out_path, text, err);
    if (!st)
        printf("wrote %s (%d machines)\n", out_path, n);
    free(text);
    free_machines(m, n);
    return st;
}
