/* docs_figures.c - the figures of README.md and docs/ from the results
 * (docs_figures.h). */
#define _GNU_SOURCE            /* open_memstream */
#include "pages/docs_figures.h"

#include "base/csv.h"
#include "base/files.h"
#include "compare/history.h"
#include "io/env_json.h"
#include "io/git.h"
#include "io/noise_floor.h"
#include "io/rows.h"
#include "io/stream_rows.h"
#include "variants/registry.h"

#include "segbench/atomic_file.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ARGS_MAX = 6, FIGURE_MAX = 4096 };
static const char OPEN[] = "<!-- sb:", CLOSE[] = "<!-- /sb -->";

/* ---- the kinds ---- */

/* A count in words as the prose has it: "none", or the number. */
static const char *count_words(int n, char *out, size_t size)
{
    if (n == 0)
        snprintf(out, size, "none");
    else
        snprintf(out, size, "%d", n);
    return out;
}

/* "2,585": a count with thousands marked, as the prose writes them. */
static const char *thousands(int n, char *out, size_t size)
{
    if (n >= 1000)
        snprintf(out, size, "%d,%03d", n / 1000, n % 1000);
    else
        snprintf(out, size, "%d", n);
    return out;
}

/* aa MACHINE: the A/A of record (results/M/aa-ab.csv, ab of one build
 * against a copy of itself, judged by noise.csv's floors): its rows and
 * how many it called faster or slower. */
