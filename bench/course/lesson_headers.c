/* lesson_headers.c - every CUDA and pthread rung file's opening comment
 * names its file and the rung it grows from, and holds no numbers
 * (lesson_headers.h).
 *
 * The words are the author's, and checked: the first line names the file
 * ("/\* 8_lastblock.cu - ..."), and a rung on its tree's main line (the
 * path from the root to the rung the tree declares its top,
 * SB_LADDER_TOP) says "Grows from PARENT", a branch "A branch of PARENT",
 * for every SB_RUNG line the file has.  What an edge bought lives in the
 * generated lessons pages (report/<machine>/lessons-<algo>.md) with the
 * run that measured it: a header's numbers went stale with every run. */
#define _DEFAULT_SOURCE
#include "course/lesson_headers.h"

#include "base/files.h"
#include "course/lessons.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The mark of the numbers the headers held until 2026-11-29 (base/code_id.c
 * still leaves such a block out of a file's identity, for older commits). */
#define MEASURED_MARK " * Measured (the run of record"

/* The result rows of every algorithm with rungs, read once. */
typedef struct rows_cache {
    const char *algo[32];
    sb_rows rows[32];
    int have[32], n;
} rows_cache;

static const sb_rows *rows_of(rows_cache *rc, const char *dir, const char *algo)
{
    for (int i = 0; i < rc->n; i++)
        if (strcmp(rc->algo[i], algo) == 0)
            return rc->have[i] ? &rc->rows[i] : NULL;
    if (rc->n == 32)
        return NULL;
    char csv[SB_PATH_MAX];
    sb_error ignored;
    int i = rc->n++;
    rc->algo[i] = algo;
    rc->have[i] = snprintf(csv, sizeof csv, "%s/%s.csv", dir, algo) < (int)sizeof csv &&
                  sb_rows_read_ladders(csv, &rc->rows[i], NULL, &ignored) == SB_OK;
    if (rc->have[i])
        lesson_rows_samples(dir, algo, &rc->rows[i]);
    return rc->have[i] ? &rc->rows[i] : NULL;
}

static void rows_cache_free(rows_cache *rc)
{
    for (int i = 0; i < rc->n; i++)
        if (rc->have[i])
            sb_rows_free(&rc->rows[i]);
}

/* The comment's words with each line break, its " * " and any run of
 * spaces as one space, so "Grows\n * from P" reads "Grows from P". */
static char *flattened(const char *comment, size_t len)
{
    char *out = malloc(len + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        char c = comment[i];
        if (c == '\n') {                         /* the next line's indent and its '*' go with it */
            while (i + 1 < len && (comment[i + 1] == ' ' || comment[i + 1] == '\t'))
                i++;
            if (i + 1 < len && comment[i + 1] == '*' && !(i + 2 < len && comment[i + 2] == '/'))
                i++;
            c = ' ';
        }
        if (c == ' ' || c == '\t') {
            if (o > out && o[-1] != ' ')
                *o++ = ' ';
            continue;
        }
        *o++ = c;
    }
    *o = '\0';
    return out;
}

/* The words: "Grows from P" on the main line, "A branch of P" off it, in
 * the opening comment (the text before its first "*\/"). */
static void check_words(const char *file, const char *comment, size_t len, const char *dir, rows_cache *rc,
                        lesson_header_report *r)
{
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->file, file) != 0 || !v->parent || sb_is_student_variant(v->name))
            continue;
        char grows[120], branch[120];
        snprintf(grows, sizeof grows, "Grows from %s", v->parent);
        snprintf(branch, sizeof branch, "A branch of %s", v->parent);
        char *text = flattened(comment, len);
        int says_grows = text && strstr(text, grows), says_branch = text && strstr(text, branch);
        int against = text && strstr(text, "\n * Against ");     /* the old words, "Against PARENT: ..." */
        free(text);
        if (against) {
            r->wrong_words++;
            if (r->fp)
                fprintf(r->fp, "%s: says \"Against ...\": a rung says what it grows from (or branches off)\n", file);
        }
        /* the main line is declared (SB_LADDER_TOP), or else the path to
         * the fastest rung at its first stage */
        const sb_algo *a = sb_algo_find(v->algo);
        const char *stage = NULL;
        for (int st = 0; a && st < a->stage_count && !stage; st++)
            if (v->stages & (1u << st))
                stage = a->stages[st];
        const sb_rows *rows = rows_of(rc, dir, v->algo);
        int main_line = stage && lesson_on_main_line(v, rows, stage);
        const char *want = main_line ? grows : branch;
        if (!(main_line ? says_grows : says_branch)) {
            r->wrong_words++;
            if (r->fp)
                fprintf(r->fp, "%s: %s's header should say \"%s\" (%s)\n", file, v->who, want,
                        main_line ? "on its tree's main line" : "a branch: off its tree's main line");
        }
    }
}

/* The first line names the file: "/\* NAME - ...". */
static int names_its_file(const char *text, const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t n = strlen(base);
    return strncmp(text, "/* ", 3) == 0 && strncmp(text + 3, base, n) == 0 && strncmp(text + 3 + n, " - ", 3) == 0;
}

