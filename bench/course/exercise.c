/* exercise.c - exercise.h: student copies of rungs and their reference
 * solutions.  The lesson's code is found by a line diff (longest common
 * subsequence) of the rung's file against its parent's, registration
 * lines left out of it; an OpenMP variant's lesson is its pragmas. */
#define _DEFAULT_SOURCE
#include "course/exercise.h"
#include "variants/names.h"

#include "base/files.h"
#include "course/lessons.h"

#include "segbench/atomic_file.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TODO_MARK "// TODO(exercise part "
enum { MAX_LINES = 4000 };

/* ---- finding things ------------------------------------------------------------------------ */

const sb_variant *exercise_reference(const char *algo, const char *name)
{
    size_t n = strlen(SB_STUDENT_PREFIX);
    if (strncmp(name, SB_STUDENT_PREFIX, n) != 0)
        return NULL;
    return sb_variant_find(algo, name + n);
}

static int is_openmp(const sb_variant *v) { return strcmp(v->backend, "openmp") == 0; }

/* A rung that grows from v, or NULL. */
static const sb_variant *first_child(const sb_variant *v)
{
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *w = sb_variant_at(i);
        if (w->parent && strcmp(w->algo, v->algo) == 0 && strcmp(w->parent, v->name) == 0)
            return w;
    }
    return NULL;
}

const sb_variant *exercise_parent(const sb_variant *rung, char *why, size_t why_size)
{
    if (is_openmp(rung))
        return sb_reference_variant(sb_algo_find(rung->algo));
    if (strcmp(rung->backend, "cpu") == 0) {
        snprintf(why, why_size, "%s is the serial reference: every exercise is measured against it", rung->who);
        return NULL;
    }
    if (strcmp(rung->backend, "pthread") == 0 && !rung->parent) {
        const sb_variant *child = first_child(rung);
        snprintf(why, why_size, "%s has no exercise: a pthread variant's parallel code is spread over its "
                 "thread pool's calls; try %s/openmp%s%s%s", rung->who, rung->algo, child ? ", or " : "",
                 child ? child->who : "", child ? ", which grows from it" : "");
        return NULL;
    }
    const sb_variant *parent = rung->parent ? sb_variant_find(rung->algo, rung->parent) : NULL;
    if (!parent)
        snprintf(why, why_size, "%s is a root (%s): it grows from no rung, so there is no lesson to take out",
                 rung->who, rung->idea && rung->idea[0] ? rung->idea : "no SB_RUNG parent");
    else if (strcmp(parent->file, rung->file) == 0) {
        snprintf(why, why_size, "%s and its parent %s are registered by one file: the edge is not a diff",
                 rung->who, parent->name);
        return NULL;
    }
    return parent;
}

/* ---- a file as lines ----------------------------------------------------------------------- */

typedef struct text {
    char *buf;
    char *line[MAX_LINES];
    int n;
    unsigned char comment[MAX_LINES];   /* no code outside comments (or blank) */
    unsigned char reg[MAX_LINES];       /* part of an SB_VARIANT / SB_RUNG / SB_CUDA_RUNG statement */
} text;

/* What a line opening a registration statement opens (variant.h). */
enum statement_kind { NOT_A_STATEMENT, VARIANT_STATEMENT, RUNG_STATEMENT, CUDA_RUNG_STATEMENT };
static enum statement_kind statement_kind(const char *line)
{
    if (strncmp(line, "SB_VARIANT(", 11) == 0)
        return VARIANT_STATEMENT;
    if (strncmp(line, "SB_RUNG(", 8) == 0)
        return RUNG_STATEMENT;
    if (strncmp(line, "SB_CUDA_RUNG(", 13) == 0)
        return CUDA_RUNG_STATEMENT;
    return NOT_A_STATEMENT;
}

/* One step of a scan over C code: past an escape inside a string literal,
 * *p moves on; returns the character at *p when it is code outside every
 * string literal (not the quotes that open and close one), else 0. */
static char code_char(char **p, int *instr)
{
    if (*instr) {
        if (**p == '\\' && (*p)[1])
            (*p)++;
        else if (**p == '"')
            *instr = 0;
        return 0;
    }
    if (**p == '"') {
        *instr = 1;
        return 0;
    }
    return **p;
}

