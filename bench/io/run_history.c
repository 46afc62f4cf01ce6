/* run_history.c - a machine's runs of record over git history, or over
 * folders (run_history.h). */
#define _GNU_SOURCE            /* mkstemp */
#include "io/run_history.h"

#include "base/files.h"
#include "base/grow.h"
#include "io/git.h"
#include "variants/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The algorithm whose rows file is `name` (its base name), or NULL:
 * samples, kernels, peers, noise and the rest are not rows. */
static const char *rows_file_algo(const char *name)
{
    for (int i = 0; i < sb_algo_count(); i++) {
        const char *algo = sb_algo_at(i)->name;
        size_t n = strlen(algo);
        if (!strncmp(name, algo, n) && !strcmp(name + n, ".csv"))
            return algo;
    }
    return NULL;
}

/* Rows from a CSV's text (sb_rows_read_csv reads files: a temporary one). */
static sb_status rows_from_text(const char *text, const char *what, sb_rows *rows, sb_error *err)
{
    char tmp[] = "/tmp/segbench-history-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return sb_fail(err, SB_ERR_IO, "a temporary file for %s: cannot create", what);
    FILE *fp = fdopen(fd, "w");
    int ok = fp && fputs(text, fp) >= 0;
    ok = fp && fclose(fp) == 0 && ok;
    sb_status st = ok ? sb_rows_read_csv(tmp, rows, err) : sb_fail(err, SB_ERR_IO, "%s: cannot write a copy", what);
    unlink(tmp);
    if (st && err) {          /* the reader named the temporary file: name the one it copies */
        char said[SB_ERROR_MSG_MAX];
        const char *at = strstr(err->msg, tmp);
        snprintf(said, sizeof said, "%s", at ? at + strlen(tmp) : err->msg);
        sb_fail(err, st, "%s%s%s", what, at ? "" : ": ", said);
    }
    return st;
}

static void env_of(const char *text, sb_history_snap *snap)
{
    sb_run_info_parse(text, &snap->run);
    sb_json_get(text ? text : "", "cuda_driver_version", snap->driver, sizeof snap->driver);
    if (!snap->driver[0])
        snprintf(snap->driver, sizeof snap->driver, "?");
}

static void csvs_free(sb_history_csv *csv, int n)
{
    for (int i = 0; i < n; i++)
        sb_rows_free(&csv[i].rows);
}

static sb_status set_snapshot(const char *dir, const char *label, sb_history_visit visit, void *ctx,
                              sb_error *err);

/* ---- git ---- */

typedef struct commit_files {
    char commit[48], date[32];
    const char *algo[64];      /* the rows files it changed */
    int nalgo;
} commit_files;

/* `git log --name-only` of the folder, oldest first, into a list. */
static sb_status git_commits(const char *folder, commit_files **out, int *count, sb_error *err)
{
    char path[SB_PATH_MAX + 8];
    snprintf(path, sizeof path, "./%s/", folder);
    char *argv[] = { "git", "log", "--reverse", "--format=@%H %cI", "--name-only", "--", path, NULL };
    char *text = sb_git_output(argv);
    if (!text)
        return sb_fail(err, SB_ERR_IO, "%s: git has no history here (not a git repository, or git is missing); "
                                       "history --sets DIR... reads folders of result sets", folder);
    commit_files *list = NULL;
    int n = 0, cap = 0;
    sb_status st = SB_OK;
    for (char *line = strtok(text, "\n"); line && !st; line = strtok(NULL, "\n")) {
        if (line[0] == '@') {
            commit_files *grown = sb_grow(list, &cap, n + 1, sizeof *list);
            if (!grown) {
                st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
                break;
            }
            list = grown;
            commit_files *c = &list[n++];
            memset(c, 0, sizeof *c);
            if (sscanf(line + 1, "%47s %31s", c->commit, c->date) != 2)
                st = sb_fail(err, SB_ERR_FORMAT, "git log: a line not understood: %.80s", line);
        } else if (n) {
            const char *base = strrchr(line, '/');
            const char *algo = rows_file_algo(base ? base + 1 : line);
            commit_files *c = &list[n - 1];
            if (algo && c->nalgo < (int)(sizeof c->algo / sizeof c->algo[0]))
                c->algo[c->nalgo++] = algo;
        }
    }
    free(text);
    if (!st && !n)
        st = sb_fail(err, SB_ERR_USAGE, "%s: no commit changed it (its history begins when it is committed)",
                     folder);
    if (st) {
        free(list);
        return st;
    }
    *out = list;
    *count = n;
    return SB_OK;
}

/* One commit's snapshot: its env.json, and the rows files it changed (at
 * the first one read, every algorithm's). */