static sb_status fig_aa(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    char path[SB_PATH_MAX];
    sb_status st = sb_path(path, err, "%s/%s/aa-ab.csv", root, arg[0]);
    FILE *fp = st ? NULL : fopen(path, "r");
    if (!st && !fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open", path);
    char *line = NULL;
    size_t cap = 0;
    int rows = 0, called = 0, verdict = -1;
    for (int k = 0; !st && sb_csv_read_record(fp, &line, &cap) > 0; k++) {
        char *f[24];
        int n = sb_csv_split(line, f, 24);
        for (int i = 0; k == 0 && i < n; i++)
            verdict = !strcmp(f[i], "verdict") ? i : verdict;
        if (k == 0 && verdict < 0)
            st = sb_fail(err, SB_ERR_FORMAT, "%s: no verdict column", path);
        if (k > 0 && n > verdict) {
            rows++;
            called += !strcmp(f[verdict], "faster") || !strcmp(f[verdict], "slower");
        }
    }
    free(line);
    if (fp)
        fclose(fp);
    sb_noise_floor floors;
    memset(&floors, 0, sizeof floors);
    if (!st && !(st = sb_path(path, err, "%s/%s/noise.csv", root, arg[0])))
        st = sb_floor_read(path, &floors, err);
    char r[32], c[32];
    if (!st)
        snprintf(out, size, "%s rows calls %s of them (the A/A of %.10s at %.12s)", thousands(rows, r, sizeof r),
                 count_words(called, c, sizeof c), floors.date, floors.commit);
    sb_floor_free(&floors);
    return st;
}

/* The rows of every <algo>.csv of results/M/, each to visit. */
typedef void (*row_visit)(void *ctx, const sb_row *r);
static sb_status each_row(const char *root, const char *machine, row_visit visit, void *ctx, sb_error *err)
{
    sb_status st = SB_OK;
    int found = 0;
    for (int i = 0; i < sb_algo_count() && !st; i++) {
        char path[SB_PATH_MAX];
        sb_rows rows;
        if ((st = sb_path(path, err, "%s/%s/%s.csv", root, machine, sb_algo_at(i)->name)) || access(path, F_OK) != 0)
            continue;
        if (!(st = sb_rows_read_csv(path, &rows, err))) {
            found++;
            for (int k = 0; k < rows.count; k++)
                visit(ctx, &rows.row[k]);
            sb_rows_free(&rows);
        }
    }
    if (!st && !found)
        st = sb_fail(err, SB_ERR_IO, "%s/%s: no rows", root, machine);
    return st;
}

typedef struct steal_tally {
    int rows, with;
    double most;
    char first[32], last[32];     /* the rows' dates, earliest and latest */
} steal_tally;

static void steal_row(void *ctx, const sb_row *r)
{
    steal_tally *t = ctx;
    t->rows++;
    t->with += r->steal > 0;
    if (r->steal > t->most)
        t->most = r->steal;
    if (r->date[0] && (!t->first[0] || strcmp(r->date, t->first) < 0))
        snprintf(t->first, sizeof t->first, "%s", r->date);
    if (r->date[0] && strcmp(r->date, t->last) > 0)
        snprintf(t->last, sizeof t->last, "%s", r->date);
}

/* steal MACHINE: how many of the set's rows saw other tenants take their
 * CPUs' time, and the most they took. */
static sb_status fig_steal(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    steal_tally t;
    memset(&t, 0, sizeof t);
    sb_status st = each_row(root, arg[0], steal_row, &t, err);
    char a[32], b[32];
    if (!st)
        snprintf(out, size, "%s of %s rows, at most %.1f %% of their CPUs' time (results/%s/, rows of %.10s to "
                 "%.10s)", thousands(t.with, a, sizeof a), thousands(t.rows, b, sizeof b), 100.0 * t.most, arg[0],
                 t.first, t.last);
    return st;
}

typedef struct best_pick {
    const char *algo, *stage, *image;
    sb_row best;
    int found;
} best_pick;

static void best_row(void *ctx, const sb_row *r)
{
    best_pick *b = ctx;
    const sb_variant *v = sb_variant_find(r->algo, r->variant);
    if (strcmp(r->algo, b->algo) || strcmp(r->stage, b->stage) || strcmp(r->image, b->image) ||
        r->kernel.median <= 0 || !strcmp(r->agreement, "FAIL") || (v && (v->flags & SB_FLOOR)))
        return;
    if (!b->found || r->kernel.median < b->best.kernel.median) {
        b->best = *r;
        b->best.kernel_ms = b->best.e2e_ms = b->best.frame_ms = b->best.setup_ms = NULL;
        b->best.round_ms = b->best.round_work = b->best.round_probe = NULL;
        b->found = 1;
    }
}

/* best MACHINE ALGO STAGE IMAGE: the fastest variant's kernel median. */
static sb_status fig_best(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    best_pick b = { .algo = arg[1], .stage = arg[2], .image = arg[3] };
    sb_status st = each_row(root, arg[0], best_row, &b, err);
    if (!st && !b.found)
        return sb_fail(err, SB_ERR_USAGE, "results/%s/ has no timed row of %s %s at %s", arg[0], arg[1], arg[2],
                       arg[3]);
    if (!st)
        snprintf(out, size, "%.3f ms (`%s`, run %s, %.10s)", b.best.kernel.median, b.best.variant, b.best.run_id,
                 b.best.date);
    return st;
}

/* The text of FILE, a file of results/MACHINE/ named alone (no folder, no
 * ".."), into *text (the caller frees); its path into path. */
static sb_status set_file(const char *root, char **arg, char *path, char **text, sb_error *err)
{
    if (strstr(arg[1], "..") || strchr(arg[1], '/'))
        return sb_fail(err, SB_ERR_USAGE, "%s: a file of the set's folder, by its name", arg[1]);
    sb_status st = sb_path(path, err, "%s/%s/%s", root, arg[0], arg[1]);
    if (!st && !(*text = sb_read_text(path)))
        st = sb_fail(err, SB_ERR_IO, "%s: cannot read", path);
    return st;
}

/* power MACHINE FILE: a trials file of results/M/ (each line "trial NN
 * rc=0 ...: B against A: faster on F, slower on S, same on ..., ..."):
 * in how many trials ab called rows slower and none faster, and the rows
 * it called in all. */
static sb_status fig_power(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    char path[SB_PATH_MAX], rel[SB_PATH_MAX + 4], *text = NULL;
    sb_status st = set_file(root, arg, path, &text, err);
    if (st)
        return st;
    snprintf(rel, sizeof rel, "./%s", path);
    int trials = 0, slower_only = 0, rows_slower = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        const char *tally = strstr(line, "B against A: ");
        int faster, slower;
        if (strncmp(line, "trial ", 6) || !tally ||
            sscanf(tally, "B against A: faster on %d, slower on %d", &faster, &slower) != 2)
            continue;
        trials++;
        slower_only += slower > 0 && faster == 0;
        rows_slower += slower;
    }
    free(text);
    if (!trials)
        return sb_fail(err, SB_ERR_FORMAT, "%s: no trial lines", path);
    char *argv[] = { "git", "log", "-1", "--format=%cs", "--", rel, NULL };
    char *date = sb_git_output(argv);
    if (date)
        date[strcspn(date, "\n")] = '\0';
    snprintf(out, size, "%d times in %d (%d rows called slower, none faster: `results/%s/%s`%s%s)", slower_only,
             trials, rows_slower, arg[0], arg[1], date && date[0] ? ", committed " : "", date ? date : "");
    free(date);
    return SB_OK;
}