static sb_status text_read(const char *file, text *t, sb_error *err)
{
    memset(t, 0, sizeof *t);
    char path[PATH_MAX];
    if (!lesson_source_path(file, path, sizeof path))
        return sb_fail(err, SB_ERR_IO, "%s: source not found (run from the repository)", file);
    sb_status st = sb_file_read(path, 1u << 22, &t->buf, NULL, err);
    if (st)
        return st;
    for (char *p = t->buf; *p;) {
        if (t->n == MAX_LINES)
            return sb_fail(err, SB_ERR_LIMIT, "%s: more than %d lines", path, MAX_LINES);
        t->line[t->n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    /* comments: a block comment may span lines */
    int in_block = 0;
    for (int i = 0; i < t->n; i++) {
        int code = 0;
        for (const char *p = t->line[i]; *p; p++) {
            if (in_block) {
                if (p[0] == '*' && p[1] == '/') {
                    in_block = 0;
                    p++;
                }
            } else if (p[0] == '/' && p[1] == '*') {
                in_block = 1;
                p++;
            } else if (p[0] == '/' && p[1] == '/') {
                break;
            } else if (*p != ' ' && *p != '\t' && *p != '\r') {
                code = 1;
            }
        }
        t->comment[i] = !code;
    }
    /* registration statements: from a line opening with SB_VARIANT(,
     * SB_RUNG( or SB_CUDA_RUNG( to the line that closes its parentheses */
    for (int i = 0; i < t->n; i++) {
        if (statement_kind(t->line[i]) == NOT_A_STATEMENT)
            continue;
        int depth = 0, instr = 0;
        for (; i < t->n; i++) {
            t->reg[i] = 1;
            for (char *p = t->line[i]; *p; p++) {
                char c = code_char(&p, &instr);
                depth += (c == '(') - (c == ')');
            }
            if (depth <= 0)
                break;
        }
    }
    return SB_OK;
}

static void text_free(text *t) { free(t->buf); }

/* ---- writing the copy ---------------------------------------------------------------------- */

typedef struct out {
    char *s;
    size_t len, cap;
    int failed;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = o->cap - o->len;
        int n = o->s ? vsnprintf(o->s + o->len, room, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && (size_t)n < room) {
            o->len += (size_t)n;
            return;
        }
        size_t cap = o->cap ? o->cap * 2 : 1 << 16;
        while (n >= 0 && cap < o->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(o->s, cap);
        if (!s) {
            o->failed = 1;
            return;
        }
        o->s = s;
        o->cap = cap;
    }
}

/* A line of the copy: a quoted #include of a file beside the source is
 * pointed back at it (the copy lives two folders down, in exercises/<algo>/). */
static void put_line(out *o, const char *line, const char *src_dir)
{
    const char *p = line + strspn(line, " \t");
    if (strncmp(p, "#include \"", 10) == 0) {
        const char *name = p + 10, *end = strchr(name, '"');
        char beside[PATH_MAX], found[PATH_MAX];
        if (end && snprintf(beside, sizeof beside, "%s/%.*s", src_dir, (int)(end - name), name) < (int)sizeof beside &&
            lesson_source_path(beside, found, sizeof found)) {
            put(o, "#include \"../../%s\"%s\n", beside, end + 1);
            return;
        }
    }
    put(o, "%s\n", line);
}

/* The registration statements: SB_VARIANT, SB_RUNG and SB_CUDA_RUNG
 * from a line that opens with one to the line that closes its parentheses. */
typedef struct statement {
    int first, last;            /* lines */
    enum statement_kind kind;
    char algo[64], name[64];    /* its first two string literals */
} statement;

/* The n-th string literal (1-based) of a statement: where it starts (its
 * opening quote) in *line / *at, and its text in out. */
static int literal_at(const text *t, const statement *st, int n, int *line, int *at, char *out, size_t size)
{
    int seen = 0;
    for (int i = st->first; i <= st->last; i++)
        for (const char *p = t->line[i]; *p; p++) {
            if (*p != '"')
                continue;
            const char *end = p + 1;
            while (*end && *end != '"')
                end += (*end == '\\' && end[1]) ? 2 : 1;
            if (++seen == n) {
                *line = i;
                *at = (int)(p - t->line[i]);
                snprintf(out, size, "%.*s", (int)(end - p - 1), p + 1);
                return 1;
            }
            if (!*end)
                break;
            p = end;
        }
    return 0;
}

static int statements(const text *t, statement *out, int max)
{
    int n = 0;
    for (int i = 0; i < t->n && n < max; i++) {
        if (!t->reg[i] || strncmp(t->line[i], "SB_", 3) != 0)
            continue;
        statement *st = &out[n];
        st->first = i;
        st->kind = statement_kind(t->line[i]);
        while (i + 1 < t->n && t->reg[i + 1] && strncmp(t->line[i + 1], "SB_", 3) != 0)
            i++;
        st->last = i;
        int line, at;
        if (literal_at(t, st, 1, &line, &at, st->algo, sizeof st->algo) &&
            literal_at(t, st, 2, &line, &at, st->name, sizeof st->name))
            n++;
    }
    return n;
}

/* A statement with its name (the second literal) replaced by `name`. */
static void put_statement(out *o, const text *t, const statement *st, const char *name)
{
    int line = -1, at = 0;
    char old[64];
    literal_at(t, st, 2, &line, &at, old, sizeof old);
    for (int i = st->first; i <= st->last; i++) {
        if (i != line) {
            put(o, "%s\n", t->line[i]);
            continue;
        }
        const char *rest = t->line[i] + at + 1 + strlen(old) + 1;
        put(o, "%.*s\"%s\"%s\n", at, t->line[i], name, rest);
    }
}

/* A statement's arguments, split at the commas outside parentheses and
 * string literals, each trimmed; returns how many (at most max). */
enum { STATEMENT_CHARS = 2048, VARIANT_ARGS = 12, CUDA_RUNG_ARGS = 11 };
static int statement_args(const text *t, const statement *st, char *buf, char *args[], int max)
{
    size_t len = 0;
    for (int i = st->first; i <= st->last; i++)
        len += (size_t)snprintf(buf + len, len < STATEMENT_CHARS ? STATEMENT_CHARS - len : 0, "%s ", t->line[i]);
    if (len >= STATEMENT_CHARS)
        return 0;
    char *p = strchr(buf, '(');
    int n = 0, depth = 0, instr = 0;
    if (!p)
        return 0;
    char *start = ++p;
    for (; *p && n < max; p++) {
        char c = code_char(&p, &instr);
        if (c == '(') {
            depth++;
        } else if ((c == ',' && depth == 0) || (c == ')' && depth-- == 0)) {
            int last = *p == ')';
            *p = '\0';
            start += strspn(start, " \t");
            for (char *e = p; e > start && (e[-1] == ' ' || e[-1] == '\t'); e--)
                e[-1] = '\0';
            args[n++] = start;
            start = p + 1;
            if (last)
                break;
        }
    }
    return n;
}

/* How many arguments a statement that registers ops takes (variant.h):
 * its ops are the last five. */
static int statement_arity(enum statement_kind kind)
{
    return kind == VARIANT_STATEMENT ? VARIANT_ARGS : kind == CUDA_RUNG_STATEMENT ? CUDA_RUNG_ARGS : 0;
}

/* A stub's registration: the student's rung is the rung -- its backend,
 * needs, flags and summary (an SB_CUDA_RUNG's parent and idea too), so
 * that a pthread lesson grown from a serial parent is timed at every
 * thread count -- run by the parent's code: the parent's stages and
 * functions.  Falls back to the parent's statement when either does not
 * parse. */
static void put_stub_variant(out *o, const text *a, const statement *sa, const text *b, const statement *sb,
                             const char *name)
{
    char abuf[STATEMENT_CHARS], bbuf[STATEMENT_CHARS];     /* 2 x 2 KB: the stack */
    char *aa[VARIANT_ARGS], *ba[VARIANT_ARGS];
    int na = statement_arity(sa->kind), nb = statement_arity(sb->kind);
    if (!na || !nb || statement_args(a, sa, abuf, aa, VARIANT_ARGS) != na ||
        statement_args(b, sb, bbuf, ba, VARIANT_ARGS) != nb) {
        put_statement(o, a, sa, name);
        return;
    }
    char **ops = aa + na - 5;
    if (sb->kind == CUDA_RUNG_STATEMENT) {
        put(o, "SB_CUDA_RUNG(%s, \"%s\", %s, %s, %s,\n             %s,\n             %s, %s, %s, %s, %s)\n", ba[0],
            name, ba[2], ba[3], ba[4], ba[5], ops[0], ops[1], ops[2], ops[3], ops[4]);
        return;
    }
    put(o, "SB_VARIANT(%s, \"%s\", %s, %s, %s, %s,\n           %s,\n           %s, %s, %s, %s, %s)\n", ba[0], name,
        ba[2], ba[3], ba[4], sa->kind == VARIANT_STATEMENT ? aa[5] : "ALL_STAGES", ba[6], ops[0], ops[1], ops[2], ops[3],
        ops[4]);
}

/* The copy's registration: the rung's variant, named student-<name>, for
 * the rung's algorithm only -- a file that registers the rung for several
 * algorithms (a stage and its pipeline) is copied once per exercise, and
 * each copy must own its one student rung, or the grader could time
 * another copy.  A stub holds the parent's code, so its SB_VARIANT or
 * SB_CUDA_RUNG names the parent's functions (put_stub_variant); its
 * ladder line is the rung's (the student's rung grows from the rung's
 * parent). */
static void put_registrations(out *o, const text *a, const text *b, int stub, const char *algo)
{
    statement sa[32], sb[32];
    int na = stub ? statements(a, sa, 32) : 0, nb = statements(b, sb, 32);
    char name[80];
    for (int j = 0; j < nb; j++) {
        if (strcmp(sb[j].algo, algo) != 0)
            continue;
        snprintf(name, sizeof name, "%s%s", SB_STUDENT_PREFIX, sb[j].name);
        if (!stub || sb[j].kind == RUNG_STATEMENT) {
            put_statement(o, b, &sb[j], name);
            continue;
        }
        for (int i = 0; i < na; i++)
            if (sa[i].kind != RUNG_STATEMENT && strcmp(sa[i].algo, sb[j].algo) == 0) {
                put_stub_variant(o, a, &sa[i], b, &sb[j], name);
                break;
            }
    }
}

/* Whether the rung's file registers variants of other algorithms too. */
static int registers_others(const text *b, const char *algo)
{
    statement sb[32];
    int nb = statements(b, sb, 32);
    for (int j = 0; j < nb; j++)
        if (strcmp(sb[j].algo, algo) != 0)
            return 1;
    return 0;
}

static void put_banner(out *o, const sb_variant *rung, const sb_variant *parent, int solution, int parts)
{
    const char *idea = is_openmp(rung) ? "the serial algorithm's loops spread over every core with OpenMP, exactly"
                                       : rung->idea;
    if (solution)
        put(o, "// REFERENCE SOLUTION of the exercise %s, registered as %s/%s%s.\n"
               "// Written by `segbench exercise --solution` from %s.\n",
            rung->who, rung->algo, SB_STUDENT_PREFIX, rung->name, rung->file);
    else
        put(o, "// EXERCISE %s, registered as %s/%s%s.\n"
               "// Written by `segbench exercise` from %s; it grows from %s (%s).\n"
               "// The lesson: %s.\n"
               "// %d part%s below %s marked TODO: each holds %s where the lesson goes, so this\n"
               "// file builds and is exact as it is, and is as fast as %s.  Change them\n"
               "// (keep the rest), run make, then grade it:\n",
            rung->who, rung->algo, SB_STUDENT_PREFIX, rung->name, rung->file, parent->name, parent->file, idea,
            parts, parts == 1 ? "" : "s", parts == 1 ? "is" : "are",
            is_openmp(rung) ? "a serial loop" : "the parent's code", parent->name);
    put(o, "//     ./build/segbench grade %s/%s%s\n", rung->algo, SB_STUDENT_PREFIX, rung->name);
}

/* An OpenMP variant: each #pragma omp (and its continuation lines) becomes a TODO. */
static int openmp_stub(out *o, const text *t, const char *src_dir, int count_only)
{
    int parts = 0;
    for (int i = 0; i < t->n; i++) {
        const char *p = t->line[i] + strspn(t->line[i], " \t");
        if (t->reg[i] || strncmp(p, "#pragma omp", 11) != 0) {
            if (!count_only && !t->reg[i])
                put_line(o, t->line[i], src_dir);
            continue;
        }
        parts++;
        if (!count_only)
            put(o, "%.*s" TODO_MARK "%d): an OpenMP directive goes here; the code below runs serially.\n",
                (int)(p - t->line[i]), t->line[i], parts);
        while (i + 1 < t->n && t->line[i][0] && t->line[i][strlen(t->line[i]) - 1] == '\\')
            i++;                               /* the directive's continuation lines */
    }
    return parts;
}

/* A line that says nothing a student must write: blank, a comment, or
 * punctuation ("}", "};", "{", ") {") and "#pragma unroll". */
static int trivial_line(const text *t, int k)
{
    if (t->comment[k])
        return 1;
    const char *p = t->line[k] + strspn(t->line[k], " \t");
    if (strncmp(p, "#pragma unroll", 14) == 0)
        return 1;
    return p[strspn(p, "{}();, \t\r")] == '\0';
}

/* A stretch where the rung's file differs from its parent's in code:
 * parent lines [i, i2), rung lines [j, j2), both counted in the lines
 * taking part (ia, ib of diff_stub). */
typedef struct hunk {
    int i, i2, j, j2;
} hunk;

enum { MAX_PARTS = 10 };   /* a stub's TODO parts at most: the course's teachable size */

/* Two neighbouring hunks become one part (the lines between them, the same
 * in both files, shown inside it) when only trivial lines lie between, and
 * then, while there are more than MAX_PARTS, the two with the fewest of
 * the rung's lines between them. */
static int merge_hunks(hunk *h, int n, const text *a, const int *ia, const text *b, const int *ib)
{
    int kept = 0;
    for (int k = 0; k < n; k++) {
        int trivial = kept > 0;
        for (int x = kept ? h[kept - 1].i2 : 0; trivial && x < h[k].i; x++)
            trivial = trivial_line(a, ia[x]);
        for (int x = kept ? h[kept - 1].j2 : 0; trivial && x < h[k].j; x++)
            trivial = trivial_line(b, ib[x]);
        if (trivial) {
            h[kept - 1].i2 = h[k].i2;
            h[kept - 1].j2 = h[k].j2;
        } else {
            h[kept++] = h[k];
        }
    }
    while (kept > MAX_PARTS) {
        int best = 1;
        for (int k = 2; k < kept; k++)
            if (h[k].j - h[k - 1].j2 < h[best].j - h[best - 1].j2)
                best = k;
        h[best - 1].i2 = h[best].i2;
        h[best - 1].j2 = h[best].j2;
        memmove(&h[best], &h[best + 1], (size_t)(kept - best - 1) * sizeof *h);
        kept--;
    }
    return kept;
}

/* A CUDA rung: the diff against the parent, each part with code in it
 * replaced by the parent's lines between TODO markers (merge_hunks decides
 * what a part holds); what differs in comments only is the rung's. */
static int diff_stub(out *o, const text *a, const text *b, const char *src_dir, int nparts, sb_error *err)
{
    int ia[MAX_LINES], ib[MAX_LINES], na = 0, nb = 0;   /* the lines taking part: no registration */
    for (int i = 0; i < a->n; i++)
        if (!a->reg[i])
            ia[na++] = i;
    for (int i = 0; i < b->n; i++)
        if (!b->reg[i])
            ib[nb++] = i;
    int *len = calloc((size_t)(na + 1) * (size_t)(nb + 1), sizeof *len);
    hunk *h = malloc((size_t)(na + nb + 1) * sizeof *h);
    if (!len || !h) {
        free(len);
        free(h);
        sb_fail(err, SB_ERR_NOMEM, "out of memory");
        return -1;
    }
#define L(i, j) len[(size_t)(i) * (size_t)(nb + 1) + (size_t)(j)]
    for (int i = na - 1; i >= 0; i--)
        for (int j = nb - 1; j >= 0; j--)
            L(i, j) = strcmp(a->line[ia[i]], b->line[ib[j]]) == 0 ? L(i + 1, j + 1) + 1
                      : L(i + 1, j) >= L(i, j + 1)                ? L(i + 1, j)
                                                                  : L(i, j + 1);
    int i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        if (i < na && j < nb && strcmp(a->line[ia[i]], b->line[ib[j]]) == 0) {
            i++;
            j++;
            continue;
        }
        /* a stretch of differences: parent lines [i, i2), rung lines [j, j2) */
        int i2 = i, j2 = j;
        while (i2 < na || j2 < nb) {
            if (i2 < na && j2 < nb && strcmp(a->line[ia[i2]], b->line[ib[j2]]) == 0)
                break;
            if (j2 >= nb || (i2 < na && L(i2 + 1, j2) >= L(i2, j2 + 1)))
                i2++;
            else
                j2++;
        }
        int code = 0;
        for (int k = i; k < i2; k++)
            code |= !a->comment[ia[k]];
        for (int k = j; k < j2; k++)
            code |= !b->comment[ib[k]];
        if (code)
            h[n++] = (hunk){ i, i2, j, j2 };
        i = i2;
        j = j2;
    }
#undef L
    free(len);
    int parts = merge_hunks(h, n, a, ia, b, ib);
    j = 0;
    for (int p = 0; p < parts && o; p++) {
        for (; j < h[p].j; j++)                   /* the same in both, or comments: the rung's */
            put_line(o, b->line[ib[j]], src_dir);
        const hunk *x = &h[p];
        const char *first = x->i < x->i2 ? a->line[ia[x->i]] : b->line[ib[x->j]];
        int indent = (int)strspn(first, " \t"), rung_lines = x->j2 - x->j;
        if (x->i2 == x->i)
            put(o, "%.*s" TODO_MARK "%d of %d): the lesson adds code here (the rung has %d line%s).\n", indent,
                first, p + 1, nparts, rung_lines, rung_lines == 1 ? "" : "s");
        else
            put(o, "%.*s" TODO_MARK "%d of %d): the lesson changes the parent's %d line%s below (the rung has %d "
                   "here).\n",
                indent, first, p + 1, nparts, x->i2 - x->i, x->i2 - x->i == 1 ? "" : "s", rung_lines);
        for (int k = x->i; k < x->i2; k++)
            put_line(o, a->line[ia[k]], src_dir);
        put(o, "%.*s// END TODO(exercise part %d)\n", indent, first, p + 1);
        j = x->j2;
    }
    for (; j < nb && o; j++)
        put_line(o, b->line[ib[j]], src_dir);
    free(h);
    return parts;
}

/* The copy sits beside the rung in one binary, and beside other copies: a
 * name the rung's file (or the parent's, in a stub) gives external linkage
 * -- a function a shared header declares, an ops table a test reads, a
 * table a ladder's header declares extern (GrabCut's gc_rounds_cut and
 * gc_longer_kernels, each a line that starts "const ") -- would be
 * defined twice, and twice again by two stubs of one parent.
 * Such names, defined at the start of a line, are renamed in the copy
 * (student_<algo>_<rung>_<name>, the exercise's own), every use with them. */
static int is_word(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

static int exported_names(const char *s, char names[][64], int max)
{
    static const char *const types[] = { "sb_status ", "void ", "int ", "size_t ", "double ", "float ", "unsigned ",
                                         "extern \"C\" ", "const " };
    int n = 0;
    for (const char *line = s; line && *line && n < max; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        size_t len = strcspn(line, "\n");
        int typed = 0;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            typed |= strncmp(line, types[t], strlen(types[t])) == 0;
        if (!typed || (memchr(line, ';', len) && !memchr(line, '{', len)))   /* a declaration */
            continue;
        /* the name: the identifier before the first '(' or ' =' */
        const char *end = line;
        while (end < line + len && *end != '(' && *end != '=')
            end++;
        if (end == line + len)
            continue;
        while (end > line && end[-1] == ' ')
            end--;
        const char *start = end;
        while (start > line && is_word(start[-1]))
            start--;
        if (end - start > 0 && end - start < 60) {
            snprintf(names[n], 64, "%.*s", (int)(end - start), start);
            n++;
        }
    }
    return n;
}

/* s (malloc'd) with every whole `from` replaced by `to`: an occurrence
 * neither led nor followed by a word character -- nor, for a variant's
 * name (names_hyphen), followed by '-', so "cuda-tiles" is not found in
 * "cuda-tilescan".  Returns the new text (s is freed), or s unchanged when
 * out of memory. */
static char *replace_whole(char *s, const char *from, const char *to, int names_hyphen)
{
    size_t flen = strlen(from), tlen = strlen(to), count = 0;
    for (const char *p = strstr(s, from); p; p = strstr(p + flen, from))
        count++;
    char *t = malloc(strlen(s) + count * tlen + 1), *w = t;
    if (!t)
        return s;
    for (const char *p = s; *p;) {
        if (strncmp(p, from, flen) == 0 && (p == s || !is_word(p[-1]) || !is_word(from[0])) && !is_word(p[flen]) &&
            !(names_hyphen && p[flen] == '-')) {
            memcpy(w, to, tlen);
            w += tlen;
            p += flen;
        } else {
            *w++ = *p++;
        }
    }
    *w = '\0';
    free(s);
    return t;
}

static char *rename_exported(char *s, const sb_variant *rung)
{
    char prefix[160];
    int plen = snprintf(prefix, sizeof prefix, "student_%s_%s_", rung->algo, rung->name);
    for (int i = 0; i < plen; i++)
        if (!is_word(prefix[i]))
            prefix[i] = '_';
    char names[16][64];
    int n = exported_names(s, names, 16);
    for (int k = 0; k < n; k++) {
        char to[240];
        snprintf(to, sizeof to, "%.159s%.63s", prefix, names[k]);
        s = replace_whole(s, names[k], to, 0);
    }
    return s;
}

/* The messages of the copy name the student's rung: "ALGO/RUNG..." and
 * "ALGO/PARENT..." at the start of a string literal become
 * "ALGO/student-RUNG...", so an error from the student's copy (a stub
 * runs the parent's code) names what the student is running. */
static char *rename_messages(char *s, const sb_variant *rung, const sb_variant *parent)
{
    const char *names[2] = { rung->name, parent->name };
    char to[160];
    snprintf(to, sizeof to, "\"%s/" SB_STUDENT_PREFIX "%s", rung->algo, rung->name);
    for (int k = 0; k < 2; k++) {
        char from[160];
        snprintf(from, sizeof from, "\"%s/%s", rung->algo, names[k]);
        s = replace_whole(s, from, to, 1);
    }
    return s;
}

sb_status exercise_write(const sb_variant *rung, const char *root, int solution, int force, int *parts,
                         char *written, size_t written_size, sb_error *err)
{
    char why[400];
    const sb_variant *parent = exercise_parent(rung, why, sizeof why);
    if (!parent)
        return sb_fail(err, SB_ERR_USAGE, "%s", why);
    *parts = 0;
    char src_dir[PATH_MAX];
    snprintf(src_dir, sizeof src_dir, "%s", rung->file);
    char *slash = strrchr(src_dir, '/');
    if (slash)
        *slash = '\0';
    const char *base = strrchr(rung->file, '/') ? strrchr(rung->file, '/') + 1 : rung->file;

    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/exercises", root);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sb_fail(err, SB_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
    snprintf(dir, sizeof dir, "%s/exercises/%s", root, rung->algo);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sb_fail(err, SB_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
    if ((size_t)snprintf(written, written_size, "%s/%s", dir, base) >= written_size)
        return sb_fail(err, SB_ERR_USAGE, "%s/%s: path too long", dir, base);
    if (!force && access(written, F_OK) == 0)
        return sb_fail(err, SB_ERR_USAGE, "%s is there already (a student's work?): pass --force to replace it",
                       written);

    text *b = malloc(sizeof *b), *a = malloc(sizeof *a);
    if (!a || !b) {
        free(a);
        free(b);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    out o = { 0 };
    sb_status st = text_read(rung->file, b, err);
    if (!st && !solution && !is_openmp(rung))
        st = text_read(parent->file, a, err);
    else
        memset(a, 0, sizeof *a);
    if (!st) {
        int n = solution ? 0 : is_openmp(rung) ? openmp_stub(NULL, b, src_dir, 1)
                                               : diff_stub(NULL, a, b, src_dir, 0, err);
        if (n < 0)
            st = SB_ERR_NOMEM;
        else if (!solution && n == 0)
            st = sb_fail(err, SB_ERR_USAGE, "%s: its file has no lesson code to take out (no %s)", rung->who,
                         is_openmp(rung) ? "#pragma omp line" : "code differs from its parent's");
        if (!st) {
            *parts = n;
            put_banner(&o, rung, parent, solution, n);
            if (registers_others(b, rung->algo) || registers_others(a, rung->algo))   /* a: a stub's parent */
                put(&o, "// Only %s's rung is registered here: the functions of the file's other algorithms\n"
                        "// are unused in this copy, and the compilers are told not to warn of them.\n"
                        "#pragma nv_diag_suppress 177\n#pragma GCC diagnostic ignored \"-Wunused-function\"\n",
                    rung->algo);
            if (solution) {
                for (int i = 0; i < b->n; i++)
                    if (!b->reg[i])
                        put_line(&o, b->line[i], src_dir);
            } else if (is_openmp(rung)) {
                openmp_stub(&o, b, src_dir, 0);
            } else if (diff_stub(&o, a, b, src_dir, n, err) < 0) {
                st = SB_ERR_NOMEM;
            }
            put_registrations(&o, a, b, !solution && !is_openmp(rung), rung->algo);
            if (o.failed && !st)
                st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
        }
    }
    if (!st && o.s)
        o.s = rename_messages(rename_exported(o.s, rung), rung, parent);
    if (!st)
        st = sb_atomic_write_text(written, o.s, err);
    free(o.s);
    text_free(b);
    text_free(a);
    free(a);
    free(b);
    return st;
}

int exercise_todo_left(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char line[2048];
    int n = 0;
    while (fgets(line, sizeof line, fp))
        n += strstr(line, TODO_MARK) != NULL && !strstr(line, "// END TODO");
    fclose(fp);
    return n;
}

sb_status exercise_rung(const char *spec, const sb_variant **v, sb_error *err)
{
    if (!spec || !strchr(spec, '/'))
        return sb_fail(err, SB_ERR_USAGE, "which lesson? give ALGO/RUNG (segbench exercise integral/cuda-transposed)");
    int threads;
    sb_status st = sb_parse_variant_spec(spec, v, &threads, err);
    if (st)
        return st;
    if (exercise_reference((*v)->algo, (*v)->name))
        return sb_fail(err, SB_ERR_USAGE, "%s is a student's copy already; give the rung (%s/%s)", (*v)->who,
                       (*v)->algo, (*v)->name + strlen(SB_STUDENT_PREFIX));
    return SB_OK;
}

sb_status sb_exercise_hand_out(const char *spec, const char *root, int solution, int force, sb_error *err)
{
    const sb_variant *v;
    sb_status st = exercise_rung(spec, &v, err);
    if (st)
        return st;
    char written[4096];
    int parts = 0;
    if ((st = exercise_write(v, root, solution, force, &parts, written, sizeof written, err)))
        return st;
    if (solution)
        printf("wrote %s: the reference solution of %s, registered as %s/%s%s\n", written, v->who, v->algo,
               SB_STUDENT_PREFIX, v->name);
    else
        printf("wrote %s: %d TODO part%s where %s's lesson goes, registered as %s/%s%s\n", written, parts,
               parts == 1 ? "" : "s", v->who, v->algo, SB_STUDENT_PREFIX, v->name);
    printf("next: make, then ./build/segbench grade %s/%s%s\n", v->algo, SB_STUDENT_PREFIX, v->name);
    return SB_OK;
}
