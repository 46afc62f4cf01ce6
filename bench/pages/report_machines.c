/* report_machines.c - report/MACHINES.md: several machines side by side.
 *
 * For every algorithm and stage, at the largest synthetic image that every
 * machine measured: the fastest variant of each backend on each machine
 * (speed-of-light floors left out), and each machine's speed relative to
 * the first.  The device copy bandwidths are compared the same way, so a
 * reader sees which GPU kernels follow memory bandwidth and which do not.
 */
#define _DEFAULT_SOURCE          /* timegm */
#include "pages/report_parts.h"

#include "base/files.h"
#include "pages/report.h"

#include "base/args.h"
#include "io/code_ids.h"
#include "machine/env.h"
#include "variants/registry.h"
#include "io/result_set.h"
#include "io/rows.h"
#include "io/stage_view.h"

#include "segbench/atomic_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_MACHINES = 8 };

/* "floor": the speed-of-light copy over the same bytes (SB_FLOOR variants) */
static const char *const BACKENDS[] = { "cpu", "pthread", "openmp", "cuda-global", "cuda-shared", "cuda-texture",
                                        "lib", "floor" };
enum { NBACKENDS = sizeof BACKENDS / sizeof BACKENDS[0] };

typedef struct machine {
    char id[96], dir[SB_PATH_MAX];
    char gpu[160], cpu[160], cores[16], date[40];
    char commit[64];               /* its rows' commit, or "mixed" */
    sb_run_info run;
    double copy_gbps;
    double sm_mhz;                 /* the SMs' clock env.json read, 0 unknown */
    sb_rows rows[64];              /* one per algorithm, in registry order */
} machine;

/* A result set's name: its folder's.  A published set's is its machine
 * id; two GPUs of one model measured apart (make bench-slurm, one set per
 * GPU) are told apart by it. */
static const char *set_name(const machine *m)
{
    const char *slash = strrchr(m->dir, '/');
    return slash ? slash + 1 : m->dir;
}

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

/* "2026-11-25T19:40:02Z" -> seconds since the epoch; -1 when not a time. */
static double utc_seconds(const char *iso)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return end && !*end ? (double)timegm(&tm) : -1.0;
}

enum { TASK_FIELDS = 8 };          /* task target node machine status detail start end */

/* When every task has a start and an end: do they all overlap, and for
 * how long did they all run at once? */
static void tasks_overlap(FILE *md, char (*rows)[TASK_FIELDS][200], int total)
{
    if (total < 2)
        return;
    double latest_start = -1, earliest_end = -1;
    for (int i = 0; i < total; i++) {
        double s = utc_seconds(rows[i][6]), e = utc_seconds(rows[i][7]);
        if (s < 0 || e < 0)
            return;
        if (s > latest_start)
            latest_start = s;
        if (earliest_end < 0 || e < earliest_end)
            earliest_end = e;
    }
    if (earliest_end > latest_start)
        fprintf(md, "The %d tasks ran at the same time: all of them between the last start and the first end, "
                    "%.0f s.\n\n", total, earliest_end - latest_start);
    else
        fprintf(md, "The %d tasks did not all run at once: one ended before the last one started.\n\n", total);
}

/* The cluster tasks of slurm-tasks.tsv (scripts/slurm/report.sbatch writes
 * it): the failed ones named first, then a row per task, with its start
 * and end where the file has them. */