/* warm-table MACHINE FILE: a file of `segbench stream --warm` output in
 * results/M/ as docs/video.md shows it: each scene, K and way of running
 * (runs overlapping, or in turn), where a warm frame began (the frame K
 * before, or the one before, taken on the device), the work a frame (the
 * algorithm's own count: passes, iterations) and frames/s cold and warm,
 * and the gain. */
static sb_status fig_warm_table(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    char path[SB_PATH_MAX], *text = NULL;
    sb_status st = set_file(root, arg, path, &text, err);
    if (st)
        return st;
    char body[8192], unit[32] = "passes";
    size_t len = 0;
    body[0] = '\0';
    char scene[64] = "", fps_text[2][32];
    int k = 0, rows = 0, side = -1, in_turn = 0, chained = 0;
    double fps[2] = { 0, 0 }, work[2] = { 0, 0 }, last_fps = 0;
    for (char *line = strtok(text, "\n"); line && len < sizeof body; line = strtok(NULL, "\n")) {
        const char *at;
        double gain, x;
        size_t n = strlen(line);
        if ((at = strstr(line, " (")) && strstr(line, " in flight") && n && line[n - 1] == ':' &&
            strncmp(line, "  ", 2) != 0) {
            sscanf(at + 2, "%63[^,]", scene);          /* "...scene-640x480 (640x480, 4 distinct frames), K in flight:" */
            const char *kin = strstr(line, "), ");
            k = kin ? atoi(kin + 3) : 0;
            in_turn = strstr(line, ", runs in turn") != NULL;
            side = -1;
        } else if (sscanf(line, " %lf frames/s", &x) == 1 && !strstr(line, "bound")) {
            last_fps = x;                          /* the block's rate: its cold or warm line follows */
        } else if ((at = strstr(line, " a frame ")) && (!strncmp(line, "  cold:", 7) || !strncmp(line, "  warm:", 7))) {
            const char *word = at;                 /* "...; passes a frame 5.50": the word before " a frame" */
            while (word > line && word[-1] != ' ')
                word--;
            snprintf(unit, sizeof unit, "%.*s", (int)(at - word), word);
            side = line[2] == 'w';
            if (side)
                chained = strstr(line, "taken on the device") != NULL;
            work[side] = atof(at + strlen(" a frame "));
            fps[side] = last_fps;
        } else if (sscanf(line, "  warm against cold, %*d in flight: %lfx", &gain) == 1) {
            double p99[2] = { 0, 0 };      /* "..., p99 WARM against COLD ms, ..." */
            if ((at = strstr(line, ", p99 ")))
                sscanf(at, ", p99 %lf against %lf", &p99[1], &p99[0]);
            char from[48];
            if (chained)
                snprintf(from, sizeof from, "the frame before, on the GPU");
            else
                snprintf(from, sizeof from, "the frame %d before", k);
            len += (size_t)snprintf(body + len, sizeof body - len,
                                    "| %s | %d | %s | %s | %.2f / %.2f | %s / %s | %.1f / %.1f | %.2fx |\n", scene, k,
                                    in_turn ? "in turn" : "overlap", from, work[0],
                                    work[1], thousands((int)(fps[0] + 0.5), fps_text[0], 32),
                                    thousands((int)(fps[1] + 0.5), fps_text[1], 32), p99[0], p99[1], gain);
            rows++;
        }
    }
    len = (size_t)snprintf(out, size, "\n| scene | K | runs | a warm frame begins from | %s a frame, cold / warm | "
                                      "frames/s, cold / warm | p99 ms, cold / warm | gain |\n"
                                      "|---|---:|---|---|---:|---:|---:|---:|\n%s",
                           unit, body);
    free(text);
    if (!rows)
        return sb_fail(err, SB_ERR_FORMAT, "%s: no 'warm against cold' lines", path);
    snprintf(out + len, len < size ? size - len : 0, "\n(`results/%s/%s`)\n", arg[0], arg[1]);
    return SB_OK;
}