/* The section "## NAME" of the LESSONS.md beside the rung file at path,
 * malloc'd, up to the next "## " (NULL when there is none, or only blank
 * lines under its heading). */
char *lesson_long_text(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char notes[SB_PATH_MAX], mark[SB_PATH_MAX + 8];
    if (snprintf(notes, sizeof notes, "%.*sLESSONS.md", slash ? (int)(slash - path + 1) : 0, path) >= (int)sizeof notes ||
        snprintf(mark, sizeof mark, "\n## %s\n", base) >= (int)sizeof mark)
        return NULL;
    char *text = sb_read_text(notes), *section = NULL;
    const char *at = text ? strstr(text, mark) : NULL;
    if (at) {
        at += strlen(mark);
        at += strspn(at, "\n");                  /* the blank lines under its heading */
        const char *next = at[0] == '#' && at[1] == '#' && at[2] == ' ' ? at - 1 : strstr(at, "\n## ");
        size_t n = next ? (size_t)(next - at + 1) : strlen(at);
        while (n && at[n - 1] == '\n')
            n--;
        section = n ? strndup(at, n) : NULL;   /* a heading with nothing under it is no lesson */
    }
    free(text);
    return section;
}

/* A CUDA rung's header keeps to LESSON_HEADER_LINES lines, and its whole
 * lesson is its section of the LESSONS.md beside it. */
static void check_cuda_lesson(const char *file, const char *text, const char *end, lesson_header_report *r)
{
    int lines = 1;
    for (const char *c = text; c < end; c++)
        lines += *c == '\n';
    if (lines > LESSON_HEADER_LINES) {
        r->long_header++;
        if (r->fp)
            fprintf(r->fp, "%s: its header is %d lines: it keeps the idea, the parent and why in %d at most, and the "
                           "whole lesson goes in LESSONS.md beside it\n", file, lines, LESSON_HEADER_LINES);
    }
    char path[SB_PATH_MAX];
    char *lesson = lesson_source_path(file, path, sizeof path) ? lesson_long_text(path) : NULL;
    if (!lesson) {
        r->no_lesson++;
        if (r->fp)
            fprintf(r->fp, "%s: LESSONS.md beside it has no section \"## %s\"\n", file, strrchr(file, '/') + 1);
    }
    free(lesson);
}

/* One rung file's opening comment, checked. */
static void check_file(const char *file, const char *text, const char *dir, rows_cache *rc, lesson_header_report *r)
{
    const char *end = strncmp(text, "/*", 2) == 0 ? strstr(text, "*/") : NULL;
    r->files++;
    if (!end) {
        r->no_comment++;
        if (r->fp)
            fprintf(r->fp, "%s: no opening comment (/* ... */) to hold its lesson\n", file);
        return;
    }
    check_words(file, text, (size_t)(end - text), dir, rc, r);
    if (!names_its_file(text, file)) {
        r->wrong_words++;
        if (r->fp)
            fprintf(r->fp, "%s: its opening comment's first line should name its file (\"/* NAME - ...\")\n", file);
    }
    if (strncmp(file, "impl_cuda/", 10) == 0)
        check_cuda_lesson(file, text, end, r);
    const char *numbers = strstr(text, "\n" MEASURED_MARK);
    if (numbers && numbers < end) {
        r->numbers++;
        if (r->fp)
            fprintf(r->fp, "%s: its header holds measured numbers: they belong in the lessons pages\n", file);
    }
}

sb_status lesson_header_check(const char *file, const char *text, const char *dir, lesson_header_report *r,
                              sb_error *err)
{
    rows_cache *rc = calloc(1, sizeof *rc);
    if (!rc)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    check_file(file, text, dir, rc, r);
    rows_cache_free(rc);
    free(rc);
    return SB_OK;
}

sb_status lesson_headers(const char *dir, lesson_header_report *r, sb_error *err)
{
    rows_cache *rc = calloc(1, sizeof *rc);
    if (!rc)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = SB_OK;
    const char *done[256];
    int ndone = 0;
    for (int i = 0; i < sb_variant_count() && !st; i++) {
        const sb_variant *v = sb_variant_at(i);
        if (!v->parent || sb_is_student_variant(v->name) ||
            (strncmp(v->backend, "cuda-", 5) != 0 && strcmp(v->backend, "pthread") != 0))
            continue;
        int seen = 0;
        for (int k = 0; k < ndone && !seen; k++)
            seen = strcmp(done[k], v->file) == 0;
        if (seen || ndone == 256)
            continue;
        done[ndone++] = v->file;
        char path[SB_PATH_MAX], *text = NULL;
        size_t len = 0;
        if (!lesson_source_path(v->file, path, sizeof path)) {
            st = sb_fail(err, SB_ERR_IO, "%s: source not found (run from the repository)", v->file);
            break;
        }
        if ((st = sb_file_read(path, 1 << 22, &text, &len, err)))
            break;
        check_file(v->file, text, dir, rc, r);
        free(text);
    }
    rows_cache_free(rc);
    free(rc);
    return st;
}