static void cluster_tasks(FILE *md, const char *tasks_path)
{
    char *text = sb_read_text(tasks_path);
    if (!text) {
        fprintf(md, "## Cluster tasks\n\n%s could not be read.\n\n", tasks_path);
        return;
    }
    int cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == '\n';
    char (*rows)[TASK_FIELDS][200] = calloc((size_t)cap, sizeof *rows);
    if (!rows) {
        free(text);
        fprintf(md, "## Cluster tasks\n\nout of memory reading %s.\n\n", tasks_path);
        return;
    }
    char failed[2000] = "";
    int total = 0, bad = 0, timed = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && total < cap; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || strncmp(line, "task\t", 5) == 0)
            continue;
        char *f[TASK_FIELDS];
        int n = sb_split_fields(line, '\t', f, TASK_FIELDS);
        for (int i = 0; i < TASK_FIELDS; i++)
            snprintf(rows[total][i], sizeof rows[0][0], "%s", i < n ? f[i] : "");
        timed |= rows[total][6][0] != '\0';
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
    fprintf(md, "| task | partition or GRES | node | machine | status | detail |%s\n|---|---|---|---|---|---|%s\n",
            timed ? " start (UTC) | end (UTC) |" : "", timed ? "---|---|" : "");
    for (int i = 0; i < total; i++) {
        fprintf(md, "| %s | %s | %s | %s | %s%s%s | %s |", rows[i][0], rows[i][1], rows[i][2], rows[i][3],
                strcmp(rows[i][4], "ok") ? "**" : "", rows[i][4], strcmp(rows[i][4], "ok") ? "**" : "",
                rows[i][5]);
        if (timed)
            fprintf(md, " %s | %s |", rows[i][6][0] ? rows[i][6] : "-", rows[i][7][0] ? rows[i][7] : "-");
        fprintf(md, "\n");
    }
    fprintf(md, "\n");
    if (timed)
        tasks_overlap(md, rows, total);
    free(rows);
}

/* Who each machine is and what it measured, from env.json; its rows. */
static void load_machine(machine *m, const char *dir)
{
    char path[SB_PATH_MAX], value[64];
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    snprintf(path, sizeof path, "%s/env.json", dir);
    char *env = sb_read_text(path);
    sb_json_get(env, "machine_id", m->id, sizeof m->id);
    sb_json_get(env, "device_copy_gbps", value, sizeof value);
    m->copy_gbps = atof(value);
    sb_json_get(env, "gpu_sm_clock_mhz", value, sizeof value);
    m->sm_mhz = atof(value);
    sb_json_get(env, "gpu_name", m->gpu, sizeof m->gpu);
    sb_json_get(env, "cpu_model", m->cpu, sizeof m->cpu);
    sb_json_get(env, "cpu_logical_cores", m->cores, sizeof m->cores);
    sb_json_get(env, "date", m->date, sizeof m->date);
    free(env);
    sb_run_info_read(dir, &m->run);
    for (int a = 0; a < sb_algo_count(); a++) {
        snprintf(path, sizeof path, "%s/%s.csv", dir, sb_algo_at(a)->name);
        sb_error ignored;
        if (sb_rows_read_ladders(path, &m->rows[a], NULL, &ignored) != SB_OK)
            memset(&m->rows[a], 0, sizeof m->rows[a]);
    }
    /* the commit env.json and every row name, or "mixed" */
    snprintf(m->commit, sizeof m->commit, "%s", m->run.commit);
    for (int a = 0; a < sb_algo_count(); a++)
        for (int i = 0; i < m->rows[a].count; i++)
            if (strcmp(m->rows[a].row[i].commit, m->run.commit) != 0)
                snprintf(m->commit, sizeof m->commit, "mixed");
}

/* The row of `variant` at (stage, image) at its best thread count, or NULL. */
static const sb_row *variant_row(const sb_rows *rows, const char *stage, const char *image, const char *variant)
{
    const sb_row *b = NULL;
    for (int i = 0; i < rows->count; i++) {
        const sb_row *r = &rows->row[i];
        if (!strcmp(r->stage, stage) && !strcmp(r->image, image) && !strcmp(r->variant, variant) &&
            strcmp(r->agreement, "FAIL") && r->kernel.median > 0 && (!b || r->kernel.median < b->kernel.median))
            b = r;
    }
    return b;
}

/* The time of one variant (best thread count) at (stage, image), or 0. */
static double variant_ms(const sb_rows *rows, const char *stage, const char *image, const char *variant)
{
    const sb_row *r = variant_row(rows, stage, image, variant);
    return r ? r->kernel.median : 0.0;
}

/* " 39.10 |", or with the variant's name: " 39.10 (cuda-graph) |" */
static void ms_cell(FILE *md, double ms, const char *variant)
{
    if (ms <= 0) {
        fprintf(md, " - |");
        return;
    }
    fprintf(md, ms >= 100 ? " %.0f" : ms >= 1 ? " %.2f" : " %.4f", ms);
    fprintf(md, variant ? " (%s) |" : " |", variant);
}

