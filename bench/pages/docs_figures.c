/* docs_figures.c - the figures of README.md and docs/ from the results
 * (docs_figures.h). */
#define _GNU_SOURCE            /* open_memstream */
#include "pages/docs_figures.h"

#include "base/csv.h"
#include "base/files.h"
#include "io/noise_floor.h"
#include "io/rows.h"
#include "variants/registry.h"

#include "segbench/atomic_file.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ARGS_MAX = 6, FIGURE_MAX = 600 };
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
    if (!spec_end || !close || (nl && nl < close))
        return sb_fail(err, SB_ERR_FORMAT, "%s:%d: a figure's comments must open and close on one line", file, line);
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
        return sb_fail(err, SB_ERR_FORMAT, "%s:%d: no figure of kind '%s' (aa, steal, best)", file, line,
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