/* run MACHINE RUN_ID: a run of record's time in bench and its rows, from
 * env.json as git holds it at the commit that recorded that run. */
static sb_status fig_run(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    char path[SB_PATH_MAX];
    sb_status st = sb_path(path, err, "./%s/%s/env.json", root, arg[0]);
    if (st)
        return st;
    char *argv[] = { "git", "log", "--format=%H", "--", path, NULL };
    char *commits = sb_git_output(argv);
    if (!commits)
        return sb_fail(err, SB_ERR_IO, "%s: git has no history of it", path + 2);
    int found = 0;
    for (char *c = strtok(commits, "\n"); c && !found; c = strtok(NULL, "\n")) {
        char *env = sb_git_show(c, path);
        char run[64], seconds[32], rows[32], commit[64], date[40];
        sb_json_get(env ? env : "", "run_id", run, sizeof run);
        if (env && !strcmp(run, arg[1])) {
            sb_json_get(env, "run_seconds", seconds, sizeof seconds);
            sb_json_get(env, "rows_measured", rows, sizeof rows);
            sb_json_get(env, "commit", commit, sizeof commit);
            sb_json_get(env, "date", date, sizeof date);
            char n[32];
            snprintf(out, size, "%s s of `bench`, %s rows (run %s at %.7s, %.10s)", seconds,
                     thousands(atoi(rows), n, sizeof n), run, commit, date);
            found = 1;
        }
        free(env);
    }
    free(commits);
    return found ? SB_OK : sb_fail(err, SB_ERR_USAGE, "no commit of %s records run %s", path + 2, arg[1]);
}

/* history MACHINE: the machine's runs of record over git (segbench
 * history): how many, and the steps of each stage's fastest variant. */
static sb_status fig_history(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    sb_history h;
    memset(&h, 0, sizeof h);
    sb_noise_floor floors;
    memset(&floors, 0, sizeof floors);
    char path[SB_PATH_MAX];
    sb_status st = sb_path(path, err, "%s/%s/noise.csv", root, arg[0]);
    if (!st && access(path, F_OK) == 0)
        st = sb_floor_read(path, &floors, err);
    else if (!st)
        sb_floor_defaults(&floors);
    sb_code_ids *ids = sb_code_ids_new();
    if (!st)
        st = sb_history_from_git(&h, root, arg[0], 0, err);
    if (!st && !(st = sb_history_find_steps(&h, NULL, &floors, ids, err))) {
        sb_history_tally t;
        char span[120], words[160];
        sb_history_count(&h, NULL, &t);
        snprintf(out, size, "%s, %.10s to %.10s: %s", sb_history_span(&h, span, sizeof span), h.snap[0].date,
                 h.snap[h.nsnap - 1].date, sb_history_tally_words(&t, words, sizeof words));
    }
    sb_history_free(&h);
    sb_code_ids_free(ids);
    sb_floor_free(&floors);
    return st;
}

/* ---- aa-table: the A/A of record as docs/measuring.md shows it ---- */

/* A percentage as the prose writes it: "8.5 %", "101 %", "3,650 %". */
static const char *pct(double fraction, char *out, size_t size)
{
    double p = 100.0 * fraction;
    if (p < 100.0)
        snprintf(out, size, "%.1f %%", p);
    else if (p < 1000.0)
        snprintf(out, size, "%.0f %%", p);
    else
        snprintf(out, size, "%d,%03d %%", (int)(p + 0.5) / 1000, (int)(p + 0.5) % 1000);
    return out;
}

/* How many rows of the classes beginning with `cls` have an own floor below `below`. */
static int rows_under(const sb_noise_floor *f, const char *cls, double below)
{
    int n = 0;
    for (int i = 0; i < f->nrows; i++)
        n += !strncmp(f->row[i].cls, cls, strlen(cls)) && f->row[i].floor < below;
    return n;
}

static double class_floor(const sb_noise_floor *f, const char *cls, int *rows)
{
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->cls[i].name, cls)) {
            *rows = f->cls[i].rows;
            return f->cls[i].floor;
        }
    *rows = 0;
    return 0.0;
}

typedef struct aa_calls {
    int rows[2], called[2], same[2], undetermined[2], far[2], far_called[2];   /* CPU, GPU */
} aa_calls;

/* aa-ab.csv's rows by side (a row "cuda-naive t1 image": its variant
 * decides), and what ab called them. */