/* The table of the machines in `pick` (indices into m; pick[0] is the one
 * compared with): for each algorithm, stage and backend, the fastest
 * variant of pick[0] and the same variant's time on each other machine,
 * with the ratio.  ratios = 0 (sets of other code): each machine's own
 * fastest variant, no ratio. */
static void side_by_side(FILE *md, machine *m, const int *pick, int n, int ratios, char *follow, char *flat)
{
    fprintf(md, "| algorithm | stage | image | backend | variant |");
    for (int k = 0; k < n; k++)
        fprintf(md, " %s ms |", set_name(&m[pick[k]]));
    for (int k = 1; ratios && k < n; k++)
        fprintf(md, " %s vs %s |", set_name(&m[pick[k]]), set_name(&m[pick[0]]));
    fprintf(md, "\n|---|---|---|---|---|");
    for (int k = 0; k < (ratios ? 2 * n - 1 : n); k++)
        fprintf(md, "---:|");
    fprintf(md, "\n");
    machine sub[MAX_MACHINES];
    double bw = n > 1 && m[pick[0]].copy_gbps > 0 ? m[pick[1]].copy_gbps / m[pick[0]].copy_gbps : 0.0;
    for (int a = 0; a < sb_algo_count(); a++) {
        const sb_algo *algo = sb_algo_at(a);
        for (int k = 0; k < n; k++)
            memcpy(&sub[k].rows[a], &m[pick[k]].rows[a], sizeof sub[k].rows[a]);
        for (int s = 0; s < algo->stage_count; s++) {
            const char *image = common_image(sub, n, a, algo->stages[s]);
            if (!image)
                continue;
            double gpu[2] = { 0, 0 };
            for (int b = 0; b < NBACKENDS; b++) {
                const sb_row *lead = best(&sub[0].rows[a], algo->stages[s], image, BACKENDS[b]);
                if (!lead && ratios)
                    continue;
                if (!ratios) {                        /* each machine's own fastest */
                    int any = 0;
                    const sb_row *own[MAX_MACHINES];
                    for (int k = 0; k < n; k++)
                        any |= (own[k] = best(&sub[k].rows[a], algo->stages[s], image, BACKENDS[b])) != NULL;
                    if (!any)
                        continue;
                    fprintf(md, "| %s | %s | %s | %s | (each its fastest) |", algo->name, algo->stages[s],
                            report_md(REPORT_TEXT, image), BACKENDS[b]);
                    for (int k = 0; k < n; k++)
                        ms_cell(md, own[k] ? own[k]->kernel.median : 0, own[k] ? own[k]->variant : NULL);
                    fprintf(md, "\n");
                    continue;
                }
                fprintf(md, "| %s | %s | %s | %s | %s |", algo->name, algo->stages[s], report_md(REPORT_TEXT, image), BACKENDS[b],
                        lead->variant);
                double t[MAX_MACHINES];
                for (int k = 0; k < n; k++) {
                    t[k] = variant_ms(&sub[k].rows[a], algo->stages[s], image, lead->variant);
                    ms_cell(md, t[k], NULL);
                }
                for (int k = 1; k < n; k++)
                    if (t[0] > 0 && t[k] > 0)
                        fprintf(md, " %.2fx |", t[0] / t[k]);
                    else
                        fprintf(md, " - |");
                fprintf(md, "\n");
                if (!strncmp(BACKENDS[b], "cuda", 4) && n > 1 && t[0] > 0 && t[1] > 0 && (!gpu[0] || t[0] < gpu[0])) {
                    gpu[0] = t[0];
                    gpu[1] = t[1];
                }
            }
            if (ratios && follow && gpu[0] > 0 && bw > 1.0) {
                double gain = gpu[0] / gpu[1];
                char item[160];
                snprintf(item, sizeof item, "%s %s (%.2fx)", algo->name, algo->stages[s], gain);
                char *list = gain - 1.0 >= 0.5 * (bw - 1.0) ? follow : flat;
                size_t used = strlen(list);
                snprintf(list + used, 2000 - used, "%s%s", used ? ", " : "", item);
            }
        }
    }
}

/* Every row both sets measured (algorithm, stage, variant, threads,
 * image), by whether its code is the same on both (io/code_ids.h). */
