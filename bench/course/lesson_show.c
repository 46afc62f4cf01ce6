/* lesson_show.c - `segbench lesson` (lesson_show.h): an edge or a tree,
 * from the rungs' SB_RUNG lines (variant.h) and a result set. */
#include "course/lesson_show.h"

#include "base/files.h"
#include "course/lesson_headers.h"
#include "course/lesson_share.h"
#include "course/lessons.h"
#include "variants/names.h"
#include "variants/renames.h"
#include "io/env_json.h"
#include "io/result_set.h"

#include "segbench/spawn.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The edge as one diff on stdout: the parent's code against the rung's,
 * each side its file and the headers it lends, the rung's with those of
 * the parent's it includes (lesson_sides_write), so a kernel moved into a
 * header shows only where it changed; each hunk names the file it is in
 * (diff -F on the sides' file marks).  diff runs directly (no shell: the
 * names are never parsed). */
static sb_status show_sides(const sb_variant *parent, const sb_variant *v, const char *a, const char *b,
                            sb_error *err)
{
    char old_path[] = "/tmp/segbench-lesson-XXXXXX", new_path[] = "/tmp/segbench-lesson-XXXXXX";
    sb_status st = lesson_sides_write(a, b, old_path, new_path, err);
    if (st)
        return st;
    char old_label[PATH_MAX + 64], new_label[PATH_MAX + 64];
    snprintf(old_label, sizeof old_label, "%s (%s, with the headers it lends)", parent->file, parent->name);
    snprintf(new_label, sizeof new_label, "%s (%s, with the headers it lends and the parent's it includes)", v->file,
             v->name);
    fflush(stdout);
    char *const argv[] = { "diff", "-u", "-F", "^" LESSON_FILE_MARK, "--label", old_label, "--label", new_label,
                           old_path, new_path, NULL };
    int code = sb_spawn(argv, NULL, NULL);
    unlink(old_path);
    unlink(new_path);
    if (code < 0 || code > 1)                     /* diff: 0 same, 1 different, 2 trouble */
        return sb_fail(err, SB_ERR_IO, "diff -u of %s against %s failed%s", parent->file, v->file,
                       code == 127 ? " (is diff installed?)" : "");
    return SB_OK;
}

static void print_edge(const sb_variant *v, const sb_rows *rows, const char *dir, const char *stage)
{
    lesson_edge e;
    lesson_edge_measure(&e, v, rows, dir, stage);
    char g[32], gf[32], census[200];
    lesson_gain_judged(&e, g, sizeof g);
    lesson_frame_gain(&e, gf, sizeof gf);
    lesson_census_text(&e, census, sizeof census);
    if (!e.image[0]) {
        printf("  %-8s no rows in the result set\n", stage);
        return;
    }
    if (!e.kernel_ms)                             /* the parent measured, the rung not (yet) */
        printf("  %-8s %s: this rung has no row here (its parent: kernel %.4g ms, per frame %.4g ms)\n", stage,
               e.image, e.parent_kernel_ms, e.parent_frame_ms);
    else if (!e.parent || !e.parent_kernel_ms)
        printf("  %-8s %s: kernel %.4g ms, per frame %.4g ms%s%s%s\n", stage, e.image, e.kernel_ms, e.frame_ms,
               e.parent ? " (the parent has no row here)" : "", census[0] ? "; census: " : "", census);
    else
        printf("  %-8s %s: kernel %.4g -> %.4g ms (%s), per frame %.4g -> %.4g ms (%s)%s%s\n", stage, e.image,
               e.parent_kernel_ms, e.kernel_ms, g, e.parent_frame_ms, e.frame_ms, gf, census[0] ? "; census: " : "",
               census);
}

/* Whose numbers these are: the set, its machine, commit and run, and --
 * for the default -- that it is the reference machine's run of record,
 * not a measurement of this machine. */
static void print_numbers_from(const char *dir, int asked)
{
    sb_run_info ri;
    if (!sb_run_info_read(dir, &ri)) {
        printf("numbers from %s\n", dir);
        return;
    }
    printf("numbers from %s: machine %s, commit %.7s, run %s%s\n", dir, ri.machine_id, ri.commit, ri.run_id,
           asked ? "" : " (the reference machine's run of record, not this machine; --results DIR reads another)");
}

/* The algorithm's whole tree, stage by stage. */
static void show_tree(const sb_algo *algo, const sb_rows *rows, const char *dir, const char *stage_name)
{
    int have_rows = rows != NULL;
    for (int s = 0; s < algo->stage_count; s++) {
        if (stage_name && strcmp(stage_name, algo->stages[s]) != 0)
            continue;
        printf("%s, stage %s: each rung under the rung it grows from; kernel median%s, gain over the parent\n\n",
               algo->name, algo->stages[s], have_rows ? "" : " (no result set here)");
        lesson_tree_print(stdout, algo->name, rows, dir, algo->stages[s]);
        printf("\n");
    }
    printf("segbench lesson %s/RUNG prints one edge with its diff.\n", algo->name);
}

/* The rung's whole lesson, its section of the LESSONS.md beside its file
 * (lesson_headers.h), indented under "the lesson:"; nothing when there is
 * none (a pthread rung keeps its lesson in its header). */