static sb_status read_calls(const char *path, aa_calls *c, sb_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open", path);
    memset(c, 0, sizeof *c);
    char *line = NULL;
    size_t cap = 0;
    int col[3] = { -1, -1, -1 };                 /* row, ratio, verdict */
    static const char *const NAMES[3] = { "row", "ratio", "verdict" };
    for (int k = 0; sb_csv_read_record(fp, &line, &cap) > 0; k++) {
        char *f[24];
        int n = sb_csv_split(line, f, 24);
        for (int i = 0; k == 0 && i < n; i++)
            for (int j = 0; j < 3; j++)
                col[j] = !strcmp(f[i], NAMES[j]) ? i : col[j];
        if (k == 0 || n <= col[2] || n <= col[1] || n <= col[0] || col[0] < 0 || col[1] < 0 || col[2] < 0)
            continue;
        char variant[64];
        snprintf(variant, sizeof variant, "%.*s", (int)strcspn(f[col[0]], " "), f[col[0]]);
        const sb_variant *v = sb_variant_find(f[0], variant);
        int gpu = v ? (v->flags & SB_DEVICE) != 0 : !strncmp(variant, "cuda", 4);
        const char *verdict = f[col[2]];
        double ratio = atof(f[col[1]]);
        int far = ratio > 1.25 || (ratio > 0 && ratio < 1.0 / 1.25);
        c->rows[gpu]++;
        c->called[gpu] += !strcmp(verdict, "faster") || !strcmp(verdict, "slower");
        c->same[gpu] += !strcmp(verdict, "same");
        c->undetermined[gpu] += !strcmp(verdict, "undetermined");
        c->far[gpu] += far;
        c->far_called[gpu] += far && strcmp(verdict, "undetermined") != 0;
    }
    free(line);
    fclose(fp);
    if (col[2] < 0)
        return sb_fail(err, SB_ERR_FORMAT, "%s: no row, ratio and verdict columns", path);
    return SB_OK;
}

/* The CPU classes' cell: "101 % at 1 thread, 3,650 % at 16" (class) or
 * "57.2 % (98.6 %) at 1 thread, ..." (own, median and 90th percentile). */
static void cpu_cells(const sb_noise_floor *f, int own, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < f->n && len < size; i++) {
        if (strncmp(f->cls[i].name, "cpu@", 4))
            continue;
        int threads = atoi(f->cls[i].name + 4), n;
        char a[32], b[32];
        if (own)
            len += (size_t)snprintf(out + len, size - len, "%s%s (%s) at %d%s", len ? ", " : "",
                                    pct(sb_floor_class_quantile(f, f->cls[i].name, 0, 0.5, &n), a, sizeof a),
                                    pct(sb_floor_class_quantile(f, f->cls[i].name, 0, 0.9, &n), b, sizeof b), threads,
                                    len ? "" : threads == 1 ? " thread" : " threads");
        else
            len += (size_t)snprintf(out + len, size - len, "%s%s at %d%s", len ? ", " : "",
                                    pct(f->cls[i].floor, a, sizeof a), threads,
                                    len ? "" : threads == 1 ? " thread" : " threads");
    }
}

/* aa-table MACHINE: the table of the A/A of record, from noise.csv's
 * floors and aa-ab.csv's calls. */