static void code_census(sb_code_ids *ids, const machine *a, const machine *b, int *same, int *other, int *unknown)
{
    *same = *other = *unknown = 0;
    for (int al = 0; al < sb_algo_count(); al++)
        for (int i = 0; i < a->rows[al].count; i++)
            for (int j = 0; j < b->rows[al].count; j++) {
                const sb_row *ra = &a->rows[al].row[i], *rb = &b->rows[al].row[j];
                if (!sb_row_same_key(ra, rb))
                    continue;
                char ia[SB_CODE_ID_LEN + 1], ib[SB_CODE_ID_LEN + 1];
                sb_row_code_id(ids, ra, ia);
                sb_row_code_id(ids, rb, ib);
                if (!ia[0] || !ib[0])
                    ++*unknown;
                else if (strcmp(ia, ib) == 0)
                    ++*same;
                else
                    ++*other;
                break;
            }
}

/* What should move a GPU kernel from one GPU to another: a kernel that
 * moves at least this share of the copy bandwidth on the baseline is
 * memory-bound and should follow the ratio of the two copy bandwidths;
 * any other follows the SMs' clock (compute, or launch and sync latency,
 * which the clock sets too). */
#define MEMORY_BOUND_SHARE 0.4
typedef struct bound_tally {
    int rows[2], as_expected[2];   /* [0] memory-bound, [1] the others */
    double lo[2], hi[2];           /* the ratios seen */
    double expected[2];
    char otherwise[2000];          /* "integral sum cuda-blocked6 0.89x, ..." */
} bound_tally;

/* The "bound" and "expected" cells of a GPU row, and its count; CPU rows
 * (the hosts differ) get "-". */
static void bound_cells(FILE *md, const sb_row *lead, double ratio, bound_tally *t)
{
    const sb_variant *v = sb_variant_find(lead->algo, lead->variant);
    if (!v || !(v->flags & SB_DEVICE) || t->expected[0] <= 0 || t->expected[1] <= 0) {
        fprintf(md, " - | - |\n");
        return;
    }
    int k = lead->peak_fraction >= MEMORY_BOUND_SHARE ? 0 : 1;
    int near = ratio >= 0.9 * t->expected[k] && ratio <= 1.1 * t->expected[k];
    if (!t->rows[k] || ratio < t->lo[k])
        t->lo[k] = ratio;
    if (!t->rows[k] || ratio > t->hi[k])
        t->hi[k] = ratio;
    t->rows[k]++;
    t->as_expected[k] += near;
    size_t used = strlen(t->otherwise);
    if (!near && used + 100 < sizeof t->otherwise)
        snprintf(t->otherwise + used, sizeof t->otherwise - used, "%s%s %s %s (%.2fx)", used ? ", " : "", lead->algo,
                 lead->stage, lead->variant, ratio);
    fprintf(md, " %s (%.0f %% of copy) | %.2fx%s |\n", k ? "compute or latency" : "memory", 100.0 * lead->peak_fraction,
            t->expected[k], near ? "" : " (moved otherwise)");
}

/* Which GPU rows followed the memory and which the clock. */
static void bound_summary(FILE *md, const bound_tally *t, const machine *base, const machine *other)
{
    if (!t->rows[0] && !t->rows[1])
        return;
    fprintf(md, "\nWhat moved with what: the copy bandwidth is %.0f GB/s on %s and %.0f on %s (%.2fx), the SMs' clock "
                "%.0f and %.0f MHz (%.2fx). A GPU row is *memory*-bound when its kernel moves at least %.0f %% of the "
                "copy bandwidth on the baseline (its `peak_fraction`), and should then move by the copy's ratio; any "
                "other by the clock's. Within 10 %% of that: %d of %d memory-bound rows (seen %.2f-%.2fx) and %d of "
                "%d others (seen %.2f-%.2fx). Moved otherwise: %s. Two reasons to read them by: a copy of tens of MB "
                "(the sizes here) does not reach the rate a 512 MiB copy measures, so the copy of the same bytes "
                "(integral's `floor` rows) falls short of the bandwidth ratio too; and a kernel whose real traffic "
                "is many times the stage's byte floor (several passes over the image, atomics through L2) is "
                "bound by memory though its share of the copy reads low.\n",
            base->copy_gbps, set_name(base), other->copy_gbps, set_name(other), t->expected[0], base->sm_mhz,
            other->sm_mhz, t->expected[1], 100.0 * MEMORY_BOUND_SHARE, t->as_expected[0], t->rows[0], t->lo[0],
            t->hi[0], t->as_expected[1], t->rows[1], t->lo[1], t->hi[1], t->otherwise[0] ? t->otherwise : "none");
}