static void print_long_text(const sb_variant *v)
{
    char path[PATH_MAX];
    char *text = lesson_source_path(v->file, path, sizeof path) ? lesson_long_text(path) : NULL;
    if (!text)
        return;
    const char *slash = strrchr(v->file, '/');
    int folder = slash ? (int)(slash - v->file + 1) : 0;
    printf("the lesson (%.*sLESSONS.md, \"## %s\"):\n", folder, v->file, v->file + folder);
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        int n = end ? (int)(end - line) : (int)strlen(line);
        printf(n ? "  %.*s\n" : "\n", n, line);
        line = end ? end + 1 : NULL;
    }
    free(text);
}

/* One edge: the rung, its parent and idea, its gain at each stage, the
 * rungs that grow from it, then diff -u of the two files. */
static sb_status show_edge(const sb_algo *algo, const sb_variant *v, const sb_rows *rows, const char *dir,
                           const char *stage_name, int no_diff, sb_error *err)
{
    int have_rows = rows != NULL;
    const sb_variant *parent = v->parent ? sb_variant_find(algo->name, v->parent) : NULL;
    printf("%s  (%s)\n", v->who, v->file);
    if (v->formerly)
        printf("  was called %s in runs before the rename\n", v->formerly);
    if (parent)
        printf("grows from: %s  (%s)\n", parent->name, parent->file);
    else
        printf("a root: it grows from no rung\n");
    printf("idea: %s\n", v->idea);
    print_long_text(v);
    printf("gain over the parent%s\n", have_rows ? ":" : " (no result set here)");   /* whose: printed above */
    for (int s = 0; s < algo->stage_count && have_rows; s++)
        if ((!stage_name || strcmp(stage_name, algo->stages[s]) == 0) && (v->stages & (1u << s)))
            print_edge(v, rows, dir, algo->stages[s]);
    int kids = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *c = sb_variant_at(i);
        if (strcmp(c->algo, algo->name) == 0 && c->parent && strcmp(c->parent, v->name) == 0)
            printf("%s%s", kids++ ? ", " : "next: ", c->name);
    }
    if (kids)
        printf("\n");
    if (no_diff || !parent)
        return SB_OK;
    char a[PATH_MAX], b[PATH_MAX];
    if (!lesson_source_path(parent->file, a, sizeof a) || !lesson_source_path(v->file, b, sizeof b))
        return sb_fail(err, SB_ERR_IO, "%s: source not found (run from the repository, or pass --no-diff)",
                       lesson_source_path(parent->file, a, sizeof a) ? v->file : parent->file);
    printf("\n");
    if (strcmp(a, b) == 0) {
        printf("(the same file: %s registers both; the edge is in its code, not in a diff)\n", v->file);
        return SB_OK;
    }
    return show_sides(parent, v, a, b, err);
}

sb_status sb_lesson_show(const char *spec, const char *results, const char *stage_name, int no_diff, sb_error *err)
{
    char algo_name[64], rung_name[64] = "";
    const char *slash = strchr(spec, '/');
    snprintf(algo_name, sizeof algo_name, "%.*s", slash ? (int)(slash - spec) : (int)strlen(spec), spec);
    if (slash)
        snprintf(rung_name, sizeof rung_name, "%s", slash + 1);
    const sb_algo *algo = sb_algo_find(algo_name);
    if (!algo)
        return sb_fail(err, SB_ERR_USAGE, "unknown algorithm '%s' (segbench list names them)", algo_name);
    if (stage_name && sb_stage_find(algo, stage_name) < 0)
        return sb_fail(err, SB_ERR_USAGE, "--stage: %s has no stage '%s'", algo->name, stage_name);
    const sb_variant *v = NULL;
    if (slash) {
        v = sb_variant_find(algo->name, rung_name);
        if (!v)
            return sb_fail(err, SB_ERR_USAGE, "%s has no variant '%s' (segbench lesson %s shows its tree)", algo->name,
                           rung_name, algo->name);
        if (!v->idea[0])
            return sb_fail(err, SB_ERR_USAGE, "%s is not a rung of a ladder (only CUDA variants are; segbench "
                           "lesson %s shows the tree)", v->who, algo->name);
    }

    /* The numbers: --results, else the reference machine's set. */
    char dir[SB_PATH_MAX];
    if (results)
        snprintf(dir, sizeof dir, "%s", results);
    else
        sb_reference_results_dir("results", dir, sizeof dir);
    char csv[SB_PATH_MAX];
    sb_status st = sb_path(csv, err, "%s/%s.csv", dir, algo->name);
    if (st)
        return st;
    sb_rows rows;
    sb_error ignored;
    int have_rows = sb_rows_read_ladders(csv, &rows, NULL, &ignored) == SB_OK;
    if (have_rows)
        lesson_rows_samples(dir, algo->name, &rows);
    if (results && !have_rows)
        return sb_fail(err, SB_ERR_IO, "%s: no result rows for %s there", csv, algo->name);
    if (have_rows)
        print_numbers_from(dir, results != NULL);
    if (!v)
        show_tree(algo, have_rows ? &rows : NULL, dir, stage_name);
    else
        st = show_edge(algo, v, have_rows ? &rows : NULL, dir, stage_name, no_diff, err);
    if (have_rows)
        sb_rows_free(&rows);
    return st;
}

