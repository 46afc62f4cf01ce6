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

/* One side of an edge: the texts of its files one after another, and the
 * kind of each line, each file's read on its own (so each opening comment
 * is a header). */
typedef struct edge_side {
    int marked;            /* each file after a line "// ==== NAME" (a reader's diff), its kind blank */
    char *text;
    size_t len;
    enum lesson_line_kind kinds[MAX_LINES];
    int lines;
} edge_side;

static int side_add(edge_side *side, const char *path)
{
    char *text = sb_read_text(path);
    if (!text)
        return 0;
    const char *slash = strrchr(path, '/');
    char mark[NAME_MAX + 16] = "";
    if (side->marked)
        snprintf(mark, sizeof mark, "%s %s\n", LESSON_FILE_MARK, slash ? slash + 1 : path);
    size_t n = strlen(text), m = strlen(mark);
    int newline = n > 0 && text[n - 1] != '\n';
    char *grown = realloc(side->text, side->len + m + n + 2);
    if (grown) {
        side->text = grown;
        memcpy(side->text + side->len, mark, m);
        side->len += m;
        if (m && side->lines < MAX_LINES)
            side->kinds[side->lines++] = LESSON_BLANK;   /* the mark counts for nothing */
        memcpy(side->text + side->len, text, n);
        side->len += n;
        if (newline)
            side->text[side->len++] = '\n';
        side->text[side->len] = '\0';
        side->lines += lesson_line_kinds(text, side->kinds + side->lines, MAX_LINES - side->lines);
    }
    free(text);
    return grown != NULL;
}

/* Whether the text of a side includes the header at `path` ("#include
 * \"NAME\"" for its file name). */
static int side_includes(const edge_side *side, const char *path)
{
    const char *slash = strrchr(path, '/');
    char needle[PATH_MAX];
    snprintf(needle, sizeof needle, "#include \"%s\"", slash ? slash + 1 : path);
    return side->text && strstr(side->text, needle) != NULL;
}

static sb_status side_write(const edge_side *side, char *path, sb_error *err)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return sb_fail(err, SB_ERR_IO, "a scratch file for diff: %s", strerror(errno));
    size_t left = side->len;
    for (const char *p = side->text; left > 0;) {
        ssize_t w = write(fd, p, left);
        if (w <= 0) {
            close(fd);
            unlink(path);
            return sb_fail(err, SB_ERR_IO, "a scratch file for diff: %s", strerror(errno));
        }
        p += w, left -= (size_t)w;
    }
    close(fd);
    return SB_OK;
}

/* The counts of `diff -u` of one side against the other. */
static sb_status share_of_sides(const edge_side *old, const edge_side *new, lesson_share *s, sb_error *err)
{
    char a[] = "/tmp/segbench-share-XXXXXX", b[] = "/tmp/segbench-share-XXXXXX", out[] = "/tmp/segbench-share-XXXXXX";
    sb_status st = side_write(old, a, err);
    if (!st && (st = side_write(new, b, err)) != SB_OK)
        unlink(a);
    if (st)
        return st;
    int fd = mkstemp(out), code = -1;
    char *diff = NULL;
    if (fd >= 0) {
        close(fd);
        char *const argv[] = { "diff", "-u", a, b, NULL };
        code = sb_spawn(argv, NULL, out);
        diff = code == 0 || code == 1 ? sb_read_text(out) : NULL;
        unlink(out);
    }
    unlink(a);
    unlink(b);
    if (diff)
        lesson_share_of_diff(diff, old->kinds, old->lines, new->kinds, new->lines, s);
    else if (fd < 0)
        st = sb_fail(err, SB_ERR_IO, "a scratch file for diff: %s", strerror(errno));
    else
        st = sb_fail(err, SB_ERR_IO, "diff -u failed%s", code == 127 ? " (is diff installed?)" : "");
    free(diff);
    return st;
}

/* The rung's side: those of the parent's headers lent[0..nl) that its
 * file or its own headers own[0..no) include, then its file, then its
 * own headers. */
static int rung_side(edge_side *side, const char *file, char (*own)[PATH_MAX], int no, char (*lent)[PATH_MAX], int nl)
{
    edge_side *probe = calloc(1, sizeof *probe);
    int ok = probe && side_add(probe, file);
    for (int h = 0; h < no && ok; h++)
        ok = side_add(probe, own[h]);
    for (int h = 0; h < nl && ok; h++)
        if (side_includes(probe, lent[h]))
            ok = side_add(side, lent[h]);
    ok = ok && side_add(side, file);
    for (int h = 0; h < no && ok; h++)
        ok = side_add(side, own[h]);
    if (probe)
        free(probe->text);
    free(probe);
    return ok;
}

/* The two sides of an edge (lesson_files_share), marked or not. */
static sb_status edge_sides(const char *parent_file, const char *rung_file, edge_side *old, edge_side *new,
                            sb_error *err)
{
    /* The parent's side: the headers it lends, then its file.  The rung's:
     * those of them it includes, then its file and the headers it lends.
     * So a kernel moved into a header, or a header both sides include,
     * is not counted as changed; only what differs is. */
    char lent[8][PATH_MAX], own[8][PATH_MAX];
    int nl = lesson_own_headers(parent_file, lent, 8), no = lesson_own_headers(rung_file, own, 8);
    int ok = 1;
    for (int h = 0; h < nl && ok; h++)
        ok = side_add(old, lent[h]);
    ok = ok && side_add(old, parent_file) && rung_side(new, rung_file, own, no, lent, nl);
    return ok ? SB_OK
              : sb_fail(err, SB_ERR_IO, "the sources of %s and %s could not be read", parent_file, rung_file);
}

sb_status lesson_files_share(const char *parent_file, const char *rung_file, lesson_share *s, sb_error *err)
{
    *s = (lesson_share){ 0, 0, 0, 0, 0 };
    if (strcmp(parent_file, rung_file) == 0)
        return SB_OK;                             /* a file that registers both: no diff */
    edge_side *old = calloc(2, sizeof *old), *new = old + 1;
    if (!old)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory for the edge %s", rung_file);
    sb_status st = edge_sides(parent_file, rung_file, old, new, err);
    if (!st)
        st = share_of_sides(old, new, s, err);
    free(old->text);
    free(new->text);
    free(old);
    return st;
}

sb_status lesson_sides_write(const char *parent_file, const char *rung_file, char *old_path, char *new_path,
                             sb_error *err)
{
    edge_side *old = calloc(2, sizeof *old), *new = old + 1;
    if (!old)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory for the edge %s", rung_file);
    old->marked = new->marked = 1;
    sb_status st = edge_sides(parent_file, rung_file, old, new, err);
    if (!st && (st = side_write(old, old_path, err)) == SB_OK && (st = side_write(new, new_path, err)) != SB_OK)
        unlink(old_path);
    free(old->text);
    free(new->text);
    free(old);
    return st;
}

int lesson_edge_share(const sb_variant *v, lesson_share *s, sb_error *err)
{
    *s = (lesson_share){ 0, 0, 0, 0, 0 };
    const sb_variant *parent = v->parent ? sb_variant_find(v->algo, v->parent) : NULL;
    char a[PATH_MAX], b[PATH_MAX];
    if (!parent || !lesson_source_path(parent->file, a, sizeof a) || !lesson_source_path(v->file, b, sizeof b))
        return 0;                                 /* a root, a student's rung, or no source here */
    return lesson_files_share(a, b, s, err) ? -1 : 1;
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
