/* lesson_headers.c - every CUDA and pthread rung file's opening comment
 * names the rung it grows from and states what its edge bought, from the
 * run of record (lesson_headers.h).
 *
 * The numbers are written, never typed: a block at the end of the
 * opening comment,
 *
 *      * Measured (the run of record: h100-80gb-hbm3, run ..., commit ...;
 *      * written by make lesson-headers, checked by make test):
 *      *   integral sum at synth-3840x2160: kernel 0.0293 -> 0.0249 ms (1.18x), per frame ...
 *      *\/
 *
 * is rewritten from the result set, and the check says which files are
 * behind it.  The words are the author's, and checked: a rung on its
 * tree's main line (the path from the root to the rung the tree declares
 * its top, SB_LADDER_TOP) says "Grows from PARENT", a branch "A branch of
 * PARENT", for every SB_RUNG line the file has. */
#define _DEFAULT_SOURCE
#include "course/lesson_headers.h"

#include "base/files.h"
#include "course/lessons.h"
#include "io/env_json.h"

#include "segbench/atomic_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The measured block for one file: a line per edge and stage.  The run it
 * names is the one that measured the file's algorithm (a set benched one
 * algorithm at a time holds several runs; env.json names the last). */
static void measured_block(FILE *fp, const char *file, const char *dir, const sb_run_info *ri, rows_cache *rc)
{
    const char *run_id = ri->run_id, *commit = ri->commit;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        const sb_rows *rows = strcmp(v->file, file) == 0 ? rows_of(rc, dir, v->algo) : NULL;
        if (rows && rows->count > 0) {
            run_id = rows->row[0].run_id;
            commit = rows->row[0].commit;
            break;
        }
    }
    fprintf(fp, "%s: %s, run %s, commit %.7s;\n * written by make lesson-headers, checked by make test):\n",
            MEASURED_MARK, ri->machine_id, run_id, commit);
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->file, file) != 0 || !v->parent || sb_is_student_variant(v->name))
            continue;
        const sb_algo *a = sb_algo_find(v->algo);
        const sb_rows *rows = rows_of(rc, dir, v->algo);
        for (int s = 0; a && s < a->stage_count; s++) {
            if (!(v->stages & (1u << s)))
                continue;
            lesson_edge e;
            lesson_edge_measure(&e, v, rows, dir, a->stages[s]);
            if (!e.image[0] || !e.kernel_ms || !e.parent_kernel_ms) {
                fprintf(fp, " *   %s %s (%s -> %s): not both in the run\n", v->algo, a->stages[s], v->parent,
                        v->name);
                continue;
            }
            char g[32], gf[32];
            lesson_gain_judged(&e, g, sizeof g);
            lesson_frame_gain(&e, gf, sizeof gf);
            fprintf(fp, " *   %s %s at %s (%s -> %s):\n *     kernel %.4g -> %.4g ms (%s), per frame %.4g -> %.4g ms (%s)\n",
                    v->algo, a->stages[s], e.image, v->parent, v->name, e.parent_kernel_ms, e.kernel_ms, g,
                    e.parent_frame_ms, e.frame_ms, gf);
        }
    }
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
        char *text = strndup(comment, len);
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

/* The file with its measured block as it should be: NULL when it has no
 * opening comment. */
static char *with_block(const char *text, const char *block)
{
    if (strncmp(text, "/*", 2) != 0)
        return NULL;
    const char *end = strstr(text, "\n */");
    if (!end)
        return NULL;
    const char *cut = strstr(text, "\n" MEASURED_MARK);
    if (!cut || cut > end)
        cut = end;
    else if (cut - text >= 3 && strncmp(cut - 3, "\n *", 3) == 0)
        cut -= 3;                                   /* the blank line before the old block goes too */
    size_t head = (size_t)(cut - text);
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    if (!fp)
        return NULL;
    fwrite(text, 1, head, fp);
    fprintf(fp, "\n *\n%s", block);
    fputs(end + 1, fp);                            /* " *\/" and the rest */
    fclose(fp);
    return out;
}

sb_status lesson_headers(const char *dir, int write, lesson_header_report *r, sb_error *err)
{
    sb_run_info ri;
    if (!sb_run_info_read(dir, &ri))
        return sb_fail(err, SB_ERR_IO, "%s: no result set there (env.json)", dir);
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
        char path[SB_PATH_MAX], *text = NULL, *block = NULL, *want = NULL;
        size_t len = 0, block_len = 0;
        if (!lesson_source_path(v->file, path, sizeof path)) {
            st = sb_fail(err, SB_ERR_IO, "%s: source not found (run from the repository)", v->file);
            break;
        }
        if ((st = sb_file_read(path, 1 << 22, &text, &len, err)))
            break;
        FILE *fp = open_memstream(&block, &block_len);
        if (fp) {
            measured_block(fp, v->file, dir, &ri, rc);
            fclose(fp);
        }
        const char *end = strstr(text, "\n */");
        r->files++;
        if (end)
            check_words(v->file, text, (size_t)(end - text), dir, rc, r);
        want = block ? with_block(text, block) : NULL;
        if (!want) {
            r->no_comment++;
            if (r->fp)
                fprintf(r->fp, "%s: no opening comment (/* ... */) to hold its lesson\n", v->file);
        } else if (strcmp(want, text) != 0) {
            if (write) {
                st = sb_atomic_write_text(path, want, err);
                r->written++;
            } else {
                r->stale++;
                if (r->fp)
                    fprintf(r->fp, "%s: its measured block is not the run of record's (make lesson-headers)\n",
                            v->file);
            }
        }
        free(want);
        free(block);
        free(text);
    }
    rows_cache_free(rc);
    free(rc);
    return st;
}