static sb_status git_snapshot(const char *folder, const commit_files *c, int every, sb_history_visit visit,
                              void *ctx, sb_error *err)
{
    sb_history_snap snap;
    memset(&snap, 0, sizeof snap);
    snprintf(snap.commit, sizeof snap.commit, "%s", c->commit);
    snprintf(snap.label, sizeof snap.label, "%.12s", c->commit);
    snprintf(snap.date, sizeof snap.date, "%s", c->date);
    /* its env.json and rows files, asked of one git process */
    const char *algo[64];
    int want = every ? sb_algo_count() : c->nalgo;
    want = want < 64 ? want : 64;
    enum { SPEC = SB_PATH_MAX + 96 };
    char *spec = malloc((size_t)(want + 1) * SPEC);
    const char *specs[65];
    if (!spec)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    snprintf(spec, SPEC, "%s:./%s/env.json", c->commit, folder);
    for (int i = 0; i < want; i++) {
        algo[i] = every ? sb_algo_at(i)->name : c->algo[i];
        snprintf(spec + (size_t)(i + 1) * SPEC, SPEC, "%s:./%s/%s.csv", c->commit, folder, algo[i]);
    }
    for (int i = 0; i <= want; i++)
        specs[i] = spec + (size_t)i * SPEC;
    char *text[65];
    int asked = sb_git_show_many(specs, want + 1, text);
    free(spec);
    if (asked != 0)
        return sb_fail(err, SB_ERR_IO, "%s at %.12s: git cat-file could not read it", folder, c->commit);
    env_of(text[0], &snap);
    free(text[0]);
    sb_history_csv csv[64];
    int n = 0;
    sb_status st = SB_OK;
    for (int i = 0; i < want; i++) {
        if (!text[i + 1] || st) {
            free(text[i + 1]);
            continue;                          /* deleted there, or not yet benched */
        }
        char what[SB_PATH_MAX + 96];
        snprintf(what, sizeof what, "%s/%s.csv at %.12s", folder, algo[i], c->commit);
        csv[n].algo = algo[i];
        if (!(st = rows_from_text(text[i + 1], what, &csv[n].rows, err)))
            n++;
        free(text[i + 1]);
    }
    if (!st)
        st = visit(ctx, &snap, csv, n, err);
    csvs_free(csv, n);
    return st;
}

sb_status sb_history_walk_git(const char *results_root, const char *machine, int last, sb_history_visit visit,
                              void *ctx, sb_error *err)
{
    char folder[SB_PATH_MAX];
    sb_status st = sb_path(folder, err, "%s/%s", results_root, machine);
    commit_files *list = NULL;
    int n = 0;
    if (st || (st = git_commits(folder, &list, &n, err)))
        return st;
    /* the folder as it is now, when it holds what no commit does yet (a run
     * not yet committed): the last snapshot */
    char spec[SB_PATH_MAX + 8];
    snprintf(spec, sizeof spec, "./%s/", folder);
    char *argv[] = { "git", "status", "--porcelain", "--untracked-files=all", "--", spec, NULL };
    char *changed = sb_git_output(argv);
    int tree = changed && changed[0];
    free(changed);
    int first = last > 0 && last < n + tree ? n + tree - last : 0;
    for (int i = first; i < n && !st; i++)
        st = git_snapshot(folder, &list[i], i == first, visit, ctx, err);
    if (!st && tree)
        st = set_snapshot(folder, "working tree", visit, ctx, err);
    free(list);
    return st;
}

/* ---- folders ---- */

/* A folder's snapshot, under label (NULL: the folder's name). */
static sb_status set_snapshot(const char *dir, const char *label, sb_history_visit visit, void *ctx,
                              sb_error *err)
{
    sb_history_snap snap;
    memset(&snap, 0, sizeof snap);
    snprintf(snap.label, sizeof snap.label, "%s", label ? label : dir);
    char path[SB_PATH_MAX];
    sb_status st = sb_path(path, err, "%s/env.json", dir);
    if (st)
        return st;
    char *env = sb_read_text(path);
    if (!env)
        return sb_fail(err, SB_ERR_USAGE, "%s: not a result set (no env.json)", dir);
    env_of(env, &snap);
    sb_json_get(env, "date", snap.date, sizeof snap.date);
    free(env);
    sb_history_csv csv[64];
    int n = 0;
    for (int i = 0; i < sb_algo_count() && n < 64 && !st; i++) {
        const char *algo = sb_algo_at(i)->name;
        if ((st = sb_path(path, err, "%s/%s.csv", dir, algo)) || access(path, F_OK) != 0)
            continue;
        csv[n].algo = algo;
        if (!(st = sb_rows_read_csv(path, &csv[n].rows, err)))
            n++;
    }
    if (!st)
        st = visit(ctx, &snap, csv, n, err);
    csvs_free(csv, n);
    return st;
}

sb_status sb_history_walk_sets(const char *const *dirs, int n, sb_history_visit visit, void *ctx, sb_error *err)
{
    sb_status st = SB_OK;
    for (int i = 0; i < n && !st; i++)
        st = set_snapshot(dirs[i], NULL, visit, ctx, err);
    return st;
}