/* A set measured at another commit than the baseline (or at several):
 * its rows compared with the baseline's where their code is the same. */
static void same_code_section(FILE *md, sb_code_ids *ids, machine *m, int base, int k)
{
    int same, other, unknown;
    code_census(ids, &m[base], &m[k], &same, &other, &unknown);
    fprintf(md, "\n## %s against %s, where the code is the same\n\n%s was measured at %.7s%s, the baseline at "
                "%.7s%s. Two rows are the same code when their variant's code identity agrees: a hash of its source "
                "file and of every file that reaches it, which a row records (its `code_id`) or, for a row older "
                "than that column, git gives at the row's commit (docs/machines.md). Of the %d rows both sets "
                "measured, %d are the same code and %d other code",
            set_name(&m[k]), set_name(&m[base]), set_name(&m[k]), m[k].commit,
            strcmp(m[k].commit, "mixed") ? "" : " (rows of several commits)", m[base].commit,
            strcmp(m[base].commit, "mixed") ? "" : " (rows of several commits)", same + other + unknown, same, other);
    fprintf(md, unknown ? "; %d cannot say (no code identity: not a git checkout, or a commit it lacks).\n\n"
                        : ".\n\n", unknown);
    if (!same)
        return;
    fprintf(md, "For each algorithm and stage, at the largest synthetic image both measured: each backend's fastest "
                "variant on the baseline and the same variant on %s, where its code is the same there (kernel "
                "medians, ms; threaded variants at their best thread count), what bounds each GPU row on the "
                "baseline and the ratio that bound predicts (below the table).\n\n| algorithm | stage | image | "
                "backend | variant | %s ms | %s ms | %s vs %s | bound on %s | expected |\n"
                "|---|---|---|---|---|---:|---:|---:|---|---:|\n",
            set_name(&m[k]), set_name(&m[base]), set_name(&m[k]), set_name(&m[k]), set_name(&m[base]),
            set_name(&m[base]));
    bound_tally tally = { .expected = { m[base].copy_gbps > 0 ? m[k].copy_gbps / m[base].copy_gbps : 0,
                                        m[base].sm_mhz > 0 ? m[k].sm_mhz / m[base].sm_mhz : 0 } };
    int shown = 0, left_out = 0;
    machine pair[2];
    for (int a = 0; a < sb_algo_count(); a++) {
        const sb_algo *algo = sb_algo_at(a);
        memcpy(&pair[0].rows[a], &m[base].rows[a], sizeof pair[0].rows[a]);
        memcpy(&pair[1].rows[a], &m[k].rows[a], sizeof pair[1].rows[a]);
        for (int s = 0; s < algo->stage_count; s++) {
            const char *image = common_image(pair, 2, a, algo->stages[s]);
            for (int b = 0; image && b < NBACKENDS; b++) {
                const sb_row *lead = best(&m[base].rows[a], algo->stages[s], image, BACKENDS[b]);
                const sb_row *there = lead ? variant_row(&m[k].rows[a], algo->stages[s], image, lead->variant) : NULL;
                if (!lead || !there)
                    continue;
                if (!sb_rows_same_code(ids, lead, there)) {
                    left_out++;
                    continue;
                }
                fprintf(md, "| %s | %s | %s | %s | %s |", algo->name, algo->stages[s], report_md(REPORT_TEXT, image),
                        BACKENDS[b], lead->variant);
                ms_cell(md, lead->kernel.median, NULL);
                ms_cell(md, there->kernel.median, NULL);
                double ratio = lead->kernel.median / there->kernel.median;
                fprintf(md, " %.2fx |", ratio);
                bound_cells(md, lead, ratio, &tally);
                shown++;
            }
        }
    }
    fprintf(md, "\n%d of these fastest variants are the same code on both and compared above; %d are other code "
                "on %s and left out.\n",
            shown, left_out, set_name(&m[k]));
    bound_summary(md, &tally, &m[base], &m[k]);
}