static sb_status fig_aa_table(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    char path[SB_PATH_MAX];
    sb_noise_floor f;
    memset(&f, 0, sizeof f);
    aa_calls c;
    sb_status st = sb_path(path, err, "%s/%s/noise.csv", root, arg[0]);
    if (!st)
        st = sb_floor_read(path, &f, err);
    if (!st && !(st = sb_path(path, err, "%s/%s/aa-ab.csv", root, arg[0])))
        st = read_calls(path, &c, err);
    if (st) {
        sb_floor_free(&f);
        return st;
    }
    int gpu_rows, host_rows, n, under, cpu_n, cpu_under;
    char a[32], b[32], g[32], h[32], cls_cpu[300], own_cpu[300];
    double gpu = class_floor(&f, "gpu", &gpu_rows), host = class_floor(&f, "gpu-host", &host_rows);
    double med = sb_floor_class_quantile(&f, "gpu", 1, 0.5, &n), p90 = sb_floor_class_quantile(&f, "gpu", 1, 0.9, &n);
    sb_floor_class_quantile(&f, "cpu@", 1, 0.5, &cpu_n);
    under = rows_under(&f, "gpu", 0.05);
    cpu_under = rows_under(&f, "cpu@", 0.05);
    cpu_cells(&f, 0, cls_cpu, sizeof cls_cpu);
    cpu_cells(&f, 1, own_cpu, sizeof own_cpu);
    snprintf(out, size,
             "\n| | GPU rows | CPU rows |\n|---|---:|---:|\n"
             "| class floor (99th percentile of the A/A's round pairs) | %s (`gpu`, %d rows); %s (`gpu-host`, %d "
             "rows) | %s |\n"
             "| a row's own floor: median (90th percentile) | %s (%s) | %s |\n"
             "| rows under a 5 %% floor | %d of %d | %d of %d |\n"
             "| ab of one build: faster or slower | %d of %d | %d of %d |\n"
             "| same / undetermined | %d / %d | %d / %d |\n"
             "| rows beyond 1.25x called anything but undetermined | %d of %d | %d of %d |\n\n"
             "(the A/A of %.10s at %.12s: `results/%s/noise.csv`, `results/%s/aa-ab.csv`)\n",
             pct(gpu, g, sizeof g), gpu_rows, pct(host, h, sizeof h), host_rows, cls_cpu, pct(med, a, sizeof a),
             pct(p90, b, sizeof b), own_cpu, under, n, cpu_under, cpu_n, c.called[1], c.rows[1], c.called[0],
             c.rows[0], c.same[1], c.undetermined[1], c.same[0], c.undetermined[0], c.far_called[1], c.far[1],
             c.far_called[0], c.far[0], f.date, f.commit, arg[0], arg[0]);
    sb_floor_free(&f);
    return SB_OK;
}

/* What the GPU stream rows of results/M/ (every <algo>.stream.csv, or
 * ALGO's alone) say of their bound: how many, how many at or under it,
 * the highest share, and the runs and dates they come from. */
typedef struct bound_tally {
    int rows, under, beat;
    double lo, hi;                /* the shares' range */
    char hi_by[16];               /* the engine of the highest share */
    char by[4][16];               /* the engines that bound them */
    int nby;
    char run[4][48];
    int nrun, more_runs;
    char first[32], last[32];
} bound_tally;

static void bound_row(bound_tally *t, const sb_stream_row *r)
{
    if (strncmp(r->backend, "cuda", 4) || r->bound_fraction <= 0)
        return;                   /* a CPU row has a model, not a bound */
    double f = r->bound_fraction;
    if (!t->rows || f < t->lo)
        t->lo = f;
    if (!t->rows || f > t->hi) {
        t->hi = f;
        snprintf(t->hi_by, sizeof t->hi_by, "%s", r->bound_by);
    }
    t->rows++;
    t->under += f <= 1.0;
    t->beat += f > 1.0;
    int i = 0;
    while (i < t->nby && strcmp(t->by[i], r->bound_by))
        i++;
    if (i == t->nby && t->nby < 4)
        snprintf(t->by[t->nby++], sizeof t->by[0], "%s", r->bound_by);
    for (i = 0; i < t->nrun && strcmp(t->run[i], r->run_id); i++)
        ;
    if (i == t->nrun) {
        if (t->nrun < 4)
            snprintf(t->run[t->nrun++], sizeof t->run[0], "%s", r->run_id);
        else
            t->more_runs++;
    }
    if (r->date[0] && (!t->first[0] || strcmp(r->date, t->first) < 0))
        snprintf(t->first, sizeof t->first, "%s", r->date);
    if (r->date[0] && strcmp(r->date, t->last) > 0)
        snprintf(t->last, sizeof t->last, "%s", r->date);
}

static sb_status bound_scan(const char *root, const char *machine, const char *algo, bound_tally *t, sb_error *err)
{
    memset(t, 0, sizeof *t);
    sb_status st = SB_OK;
    for (int i = 0; i < sb_algo_count() && !st; i++) {
        char path[SB_PATH_MAX];
        sb_stream_row *rows = NULL;
        int n = 0;
        if (algo && strcmp(algo, sb_algo_at(i)->name))
            continue;
        if ((st = sb_path(path, err, "%s/%s/%s.stream.csv", root, machine, sb_algo_at(i)->name)) ||
            access(path, F_OK) != 0)
            continue;
        if (!(st = sb_stream_rows_read(path, &rows, &n, err)))
            for (int k = 0; k < n; k++)
                bound_row(t, &rows[k]);
        free(rows);
    }
    if (!st && !t->rows)
        st = sb_fail(err, SB_ERR_IO, "results/%s/: no GPU stream row%s%s", machine, algo ? " of " : "",
                     algo ? algo : "");
    return st;
}

