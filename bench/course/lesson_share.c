/* lesson_share.c - the idea's share of each lesson's diff (lesson_share.h). */
#include "course/lesson_share.h"

#include "base/files.h"
#include "course/lessons.h"
#include "variants/registry.h"

#include "segbench/spawn.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_LINES = 8192 };

static int starts(const char *line, const char *word) { return strncmp(line, word, strlen(word)) == 0; }

int lesson_line_kinds(const char *text, enum lesson_line_kind *kinds, int max)
{
    static const char *const registering[] = { "SB_VARIANT(",      "SB_RUNG(",     "SB_CUDA_RUNG(",
                                                "MS_STEP_PREPARE(", "GC_CUDA_OPS(", "SLIC_STEP_PREPARE(" };
    int n = 0, seen_code = 0, depth = 0;          /* depth > 0: inside a registration's parentheses */
    for (const char *line = text; line && *line && n < max; n++) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *s = line + strspn(line, " \t");
        enum lesson_line_kind k = LESSON_IDEA;
        int registration = depth > 0;
        for (size_t i = 0; i < sizeof registering / sizeof registering[0] && !registration; i++)
            registration = starts(line, registering[i]);
        if (s >= line + len)
            k = LESSON_BLANK;
        else if (registration) {
            k = LESSON_REGISTRATION;
            for (const char *c = line; c < line + len; c++)
                depth += (*c == '(') - (*c == ')');
        } else if (starts(s, "#include") || starts(s, "#ifndef SEGBENCH_") || starts(s, "#define SEGBENCH_") ||
                   (starts(s, "#endif") && len < 8))
            k = LESSON_BOILERPLATE;
        else if (!seen_code && (starts(s, "/*") || starts(s, "*")))
            k = LESSON_HEADER;                    /* the opening comment */
        if (k == LESSON_BOILERPLATE || k == LESSON_IDEA || k == LESSON_REGISTRATION)
            seen_code = 1;
        kinds[n] = k;
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* "@@ -a,b +c,d @@": the first line numbers of the two sides. */
static int hunk_start(const char *line, int *old_at, int *new_at)
{
    return sscanf(line, "@@ -%d%*[^+]+%d", old_at, new_at) == 2;
}

static void count(lesson_share *s, enum lesson_line_kind k)
{
    if (k == LESSON_BLANK)
        return;
    s->changed++;
    s->idea += k == LESSON_IDEA;
    s->header += k == LESSON_HEADER;
    s->boilerplate += k == LESSON_BOILERPLATE;
    s->registration += k == LESSON_REGISTRATION;
}

void lesson_share_of_diff(const char *diff, const enum lesson_line_kind *old_kinds, int old_lines,
                          const enum lesson_line_kind *new_kinds, int new_lines, lesson_share *s)
{
    int old_at = 0, new_at = 0;
    for (const char *line = diff; line && *line;) {
        const char *end = strchr(line, '\n');
        if (starts(line, "@@ "))
            hunk_start(line, &old_at, &new_at);
        else if (starts(line, "--- ") || starts(line, "+++ "))
            ;                                     /* the file names */
        else if (line[0] == '-') {
            count(s, old_at >= 1 && old_at <= old_lines ? old_kinds[old_at - 1] : LESSON_IDEA);
            old_at++;
        } else if (line[0] == '+') {
            count(s, new_at >= 1 && new_at <= new_lines ? new_kinds[new_at - 1] : LESSON_IDEA);
            new_at++;
        } else if (line[0] == ' ') {
            old_at++;
            new_at++;
        }
        line = end ? end + 1 : NULL;
    }
}

/* The kinds of a file's lines (0 lines when it cannot be read). */
static int kinds_of_file(const char *path, enum lesson_line_kind *kinds)
{
    char *text = sb_read_text(path);
    int n = text ? lesson_line_kinds(text, kinds, MAX_LINES) : 0;
    free(text);
    return n;
}

/* One file's changes against another (old NULL: the file whole, as new). */
static sb_status share_of_files(const char *old_path, const char *new_path, lesson_share *s, sb_error *err)
{
    enum lesson_line_kind *old_kinds = malloc(2 * MAX_LINES * sizeof *old_kinds), *new_kinds = old_kinds + MAX_LINES;
    if (!old_kinds)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory reading %s", new_path);
    int old_lines = old_path ? kinds_of_file(old_path, old_kinds) : 0, new_lines = kinds_of_file(new_path, new_kinds);
    if (!old_path) {
        for (int i = 0; i < new_lines; i++)
            count(s, new_kinds[i]);
        free(old_kinds);
        return SB_OK;
    }
    char out[] = "/tmp/segbench-share-XXXXXX";
    int fd = mkstemp(out), code = -1;
    char *diff = NULL;
    if (fd >= 0) {
        close(fd);
        char *const argv[] = { "diff", "-u", (char *)old_path, (char *)new_path, NULL };
        code = sb_spawn(argv, NULL, out);
        diff = code == 0 || code == 1 ? sb_read_text(out) : NULL;
        unlink(out);
    }
    sb_status st = SB_OK;
    if (diff)
        lesson_share_of_diff(diff, old_kinds, old_lines, new_kinds, new_lines, s);
    else if (fd < 0)
        st = sb_fail(err, SB_ERR_IO, "a scratch file for diff: %s", strerror(errno));
    else
        st = sb_fail(err, SB_ERR_IO, "diff -u %s %s failed%s", old_path, new_path,
                     code == 127 ? " (is diff installed?)" : "");
    free(diff);
    free(old_kinds);
    return st;
}

int lesson_edge_share(const sb_variant *v, lesson_share *s, sb_error *err)
{
    *s = (lesson_share){ 0, 0, 0, 0, 0 };
    const sb_variant *parent = v->parent ? sb_variant_find(v->algo, v->parent) : NULL;
    char a[PATH_MAX], b[PATH_MAX];
    if (!parent || !lesson_source_path(parent->file, a, sizeof a) || !lesson_source_path(v->file, b, sizeof b))
        return 0;                                 /* a root, a student's rung, or no source here */
    sb_status st = strcmp(a, b) == 0 ? SB_OK : share_of_files(a, b, s, err);
    char headers[8][PATH_MAX];
    int n = st ? 0 : lesson_own_headers(b, headers, 8);
    for (int h = 0; h < n && !st; h++)
        st = share_of_files(NULL, headers[h], s, err);
    return st ? -1 : 1;
}

sb_status lesson_share_report(const char *algo, int goal, FILE *fp, sb_error *err)
{
    int edges = 0, reached = 0;
    lesson_share all = { 0, 0, 0, 0, 0 };
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strncmp(v->backend, "cuda", 4) != 0 || (algo && strcmp(v->algo, algo) != 0))
            continue;
        lesson_share s;
        int got = lesson_edge_share(v, &s, err);
        if (got < 0)
            return err->status ? err->status : SB_ERR_IO;
        if (!got)
            continue;
        int share = s.changed ? (int)(100.0 * s.idea / s.changed + 0.5) : 100;
        fprintf(fp, "%-32s %5d changed %5d idea %4d %%   header %3d, registration %3d, includes %2d%s\n", v->who,
                s.changed, s.idea, share, s.header, s.registration, s.boilerplate,
                share >= goal ? "" : "  (below the goal)");
        edges++;
        reached += share >= goal;
        all.changed += s.changed;
        all.idea += s.idea;
        all.header += s.header;
        all.registration += s.registration;
        all.boilerplate += s.boilerplate;
    }
    if (!edges)
        return sb_fail(err, SB_ERR_USAGE, "no CUDA lesson%s%s with its source here", algo ? " of " : "",
                       algo ? algo : "");
    fprintf(fp, "%d of %d edges at %d %% or more of idea; all edges: %d of %d changed lines (%.0f %%); the rest: "
                "header %d, registration %d, includes %d\n",
            reached, edges, goal, all.idea, all.changed, all.changed ? 100.0 * all.idea / all.changed : 100.0, all.header,
            all.registration, all.boilerplate);
    return SB_OK;
}