/* Two result sets of one GPU model in one host, measured at one commit:
 * two cards that should be the same, running the same code.  Every GPU row
 * both have, compared by kernel median: how far apart two cards of one
 * model are, the noise floor of any comparison across cards. */
static int twins(const machine *a, const machine *b)
{
    return strcmp(a->run.gpu_name, "?") && !strcmp(a->run.gpu_name, b->run.gpu_name) && strcmp(a->run.host, "?") &&
           a->run.host[0] && !strcmp(a->run.host, b->run.host) && strcmp(a->run.gpu_uuid, b->run.gpu_uuid) &&
           !strcmp(a->commit, b->commit) && strcmp(a->commit, "mixed");
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void twin_section(FILE *md, const machine *a, const machine *b)
{
    int n = 0, within[3] = { 0, 0, 0 }, cap = 0;
    for (int al = 0; al < sb_algo_count(); al++)
        cap += a->rows[al].count;
    double *ratio = malloc(sizeof *ratio * (size_t)(cap + 1));
    const sb_row *worst[2] = { NULL, NULL };
    double worst_r = 1.0;
    for (int al = 0; ratio && al < sb_algo_count(); al++)
        for (int i = 0; i < a->rows[al].count; i++) {
            const sb_row *ra = &a->rows[al].row[i];
            if (view_is_cpu_backend(ra->backend) || ra->kernel.median <= 0 || !strcmp(ra->agreement, "FAIL"))
                continue;
            for (int j = 0; j < b->rows[al].count; j++) {
                const sb_row *rb = &b->rows[al].row[j];
                if (!sb_row_same_key(ra, rb) || rb->kernel.median <= 0 || !strcmp(rb->agreement, "FAIL"))
                    continue;
                double r = rb->kernel.median / ra->kernel.median;
                ratio[n++] = r;
                double off = r > 1 ? r : 1 / r;
                within[0] += off <= 1.01;
                within[1] += off <= 1.02;
                within[2] += off <= 1.05;
                if (off > worst_r) {
                    worst_r = off;
                    worst[0] = ra;
                    worst[1] = rb;
                }
                break;
            }
        }
    fprintf(md, "## %s and %s: two cards of one model in one host\n\nBoth are %s in host `%s` (GPU %s and GPU %s), "
                "measured at commit %.7s: the same code on two cards that should be the same. ",
            set_name(a), set_name(b), report_md(REPORT_TEXT, a->run.gpu_name), report_md(REPORT_TEXT, a->run.host),
            a->run.gpu_uuid, b->run.gpu_uuid, a->commit);
    if (a->copy_gbps > 0 && b->copy_gbps > 0)
        fprintf(md, "Device copy: %.0f and %.0f GB/s (%.3fx). ", a->copy_gbps, b->copy_gbps, b->copy_gbps / a->copy_gbps);
    if (n == 0) {
        fprintf(md, "They share no GPU row.\n\n");
        free(ratio);
        return;
    }
    qsort(ratio, (size_t)n, sizeof *ratio, cmp_double);
    fprintf(md, "Over the %d GPU rows both measured (same algorithm, stage, variant, image), %s's kernel median over "
                "%s's: median %.3fx, middle half %.3f-%.3fx; within 1 %%: %d (%.0f %%), within 2 %%: %d, within 5 %%: "
                "%d. The widest: %s %s %s at %s, %.4f against %.4f ms.",
            n, set_name(b), set_name(a), ratio[n / 2], ratio[n / 4], ratio[(3 * n) / 4], within[0],
            100.0 * within[0] / n, within[1], within[2], worst[0] ? worst[0]->algo : "-",
            worst[0] ? worst[0]->stage : "", worst[0] ? worst[0]->variant : "",
            worst[0] ? report_md(REPORT_TEXT, worst[0]->image) : "", worst[0] ? worst[0]->kernel.median : 0,
            worst[1] ? worst[1]->kernel.median : 0);
    if (strcmp(a->run.cpu_usable_cores, "?") && strcmp(b->run.cpu_usable_cores, "?"))
        fprintf(md, " Their CPU rows ran on %s and %s of the host's %s cores at the same time, so they compare the "
                    "two halves of one host, not two processors.", a->run.cpu_usable_cores, b->run.cpu_usable_cores,
                a->cores);
    fprintf(md, "\n\n");
    free(ratio);
}

/* The baseline: asked for, else the reference machine (published.txt),
 * else the first set; -1 (err says why) when the one asked for is not
 * there.  *why: how it was chosen. */
static int pick_baseline(const machine *m, int n, const char *baseline, const char *results_root, const char **why,
                         sb_error *err)
{
    char reference[128] = "";
    *why = "asked for with --baseline";
    int asked = baseline != NULL;
    if (!asked) {
        sb_published_reference(results_root, reference, sizeof reference);
        baseline = reference;
        *why = "the reference machine, first in published.txt; --baseline picks another";
    }
    for (int k = 0; k < n; k++)
        if (!strcmp(m[k].id, baseline) || !strcmp(strrchr(m[k].dir, '/') ? strrchr(m[k].dir, '/') + 1 : m[k].dir,
                                                  baseline))
            return k;
    if (baseline[0] && asked) {
        sb_fail(err, SB_ERR_USAGE, "--baseline: no result set '%s' under %s/", baseline, results_root);
        return -1;
    }
    *why = "the first result set: published.txt names none of these";
    return 0;
}

/* The page's head: every machine in one table, the baseline said. */
static void machines_table(FILE *md, const machine *m, int n, int base, const char *why, const char *results_root)
{
    fprintf(md, "# segbench: machines side by side\n\nGenerated by `segbench report` from the result sets under "
                "`%s/`; each machine's own report is `report/<machine>/REPORT.md`. Baseline: **%s** (%s).\n\n",
            results_root, set_name(&m[base]), why);
    fprintf(md, "| machine | GPU | CPU | commit | run | measured | device copy (GB/s) | compared |\n"
                "|---|---|---|---|---|---|---:|---|\n");
    for (int k = 0; k < n; k++) {
        int is_stale = k != base && (strcmp(m[k].commit, m[base].commit) != 0 || !strcmp(m[k].commit, "mixed"));
        fprintf(md, "| %s | %s | %s (%s cores) | %.7s%s | %s | %.10s | ", report_md(REPORT_TEXT, set_name(&m[k])),
                strcmp(m[k].gpu, "?") ? report_md(REPORT_TEXT, m[k].gpu) : "none", report_md(REPORT_TEXT, m[k].cpu), m[k].cores, m[k].commit,
                strstr(m[k].commit, "-dirty") ? "-dirty" : "", report_md(REPORT_TEXT, m[k].run.run_id), m[k].date);
        fprintf(md, m[k].copy_gbps > 0 ? "%.0f |" : "- |", m[k].copy_gbps);
        fprintf(md, " %s |\n", k == base ? "baseline" : is_stale ? "another commit: compared row by row where the code is the same (below)"
                                                                 : "same commit as the baseline");
    }
    fprintf(md, "\n");
}

/* The sets measured at the baseline's commit (same[0] the baseline), side
 * by side; with two models of GPU, which stages follow the faster memory. */
static void same_commit_section(FILE *md, machine *m, const int *same, int nsame, int n, int base)
{
    char follow[2000] = "", flat[2000] = "";
    if (nsame > 1) {
        fprintf(md, "## The same code on each machine\n\nMeasured at commit %.7s on every machine. For each "
                    "algorithm and stage, at the largest synthetic image every one of them measured: for each "
                    "backend, the baseline's fastest variant (kernel median, ms; threaded variants at their best "
                    "thread count) and the same variant's time on the others, and how many times faster than the "
                    "baseline each is. `floor` is the copy over the same bytes (speed of light).\n\n",
                m[base].commit);
        side_by_side(md, m, same, nsame, 1, follow, flat);
        double bw = m[same[0]].copy_gbps > 0 ? m[same[1]].copy_gbps / m[same[0]].copy_gbps : 0.0;
        /* two models of GPU: which stages follow the faster memory (two
         * cards of one model copy at one rate: nothing to tell apart) */
        if (bw > 1.0 && !twins(&m[same[0]], &m[same[1]]))
            fprintf(md, "\n%s copies %.2fx faster than %s. GPU stages whose fastest variant gains at least half "
                        "of that, so follow memory bandwidth: %s. Stages that gain less, so are bound by "
                        "instructions, latency, launches or synchronisation rather than by memory bandwidth: %s. "
                        "CPU rows compare the two hosts' processors, not the GPUs.\n",
                    set_name(&m[same[1]]), bw, set_name(&m[same[0]]), follow[0] ? follow : "none at these sizes",
                    flat[0] ? flat : "none");
    } else if (n > 1) {
        fprintf(md, "No other result set was measured at the baseline's commit (%.7s): none is compared as a whole. "
                    "Each is compared below where its rows' code is the same as the baseline's; measure them at one "
                    "commit (docs/machines.md says how) to compare every row.\n",
                m[base].commit);
    }
}

/* The sets of other commits: compared where their code is the same, then
 * each one's fastest variants as measured. */
static void stale_sections(FILE *md, machine *m, const int *stale, int nstale, int base)
{
    sb_code_ids *ids = sb_code_ids_new();   /* what git gives for rows older than their code_id column */
    for (int k = 0; k < nstale; k++)
        same_code_section(md, ids, m, base, stale[k]);
    sb_code_ids_free(ids);
    for (int k = 0; k < nstale; k++) {
        int pair[2] = { stale[k], stale[k] };
        fprintf(md, "\n## %s, measured at other code (stale)\n\nCommit %.7s%s against the baseline's %.7s: "
                    "its times are not compared with the baseline's (different code, not just a different "
                    "machine). Its fastest variant of each backend, as measured:\n\n",
                set_name(&m[stale[k]]), m[stale[k]].commit, strcmp(m[stale[k]].commit, "mixed") ? "" : " (rows of several commits)",
                m[base].commit);
        side_by_side(md, m, pair, 1, 0, NULL, NULL);
    }
}

static sb_status report_machines_with(machine *m, char dirs[][SB_PATH_MAX], int ndirs, const char *results_root,
                                      const char *baseline, const char *out_path, const char *tasks_path,
                                      sb_error *err)
{
    int n = ndirs < MAX_MACHINES ? ndirs : MAX_MACHINES;
    memset(m, 0, MAX_MACHINES * sizeof *m);
    for (int k = 0; k < n; k++)
        load_machine(&m[k], dirs[k]);
    const char *why;
    int base = pick_baseline(m, n, baseline, results_root, &why, err);
    if (base < 0) {
        free_machines(m, n);
        return err->status;
    }
    /* the sets measured at the baseline's commit come first; the others are stale */
    int same[MAX_MACHINES], stale[MAX_MACHINES], nsame = 0, nstale = 0;
    same[nsame++] = base;
    for (int k = 0; k < n; k++) {
        if (k == base)
            continue;
        if (strcmp(m[k].commit, m[base].commit) == 0 && strcmp(m[k].commit, "mixed") != 0)
            same[nsame++] = k;
        else
            stale[nstale++] = k;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *md = open_memstream(&text, &len);
    if (!md) {
        free_machines(m, n);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    machines_table(md, m, n, base, why, results_root);
    if (tasks_path)
        cluster_tasks(md, tasks_path);
    for (int k = 0; k < n; k++)
        for (int j = k + 1; j < n; j++)
            if (twins(&m[k], &m[j]))
                twin_section(md, &m[k], &m[j]);
    same_commit_section(md, m, same, nsame, n, base);
    stale_sections(md, m, stale, nstale, base);
    fclose(md);
    sb_status st = sb_atomic_write_text(out_path, text, err);
    if (!st)
        printf("wrote %s (%d machines; baseline %s, %d at its commit)\n", out_path, n, set_name(&m[base]), nsame);
    free(text);
    free_machines(m, n);
    return st;
}

sb_status sb_report_machines(char dirs[][SB_PATH_MAX], int ndirs, const char *results_root, const char *baseline,
                             const char *out_path, const char *tasks_path, sb_error *err)
{
    machine *m = calloc(MAX_MACHINES, sizeof *m);       /* large: the heap, not a static */
    if (!m)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = report_machines_with(m, dirs, ndirs, results_root, baseline, out_path, tasks_path, err);
    free(m);
    return st;
}