/* " (results/M/..., runs A and B, DATE to DATE)": where a bound figure
 * comes from. */
static void bound_source(const bound_tally *t, const char *machine, const char *algo, char *out, size_t size)
{
    size_t len = (size_t)snprintf(out, size, " (`results/%s/%s.stream.csv`, run%s ", machine, algo ? algo : "*",
                                  t->nrun + t->more_runs > 1 ? "s" : "");
    for (int i = 0; i < t->nrun && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%s", i == 0 ? "" : i == t->nrun - 1 && !t->more_runs ?
                                " and " : ", ", t->run[i]);
    if (t->more_runs && len < size)
        len += (size_t)snprintf(out + len, size - len, " and %d more", t->more_runs);
    if (len < size && strncmp(t->first, t->last, 10))
        snprintf(out + len, size - len, ", %.10s to %.10s)", t->first, t->last);
    else if (len < size)
        snprintf(out + len, size - len, ", %.10s)", t->first);
}

/* bounds MACHINE: how the set's GPU stream rows stand against their
 * bound -- at or under it, or beating it, and by how much at most. */
static sb_status fig_bounds(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    bound_tally t;
    sb_status st = bound_scan(root, arg[0], NULL, &t, err);
    if (st)
        return st;
    char src[512];
    bound_source(&t, arg[0], NULL, src, sizeof src);
    if (!t.beat)
        snprintf(out, size, "every one of the %d GPU rows lies within its bound, the highest at %.1f %%%s", t.rows,
                 100.0 * t.hi, src);
    else
        snprintf(out, size, "%d of the %d GPU rows lie within their bound and %d beat it, by at most %.1f %% "
                 "(a row bound by its %s)%s", t.under, t.rows, t.beat, 100.0 * (t.hi - 1.0), t.hi_by, src);
    return SB_OK;
}

/* bound-share MACHINE ALGO: the range of ALGO's GPU stream rows' shares
 * of their bound, and the engines that bound them. */
static sb_status fig_bound_share(const char *root, char **arg, char *out, size_t size, sb_error *err)
{
    bound_tally t;
    sb_status st = bound_scan(root, arg[0], arg[1], &t, err);
    if (st)
        return st;
    char by[80] = "", src[512];
    for (int i = 0; i < t.nby; i++)
        snprintf(by + strlen(by), sizeof by - strlen(by), "%s*%s*", i == 0 ? "" : i == t.nby - 1 ? " or " : ", ",
                 t.by[i]);
    bound_source(&t, arg[0], arg[1], src, sizeof src);
    snprintf(out, size, "%.0f-%.0f %% of their bound over %d rows, bound by %s%s", 100.0 * t.lo, 100.0 * t.hi,
             t.rows, by, src);
    return SB_OK;
}

typedef struct figure_kind {
    const char *name;
    int nargs;
    const char *args;             /* for the error that names them */
    sb_status (*make)(const char *root, char **arg, char *out, size_t size, sb_error *err);
} figure_kind;

static const figure_kind KINDS[] = {
    { "aa", 1, "MACHINE", fig_aa },
    { "steal", 1, "MACHINE", fig_steal },
    { "best", 4, "MACHINE ALGO STAGE IMAGE", fig_best },
    { "aa-table", 1, "MACHINE", fig_aa_table },
    { "power", 2, "MACHINE FILE", fig_power },
    { "warm-table", 2, "MACHINE FILE", fig_warm_table },
    { "history", 1, "MACHINE", fig_history },
    { "run", 2, "MACHINE RUN_ID", fig_run },
    { "bounds", 1, "MACHINE", fig_bounds },
    { "bound-share", 2, "MACHINE ALGO", fig_bound_share },
};

/* ---- the pages ---- */

/* The figure whose opening comment is at `at` (its "<!-- sb:" ): made
 * into `made`; *end is past its closing comment.  Errors name the line. */
static sb_status one_figure(const char *file, int line, const char *at, const char *root, char *made, size_t size,
                            const char **text, size_t *text_len, const char **end, sb_error *err)
{
    const char *spec = at + strlen(OPEN), *spec_end = strstr(spec, "-->");
    const char *close = spec_end ? strstr(spec_end, CLOSE) : NULL;
    const char *nl = strchr(spec, '\n');
    if (!spec_end || !close || (nl && nl < spec_end))
        return sb_fail(err, SB_ERR_FORMAT, "%s:%d: a figure's opening comment has no end, or no <!-- /sb --> "
                       "follows it", file, line);
    char words[400];
    snprintf(words, sizeof words, "%.*s", (int)(spec_end - spec), spec);
    char *arg[ARGS_MAX + 2], *save = NULL;
    int n = 0;
    for (char *w = strtok_r(words, " ", &save); w && n < ARGS_MAX + 2; w = strtok_r(NULL, " ", &save))
        arg[n++] = w;
    const figure_kind *k = NULL;
    for (size_t i = 0; n && i < sizeof KINDS / sizeof KINDS[0]; i++)
        k = !strcmp(KINDS[i].name, arg[0]) ? &KINDS[i] : k;
    if (!k)
        return sb_fail(err, SB_ERR_FORMAT, "%s:%d: no figure of kind '%s' (aa, aa-table, steal, best, power, warm-table, history, run, bounds, bound-share)", file, line,
                       n ? arg[0] : "");
    if (n - 1 != k->nargs)
        return sb_fail(err, SB_ERR_FORMAT, "%s:%d: sb:%s takes %s", file, line, k->name, k->args);
    sb_status st = k->make(root, arg + 1, made, size, err);
    if (st)
        return sb_fail(err, st, "%s:%d: sb:%s: %s", file, line, k->name, err->msg);
    *text = spec_end + 3;
    *text_len = (size_t)(close - *text);
    *end = close + strlen(CLOSE);
    return SB_OK;
}

/* One file: its figures made again; written back where one changed (not
 * with check). */
static sb_status one_file(const char *file, const char *root, int check, FILE *out, sb_docs_tally *t,
                          sb_error *err)
{
    char *text = sb_read_text(file);
    if (!text)
        return sb_fail(err, SB_ERR_IO, "%s: cannot read", file);
    char *copy = NULL;
    size_t copy_len = 0;
    FILE *w = open_memstream(&copy, &copy_len);
    sb_status st = w ? SB_OK : sb_fail(err, SB_ERR_NOMEM, "out of memory");
    int changed = 0, line = 1;
    const char *p = text;
    for (const char *at; !st && (at = strstr(p, OPEN));) {
        for (const char *q = p; q < at; q++)
            line += *q == '\n';
        if (at > text && at[-1] == '`') {      /* `<!-- sb:...`: the syntax shown in code, not a figure */
            fprintf(w, "%.*s", (int)(at + strlen(OPEN) - p), p);
            p = at + strlen(OPEN);
            continue;
        }
        const char *said = NULL, *end = NULL;
        size_t said_len = 0;
        char made[FIGURE_MAX];
        if ((st = one_figure(file, line, at, root, made, sizeof made, &said, &said_len, &end, err)))
            break;
        t->figures++;
        int same = strlen(made) == said_len && !strncmp(made, said, said_len);
        if (!same && check)
            fprintf(out, "%s:%d: sb:%.*s: the page says '%.*s', the results '%s'\n", file, line,
                    (int)(strstr(at, "-->") - at - strlen(OPEN)), at + strlen(OPEN), (int)said_len, said, made);
        t->differ += !same;
        changed |= !same;
        fprintf(w, "%.*s%s%s", (int)(said - p), p, made, CLOSE);
        for (const char *q = at; q < end; q++)   /* a figure of several lines: the next one's line right */
            line += *q == '\n';
        p = end;
    }
    if (w) {
        fputs(p, w);
        fclose(w);
    }
    t->files++;
    if (!st && changed && !check && !(st = sb_atomic_write_text(file, copy, err)))
        t->rewritten++;
    free(copy);
    free(text);
    return st;
}

sb_status sb_docs_figures(const char *const *files, int nfiles, const char *results_root, int check, FILE *out,
                          sb_docs_tally *t, sb_error *err)
{
    memset(t, 0, sizeof *t);
    sb_status st = SB_OK;
    for (int i = 0; i < nfiles && !st; i++)
        st = one_file(files[i], results_root, check, out, t, err);
    return st;
}
