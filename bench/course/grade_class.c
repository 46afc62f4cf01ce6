/* grade_class.c - a whole class (grade_class.h): the leaderboard file,
 * and grading a folder of submissions.
 *
 * Each student's file is built and graded apart, so that one student's
 * build error, crash or endless loop is that student's row and nothing
 * else: a tree of their own under the work folder (links to the
 * teacher's sources, a copy of the teacher's build so that make compiles
 * only the student's file, the file in exercises/ALGO/), make under a
 * time limit, then that tree's segbench grade under a time limit, with
 * the teacher's seed and images.  Students are graded one after another:
 * two grades at once would time each other.  Nothing goes through a
 * shell: a student's name is only ever an argument or a CSV field. */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include "course/grade_class.h"

#include "base/csv.h"
#include "base/files.h"
#include "course/exercise.h"
#include "course/sandbox.h"
#include "variants/registry.h"
#include "machine/env.h"
#include "io/env_json.h"

#include "segbench/atomic_file.h"
#include "segbench/device.h"
#include "segbench/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { CLASS_MAX = 2000, SOURCE_MAX = 1 << 20, CLASS_FIELDS = 12 };
/* The largest file a student's build or grade may write: a segbench with
 * every GPU architecture's code is tens of MB; a loop writing forever is
 * stopped here (SIGXFSZ) rather than at a full disk. */
#define GRADE_FILE_MAX (1LL << 30)

/* ---- the leaderboard file ------------------------------------------------------------------ */

sb_status grade_class_append(const char *path, const grade_class_row *row, sb_error *err)
{
    char *old = NULL;
    size_t len = 0;
    sb_error read_err;
    sb_status st = sb_file_read(path, 64u << 20, &old, &len, &read_err);
    if (st == SB_ERR_IO && errno == ENOENT)
        st = SB_OK;                              /* a new leaderboard */
    else if (st)
        return sb_fail(err, st, "%s", read_err.msg);
    if (len && strncmp(old, GRADE_CLASS_HEADER, strlen(GRADE_CLASS_HEADER)) != 0) {
        free(old);
        return sb_fail(err, SB_ERR_FORMAT, "%s is not a segbench class leaderboard (its first line differs)", path);
    }
    char *text = NULL;
    size_t text_len = 0;
    FILE *fp = open_memstream(&text, &text_len);
    if (!fp) {
        free(old);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    fputs(len ? old : GRADE_CLASS_HEADER, fp);
    if (len && old[len - 1] != '\n')
        fputc('\n', fp);
    char exit_code[16], seed[32], checks[16], vs_parent[32], vs_reference[32], x_limit[32];
    snprintf(exit_code, sizeof exit_code, "%d", row->exit_code);
    snprintf(seed, sizeof seed, "%llu", row->seed);
    snprintf(checks, sizeof checks, "%d", row->checks);
    snprintf(vs_parent, sizeof vs_parent, "%.3f", row->vs_parent);
    snprintf(vs_reference, sizeof vs_reference, "%.3f", row->vs_reference);
    snprintf(x_limit, sizeof x_limit, "%.2f", row->x_limit);
    const char *fields[] = { row->date, row->student, row->variant, row->verdict, exit_code, seed, checks,
                             vs_parent, vs_reference, x_limit, row->machine, row->commit };
    sb_csv_put_fields(fp, fields, (int)(sizeof fields / sizeof fields[0]));
    fputc('\n', fp);
    fclose(fp);
    free(old);
    st = text ? sb_atomic_write_text(path, text, err) : sb_fail(err, SB_ERR_NOMEM, "out of memory");
    free(text);
    return st;
}

sb_status grade_class_read(const char *path, const char *variant, unsigned long long seed, grade_class_row **rows,
                           int *count, char **buf, sb_error *err)
{
    *rows = NULL;
    *count = 0;
    *buf = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot read (%s)", path, strerror(errno));
    /* every record's fields, one after another, in one growing buffer */
    size_t cap = 0, used = 0, rcap = 0;
    char *record = NULL, *text = NULL;
    size_t record_cap = 0;
    sb_status st = SB_OK;
    grade_class_row *out = NULL;
    int n = 0, line = 0;
    for (ssize_t got; !st && (got = sb_csv_read_record(fp, &record, &record_cap)) > 0;) {
        char *field[CLASS_FIELDS + 1];
        if (line++ == 0)
            continue;                              /* the header */
        if (sb_csv_split(record, field, CLASS_FIELDS + 1) != CLASS_FIELDS || strcmp(field[2], variant) != 0 ||
            strtoull(field[5], NULL, 10) != seed)
            continue;
        int who = -1;                              /* the student's earlier row: replaced */
        for (int i = 0; i < n && who < 0; i++)
            if (strcmp(text + (size_t)out[i].student, field[1]) == 0)
                who = i;
        if (who < 0 && n == (int)rcap) {
            rcap = rcap ? 2 * rcap : 64;
            grade_class_row *grown = realloc(out, rcap * sizeof *out);
            if (!grown) {
                st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
                break;
            }
            out = grown;
        }
        grade_class_row *r = &out[who < 0 ? n++ : who];
        size_t at[CLASS_FIELDS];
        for (int f = 0; f < CLASS_FIELDS && !st; f++) {
            size_t len = strlen(field[f]) + 1;
            if (used + len > cap) {
                size_t want = (used + len) * 2;
                char *grown = realloc(text, want);
                if (!grown) {
                    st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
                    break;
                }
                text = grown;
                cap = want;
            }
            memcpy(text + used, field[f], len);
            at[f] = used;
            used += len;
        }
        if (st)
            break;
        /* offsets for now: the buffer may move until the end */
        r->date = (const char *)at[0];
        r->student = (const char *)at[1];
        r->variant = (const char *)at[2];
        r->verdict = (const char *)at[3];
        r->exit_code = atoi(field[4]);
        r->seed = seed;
        r->checks = atoi(field[6]);
        r->vs_parent = atof(field[7]);
        r->vs_reference = atof(field[8]);
        r->x_limit = atof(field[9]);
        r->machine = (const char *)at[10];
        r->commit = (const char *)at[11];
    }
    fclose(fp);
    free(record);
    if (st) {
        free(out);
        free(text);
        return st;
    }
    for (int i = 0; i < n; i++) {
        out[i].date = text + (size_t)out[i].date;
        out[i].student = text + (size_t)out[i].student;
        out[i].variant = text + (size_t)out[i].variant;
        out[i].verdict = text + (size_t)out[i].verdict;
        out[i].machine = text + (size_t)out[i].machine;
        out[i].commit = text + (size_t)out[i].commit;
    }
    *rows = out;
    *count = n;
    *buf = text;
    return SB_OK;
}

/* ---- the work folder ----------------------------------------------------------------------- */

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n > t && strcmp(s + n - t, tail) == 0;
}


/* A name the grader gives what it makes in a work folder: a student's
 * tree (NNN), the class CSV, a class's page. */
static int graders_name(const char *name)
{
    size_t digits = strspn(name, "0123456789");
    return (digits >= 3 && name[digits] == '\0') || !strcmp(name, "class.csv") || !strcmp(name, ".lock") ||
           (!strncmp(name, "leaderboard-", 12) && ends_with(name, ".md"));
}

/* The first entry of dir that the grader would not have made (a work
 * folder from before the mark counts as the grader's when it holds
 * nothing else), or "" (its name in first). */
static int foreign_entry(const char *dir, char *first, size_t size)
{
    first[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !graders_name(e->d_name)) {
            snprintf(first, size, "%s", e->d_name);
            break;
        }
    closedir(d);
    return 0;
}

sb_status grade_class_claim_work(const char *work, sb_dir_lock *lock, sb_error *err)
{
    char mark[SB_PATH_MAX], first[256];
    sb_status st = sb_path(mark, err, "%s/" GRADE_WORK_MARK, work);
    if (st)
        return st;
    struct stat sb;
    if (stat(work, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return sb_fail(err, SB_ERR_USAGE, "--work %s is not a folder", work);
    if (stat(work, &sb) == 0 && access(mark, F_OK) != 0) {
        if (foreign_entry(work, first, sizeof first) != 0)
            return sb_fail(err, SB_ERR_IO, "--work %s: cannot read the folder (%s)", work, strerror(errno));
        if (first[0])
            return sb_fail(err, SB_ERR_USAGE, "--work %s holds files segbench did not make (%s, ...): the class's "
                           "trees are removed and rebuilt there; name a new or empty folder", work, first);
    }
    static const char busy[] = ", or name another --work folder";
    if ((st = sb_mkdirs(work, err)) || (st = sb_dir_lock_take(lock, work, "grade --submissions", 0, busy, err)))
        return st;
    FILE *fp = fopen(mark, "a");
    if (!fp || fclose(fp) != 0) {
        sb_dir_lock_release(lock);
        return sb_fail(err, SB_ERR_IO, "--work %s: cannot write %s (%s)", work, mark, strerror(errno));
    }
    return SB_OK;
}

/* ---- a student's tree ---------------------------------------------------------------------- */

/* What a student's tree shares with the teacher's: links to the sources,
 * and copies of the build's objects (make compiles only what differs). */
static const char *const SHARED[] = { "Makefile", "include", "common", "bench", "impl_cpu", "impl_pthread",
                                      "impl_cuda", "scripts", "datasets", "results" };
static const char *const BUILD_COPIED[] = { "bench", "common", "impl_cpu", "impl_pthread", "impl_cuda", "datasets",
                                            "gen", "deps.ok", "tools.ok", "code_ids" };

/* The solution's files (exercise_solution_files): is `rel` one of them
 * (1), a folder above one (2), or neither (0)? */
static int solution_at(const char *rel, const char *const *gone, int ngone)
{
    size_t n = strlen(rel);
    int above = 0;
    for (int i = 0; i < ngone; i++) {
        if (!strcmp(gone[i], rel))
            return 1;
        if (!strncmp(gone[i], rel, n) && gone[i][n] == '/')
            above = 2;
    }
    return above;
}

/* tree/rel made to show root/rel without the solution: a link to it where
 * no file of the solution lies beneath, else a folder of links to its
 * entries, the solution's files left out (a kit's tree, made in links). */
static sb_status link_without(const char *root, const char *tree, const char *rel, const char *const *gone,
                              int ngone, sb_error *err)
{
    char from[SB_PATH_MAX], to[SB_PATH_MAX];
    sb_status st = sb_path(from, err, "%s/%s", root, rel);
    if (!st)
        st = sb_path(to, err, "%s/%s", tree, rel);
    int at = st ? 1 : solution_at(rel, gone, ngone);
    if (st || at == 1 || access(from, F_OK) != 0)
        return st;
    if (at == 0)
        return symlink(from, to) == 0 ? SB_OK : sb_fail(err, SB_ERR_IO, "cannot link %s: %s", to, strerror(errno));
    if ((st = sb_mkdirs(to, err)))
        return st;
    DIR *d = opendir(from);
    if (!d)
        return sb_fail(err, SB_ERR_IO, "cannot read %s: %s", from, strerror(errno));
    struct dirent *e;
    char sub[SB_PATH_MAX];
    while (!st && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !(st = sb_path(sub, err, "%s/%s", rel, e->d_name)))
            st = link_without(root, tree, sub, gone, ngone, err);
    closedir(d);
    return st;
}

/* Does `path` (under a build folder) hold what make built from one of the
 * solution's files: <the file without its extension>.o or .d? */
static int solution_object(const char *path, const char *const *gone, int ngone)
{
    const char *dot = strrchr(path, '.');
    if (!dot || (strcmp(dot, ".o") && strcmp(dot, ".d")))
        return 0;
    size_t stem = (size_t)(dot - path);
    for (int i = 0; i < ngone; i++) {
        const char *ext = strrchr(gone[i], '.');
        size_t n = ext ? (size_t)(ext - gone[i]) : strlen(gone[i]);
        if (stem >= n && !strncmp(path + stem - n, gone[i], n) && (stem == n || path[stem - n - 1] == '/'))
            return 1;
    }
    return 0;
}

/* The objects of the solution's files, out of a build folder copied from
 * the teacher's (every architecture's folder alike). */
static sb_status drop_solution_objects(const char *dir, const char *const *gone, int ngone, sb_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return SB_OK;
    struct dirent *e;
    char path[SB_PATH_MAX];
    sb_status st = SB_OK;
    while (!st && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (st = sb_path(path, err, "%s/%s", dir, e->d_name)))
            continue;
        struct stat sb;
        if (lstat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode))
            st = drop_solution_objects(path, gone, ngone, err);
        else if (solution_object(path, gone, ngone) && unlink(path) != 0)
            st = sb_fail(err, SB_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    }
    closedir(d);
    return st;
}

/* A student's tree: the teacher's tree in links, without the reference
 * solution's files (a kit: nothing the student builds can call the
 * solution), their file in exercises/ALGO/, and a copy of the teacher's
 * build without the solution's objects (so that make compiles one file). */
static sb_status make_tree(const char *root, const char *tree, const char *algo, const char *base,
                           const char *const *gone, int ngone, const char *source, size_t source_len, sb_error *err)
{
    char path[SB_PATH_MAX];
    sb_status st = sb_remove_tree(tree, err);   /* a tree this grader made */
    if (!st)
        st = sb_path(path, err, "%s/exercises/%s", tree, algo);
    if (!st)
        st = sb_mkdirs(path, err);
    for (size_t i = 0; i < sizeof SHARED / sizeof SHARED[0] && !st; i++)
        st = link_without(root, tree, SHARED[i], gone, ngone, err);
    if (!st && !(st = sb_path(path, err, "%s/exercises/%s/%s", tree, algo, base))) {
        FILE *fp = fopen(path, "wb");
        if (!fp || fwrite(source, 1, source_len, fp) != source_len)
            st = sb_fail(err, SB_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        if (fp && fclose(fp) != 0 && !st)
            st = sb_fail(err, SB_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    /* cp -a root/build/<each> tree/build/ */
    char *argv[4 + sizeof BUILD_COPIED / sizeof BUILD_COPIED[0]], copies[sizeof BUILD_COPIED / sizeof BUILD_COPIED[0]][SB_PATH_MAX];
    int argc = 0;
    argv[argc++] = "cp";
    argv[argc++] = "-a";
    for (size_t i = 0; i < sizeof BUILD_COPIED / sizeof BUILD_COPIED[0] && !st; i++)
        if (!(st = sb_path(copies[i], err, "%s/build/%s", root, BUILD_COPIED[i])) && access(copies[i], F_OK) == 0)
            argv[argc++] = copies[i];
    if (!st && !(st = sb_path(path, err, "%s/build", tree)) && !(st = sb_mkdirs(path, err))) {
        argv[argc++] = path;
        argv[argc] = NULL;
        if (argc > 3 && sb_spawn(argv, NULL, NULL) != 0)
            st = sb_fail(err, SB_ERR_IO, "cannot copy %s/build into %s", root, path);
    }
    if (!st)
        st = drop_solution_objects(path, gone, ngone, err);
    return st;
}

/* ---- the submissions ----------------------------------------------------------------------- */

typedef struct submission {
    char name[256];            /* the student, as the folder or file names them */
    char entry[256];           /* the folder's or the file's own name */
    char shown[1024];          /* name as printed: control characters escaped */
    int is_dir;
    int link;                  /* the entry is a symbolic link: not followed, not graded */
    char file[SB_PATH_MAX];    /* their file; "" when the folder holds none */
} submission;

/* A name for a terminal line: each control character (a newline, an
 * escape sequence's ESC) as \n, \r, \t or \xNN, so that no name writes
 * a line of its own or moves the cursor. */
static void shown_name(const char *name, char *out, size_t size)
{
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && used + 5 < size; p++) {
        if (*p >= 0x20 && *p != 0x7f)
            out[used++] = (char)*p;
        else
            used += (size_t)snprintf(out + used, size - used, *p == '\n' ? "\\n" : *p == '\r' ? "\\r" :
                                     *p == '\t' ? "\\t" : "\\x%02x", *p);
    }
    out[used] = '\0';
}

/* Two entries that name one student (bob/ and bob.c): each graded under
 * its own entry's name, said once, never one of them dropped. */
static void part_clashes(submission *s, int n)
{
    for (int i = 0; i + 1 < n; i++) {
        int j = i;
        while (j + 1 < n && !strcmp(s[j + 1].name, s[i].name))
            j++;
        if (j == i)
            continue;
        printf("  note: %d entries name the student %s:", j - i + 1, s[i].shown);
        for (int k = i; k <= j; k++) {
            snprintf(s[k].name, sizeof s[k].name, "%s%s", s[k].entry, s[k].is_dir ? "/" : "");
            shown_name(s[k].name, s[k].shown, sizeof s[k].shown);
            printf(" %s", s[k].shown);
        }
        printf(" -- each graded under that name\n");
        i = j;
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const submission *)a)->name, ((const submission *)b)->name);
}

/* A student's folder: the exercise's file by its name, else the one file
 * of its kind (.c or .cu) there. */
static void folder_file(const char *dir, const char *base, const char *ext, char *file, size_t size)
{
    char path[SB_PATH_MAX];
    struct stat sb;
    file[0] = '\0';
    if (snprintf(path, sizeof path, "%s/%s", dir, base) < (int)sizeof path && lstat(path, &sb) == 0 &&
        S_ISREG(sb.st_mode)) {                  /* a link is no hand-in: it may lead anywhere */
        snprintf(file, size, "%s", path);
        return;
    }
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' && ends_with(e->d_name, ext) &&
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path && lstat(path, &sb) == 0 &&
            S_ISREG(sb.st_mode) && found++ == 0)
            snprintf(file, size, "%s", path);
    if (found > 1)
        file[0] = '\0';                          /* which one? none */
    if (d)
        closedir(d);
}

static sb_status find_submissions(const char *dir, const char *base, submission **out, int *count, sb_error *err)
{
    const char *ext = ends_with(base, ".cu") ? ".cu" : ".c";
    DIR *d = opendir(dir);
    if (!d)
        return sb_fail(err, SB_ERR_IO, "--submissions %s: cannot read the folder (%s)", dir, strerror(errno));
    submission *s = calloc(CLASS_MAX, sizeof *s);
    int n = 0;
    sb_status st = s ? SB_OK : sb_fail(err, SB_ERR_NOMEM, "out of memory");
    for (struct dirent *e; !st && (e = readdir(d));) {
        char path[SB_PATH_MAX];
        struct stat sb;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (e->d_name[0] == '.') {
            char shown[1024];
            shown_name(e->d_name, shown, sizeof shown);
            printf("  note: %s is hidden: left out (rename it without the leading dot to grade it)\n", shown);
            continue;
        }
        if ((st = sb_path(path, err, "%s/%s", dir, e->d_name)) || lstat(path, &sb) != 0)
            continue;
        if (S_ISLNK(sb.st_mode)) {               /* a link may lead into the teacher's tree: not followed */
            snprintf(s[n].name, sizeof s[n].name, "%.*s", (int)(strlen(e->d_name) - (ends_with(e->d_name, ext) ?
                     strlen(ext) : 0)), e->d_name);
            snprintf(s[n].entry, sizeof s[n].entry, "%s", e->d_name);
            shown_name(s[n].name, s[n].shown, sizeof s[n].shown);
            s[n++].link = 1;
            continue;
        }
        if (n == CLASS_MAX) {
            st = sb_fail(err, SB_ERR_LIMIT, "--submissions %s: more than %d entries", dir, CLASS_MAX);
            break;
        }
        if (S_ISDIR(sb.st_mode)) {
            snprintf(s[n].name, sizeof s[n].name, "%s", e->d_name);
            folder_file(path, base, ext, s[n].file, sizeof s[n].file);
        } else if (S_ISREG(sb.st_mode) && ends_with(e->d_name, ext)) {
            snprintf(s[n].name, sizeof s[n].name, "%.*s", (int)(strlen(e->d_name) - strlen(ext)), e->d_name);
            snprintf(s[n].file, sizeof s[n].file, "%s", path);
        }
        if (S_ISDIR(sb.st_mode) || (S_ISREG(sb.st_mode) && ends_with(e->d_name, ext))) {
            snprintf(s[n].entry, sizeof s[n].entry, "%s", e->d_name);
            shown_name(s[n].name, s[n].shown, sizeof s[n].shown);
            s[n].is_dir = S_ISDIR(sb.st_mode);
            n++;
        } else {
            printf("  note: %s is neither a student's folder nor a %s file: left out\n", path, ext);
        }
    }
    closedir(d);
    if (!st && n == 0)
        st = sb_fail(err, SB_ERR_USAGE, "--submissions %s: no submissions (a folder per student holding %s, or "
                     "<student>%s files)", dir, base, ext);
    if (st) {
        free(s);
        return st;
    }
    qsort(s, (size_t)n, sizeof *s, by_name);
    part_clashes(s, n);
    *out = s;
    *count = n;
    return SB_OK;
}

/* ---- one student --------------------------------------------------------------------------- */

/* The argument list of a student's grade: the teacher's options as they
 * are, the images by absolute path (the grade runs in the student's tree). */
typedef struct grade_argv {
    char *v[64 + 2 * SB_IMAGE_FILES_MAX];
    int n;
    char seed[32], generated[16], samples[16], threads[16], min_diff[32], alpha[32];
    char images[SB_IMAGE_FILES_MAX][PATH_MAX];
} grade_argv;

static void grade_args(const grade_opts *o, const char *exe, const char *variant, const char *json,
                       const char *student, grade_argv *a)
{
    a->n = 0;
    snprintf(a->seed, sizeof a->seed, "%llu", o->seed);
    snprintf(a->generated, sizeof a->generated, "%d", o->generated);
    snprintf(a->samples, sizeof a->samples, "%d", o->samples);
    snprintf(a->threads, sizeof a->threads, "%d", o->threads);
    snprintf(a->min_diff, sizeof a->min_diff, "%.6g", o->min_diff);
    snprintf(a->alpha, sizeof a->alpha, "%.6g", o->alpha);
    char *fixed[] = { (char *)exe, "grade", (char *)variant, "--seed", a->seed, "--generated", a->generated,
                      "--samples", a->samples, "--threads", a->threads, "--min-diff", a->min_diff, "--alpha",
                      a->alpha, "--set", (char *)o->set, "--speed-set", (char *)o->speed_set, "--json",
                      (char *)json, "--student", (char *)student };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        a->v[a->n++] = fixed[i];
    if (o->stage) {
        a->v[a->n++] = "--stage";
        a->v[a->n++] = (char *)o->stage;
    }
    if (!o->sanitizer)
        a->v[a->n++] = "--no-sanitizer";
    for (int i = 0; i < o->images.nfiles; i++) {
        if (!realpath(o->images.files[i], a->images[i]))
            snprintf(a->images[i], sizeof a->images[i], "%s", o->images.files[i]);
        a->v[a->n++] = "--image";
        a->v[a->n++] = a->images[i];
    }
    a->v[a->n] = NULL;
}

/* The last line of a log that says something (a compiler's error, a
 * grade's reason), into out. */
static void last_words(const char *log, char *out, size_t size)
{
    out[0] = '\0';
    char *text = sb_read_text(log);
    if (!text)
        return;
    const char *best = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, "error") || strstr(line, "segbench grade:") || strstr(line, "grade ") == line)
            best = line;
    if (best)
        snprintf(out, size, "%s", best);
    free(text);
}

/* Now, as a row's date: 2026-11-28T17:14:42Z. */
static void utc_now(char *date, size_t size)
{
    time_t now = time(NULL);
    strftime(date, size, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

/* A row the student's grade could not write itself. */
static sb_status class_row(const grade_opts *o, const char *csv, const char *student, const char *variant,
                           const char *verdict, int code, sb_error *err)
{
    sb_env env;                                  /* this machine's name, as the grades give it */
    sb_env_collect(&env, 0, NULL, 0);
    const char *machine = env.machine_id;
    char date[40];
    utc_now(date, sizeof date);
    grade_class_row row = { date, student, variant, verdict, code, o->seed, 0, 0, 0, 0, machine,
                            sb_env_build_commit() };
    return grade_class_append(csv, &row, err);
}

/* The make arguments that build a student's tree as the teacher's build
 * was built: the same CUDA targets (or none), the same commit, and where
 * the teacher's had nvcc but built no device code, the same reason why --
 * so that the build record (build/gen/buildinfo.h) comes out as the
 * teacher's, and the files that include it are not compiled again for
 * every student (0.6 of a student's 1 s build on a 2-core box). */
typedef struct make_argv {
    char *v[16];
    char jobs[32], cuda[200], why[300], commit[120], dirty[32];
} make_argv;

static void make_args(const char *tree, make_argv *m)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(m->jobs, sizeof m->jobs, "-j%ld", cores > 0 ? cores : 1);
    const char *archs = sb_env_build_cuda_archs();
    snprintf(m->why, sizeof m->why, "NO_CUDA_WHY=%s", sb_device_missing_why());
    if (strcmp(archs, "none") != 0)
        snprintf(m->cuda, sizeof m->cuda, "CUDA_ARCH=%s", archs);
    else if (strcmp(sb_env_build_nvcc_version(), "none") == 0)   /* as the Makefile says it: no nvcc */
        snprintf(m->cuda, sizeof m->cuda, "NVCC=");
    else
        snprintf(m->cuda, sizeof m->cuda, "CUDA_ARCH=none");
    const char *commit = sb_env_build_commit(), *dirty = strstr(commit, "-dirty");
    snprintf(m->commit, sizeof m->commit, "SB_GIT_COMMIT=%.*s", dirty ? (int)(dirty - commit) : (int)strlen(commit),
             commit);
    snprintf(m->dirty, sizeof m->dirty, "SB_GIT_DIRTY=%d", dirty != NULL);
    char *v[] = { "make", "-C", (char *)tree, "--no-print-directory", m->jobs, m->cuda, m->why, m->commit, m->dirty,
                  "INSTALL_TOOLS=no", "build/segbench", NULL };
    memcpy(m->v, v, sizeof v);
}

/* The row of a grade that ended with a verdict's exit code, from the
 * JSON record it wrote in the student's tree -- the grader writes the
 * class's rows, never the graded process, and the name is the grader's.
 * SB_ERR_FORMAT, saying what is wrong, when there is no record or its
 * verdict is not the one the exit code gives (an _exit(0) at the start
 * is no pass). */
/* A student's row from their kit grade's record: a wrong output as the
 * record says; a timed one held to the reference the grader timed
 * (grade_against_reference), so a record cannot grade itself against
 * the reference.  *code becomes the class's exit for the row, and
 * `said` the line printed. */
static sb_status verdict_row(const grade_opts *o, const grade_reference *ref, const char *csv, const char *student,
                             const char *variant, const char *json, int *code, char *said, size_t said_size,
                             sb_error *err)
{
    char *text = sb_read_text(json);
    if (!text)
        return sb_fail(err, SB_ERR_FORMAT, "wrote no record");
    grade_kit_record rec;
    char checks[32], vs_parent[32], x_limit[32], machine[96], commit[64], todo[16];
    sb_json_get(text, "verdict", rec.verdict, sizeof rec.verdict);
    sb_json_get(text, "checks", checks, sizeof checks);
    sb_json_get(text, "speedup_vs_parent", vs_parent, sizeof vs_parent);
    sb_json_get(text, "x_limit", x_limit, sizeof x_limit);
    sb_json_get(text, "machine", machine, sizeof machine);
    sb_json_get(text, "commit", commit, sizeof commit);
    sb_json_get(text, "todo_left", todo, sizeof todo);
    sb_json_get(text, "rounds_student_ms", rec.rounds_student, sizeof rec.rounds_student);
    sb_json_get(text, "rounds_parent_ms", rec.rounds_parent, sizeof rec.rounds_parent);
    free(text);
    rec.todo_left = atoi(todo);
    int wrong = !strncmp(rec.verdict, "FAIL (wrong", 11);
    int agrees = *code == GRADE_EXIT_PASS    ? !strncmp(rec.verdict, "PASS", 4)
                 : *code == GRADE_EXIT_WRONG ? wrong
                                             : !strncmp(rec.verdict, "FAIL", 4) && !wrong;
    if (!agrees)
        return sb_fail(err, SB_ERR_FORMAT, "its record says '%.60s'", rec.verdict);
    const char *verdict = rec.verdict;
    double speedup_parent = strtod(vs_parent, NULL), speedup_reference = 0;
    if (!wrong) {
        sb_effect e_parent, e_reference;
        int held = *code;
        const char *v = grade_against_reference(o, &rec, ref, &e_parent, &e_reference, &held);
        if (!v)
            return sb_fail(err, SB_ERR_FORMAT, "its record holds no rounds to time it by");
        verdict = v;
        *code = held;
        speedup_parent = e_parent.ratio > 0 ? 1.0 / e_parent.ratio : 0;
        speedup_reference = e_reference.ratio > 0 ? 1.0 / e_reference.ratio : 0;
        snprintf(said, said_size, "%s: %.2fx its parent (%s), %.2fx the reference (%s; the reference timed here)",
                 verdict, speedup_parent, sb_call_name(e_parent.call), speedup_reference,
                 sb_call_name(e_reference.call));
    } else {
        snprintf(said, said_size, "%s", verdict);
    }
    char date[40];
    utc_now(date, sizeof date);
    grade_class_row row = { date, student, variant, verdict, *code, o->seed, atoi(checks), speedup_parent,
                            speedup_reference, strtod(x_limit, NULL), machine, commit };
    return grade_class_append(csv, &row, err);
}

/* The processes a student's build or grade left running, ended by the
 * spawn (sb_spawn_contain), said. */
static void say_strays(const submission *sub, const char *what)
{
    int n = sb_spawn_strays();
    if (n > 0)
        printf("  %s: their %s left %d process%s running: ended\n", sub->shown, what, n, n == 1 ? "" : "es");
}

/* Build and grade one student: their row goes into the class CSV.
 * *code gets the exit code of their grade (or what stopped it). */
/* Where a student's code runs: the sandbox, and what it hides (the work
 * folder of every student's tree, the submissions), a folder that holds
 * the teacher's tree excepted. */
enum { GRADE_IMAGES_MAX = 32 };
typedef struct grade_place {
    grade_sandbox sandbox;
    const char *hide[2];
    int nhide;
    const char *gone[KIT_MAX_GONE];         /* the reference solution's files, from the root */
    int ngone;
    char (*blank_path)[PATH_MAX];           /* those in the teacher's tree: empty in the sandbox */
    const char *blank[KIT_MAX_GONE];
    int nblank;
    char cover_path[2][PATH_MAX];           /* the teacher's build and .git: empty in the sandbox */
    const char *cover[2];
    int ncover;
    const sb_variant *rung;                 /* the exercise's rung: the reference solution */
    int reference_timed;                    /* `reference` holds its speed (timed before the first grade) */
    grade_reference reference;
    char submissions[PATH_MAX];
    const char *show[GRADE_IMAGES_MAX + 1]; /* the teacher's tree and images (absolute) */
    char images[GRADE_IMAGES_MAX + 1][PATH_MAX];
    int nshow;
} grade_place;

/* Is `inner` the folder `outer` or inside it? */
static int within(const char *inner, const char *outer)
{
    size_t n = strlen(outer);
    return !strncmp(inner, outer, n) && (inner[n] == '\0' || inner[n] == '/');
}

/* The reference solution out of the students' sight: its files left out
 * of their trees and empty in the sandbox, the teacher's build (whose
 * objects and programs hold it) and git history empty folders there. */
static sb_status place_hide_solution(const sb_variant *rung, const char *root, grade_place *p, sb_error *err)
{
    p->ngone = exercise_solution_files(rung, p->gone, KIT_MAX_GONE);
    if (!(p->blank_path = calloc((size_t)p->ngone, sizeof *p->blank_path)))
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = SB_OK;
    for (int i = 0; i < p->ngone && !st; i++)
        if (!(st = sb_path(p->blank_path[p->nblank], err, "%s/%s", root, p->gone[i])) &&
            access(p->blank_path[p->nblank], F_OK) == 0)
            p->blank[p->nblank] = p->blank_path[p->nblank], p->nblank++;
    const char *dirs[2] = { "build", ".git" };
    struct stat sb;
    for (int i = 0; i < 2 && !st; i++)
        if (!(st = sb_path(p->cover_path[p->ncover], err, "%s/%s", root, dirs[i])) &&
            stat(p->cover_path[p->ncover], &sb) == 0 && S_ISDIR(sb.st_mode))
            p->cover[p->ncover] = p->cover_path[p->ncover], p->ncover++;
    return st;
}

static void grade_place_close(grade_place *p) { free(p->blank_path); }

static sb_status grade_place_open(const grade_opts *o, const grade_class_opts *c, const sb_variant *rung,
                                  grade_place *p, sb_error *err)
{
    memset(p, 0, sizeof *p);
    p->rung = rung;
    sb_status hidden = place_hide_solution(rung, c->root, p, err);
    if (hidden)
        return hidden;
    if (o->images.nfiles > GRADE_IMAGES_MAX)
        return sb_fail(err, SB_ERR_USAGE, "a class is graded on at most %d --image files (%d given)",
                       GRADE_IMAGES_MAX, o->images.nfiles);
    p->show[p->nshow++] = c->root;        /* in sight, read-only, even under /tmp (its own there) */
    for (int i = 0; i < o->images.nfiles; i++)
        if (realpath(o->images.files[i], p->images[p->nshow]))
            p->show[p->nshow] = p->images[p->nshow], p->nshow++;
    if (!c->no_sandbox) {
        sb_status st = grade_sandbox_find(&p->sandbox, err);
        if (st)
            return st;
    }
    if (!within(c->root, c->work))
        p->hide[p->nhide++] = c->work;
    if (realpath(c->submissions, p->submissions) && !within(c->root, p->submissions) &&
        !within(p->submissions, c->work))
        p->hide[p->nhide++] = p->submissions;
    return SB_OK;
}

/* cmd run in the student's tree, inside the sandbox, under the time
 * limit: sb_spawn_limited's status, or RUN_NOT_STARTED (err says why). */
enum { RUN_NOT_STARTED = -2 };
static int run_contained(const grade_place *p, const grade_class_opts *c, const char *tree, char *const cmd[],
                         const char *log, sb_error *err)
{
    sandbox_argv *w = malloc(sizeof *w);
    sandbox_view view = { tree, p->hide, p->nhide, p->show, p->nshow, p->cover, p->ncover, p->blank, p->nblank };
    if (!w || grade_sandbox_wrap(&p->sandbox, &view, cmd, w, err) != SB_OK) {
        if (!w)
            sb_fail(err, SB_ERR_NOMEM, "out of memory");
        free(w);
        return RUN_NOT_STARTED;
    }
    int rc = sb_spawn_limited(w->v, tree, log, c->timeout_s);
    free(w);
    return rc;
}

/* The reference's speed, timed once, before the first student's grade
 * (no student reaches one: no time spent on it). */
static sb_status place_time_reference(const grade_opts *o, grade_place *p, sb_error *err)
{
    if (p->reference_timed)
        return SB_OK;
    printf("  (the reference solution %s, timed here once against its parent: students' trees do not hold it)\n",
           p->rung->who);
    sb_status st = grade_time_reference(o, p->rung, &p->reference, err);
    if (st)
        return st;
    p->reference_timed = 1;
    printf("  (the reference: %.2fx its parent at %s, stage %s, %d rounds)\n", p->reference.speedup,
           p->reference.image, p->reference.stage, p->reference.n);
    return SB_OK;
}

static sb_status grade_student(const grade_opts *o, const grade_class_opts *c, grade_place *place,
                               const char *variant, const char *algo, const char *base, const char *csv,
                               const submission *sub, int index, int *code, sb_error *err)
{
    char tree[SB_PATH_MAX], log[SB_PATH_MAX], json[SB_PATH_MAX], exe[SB_PATH_MAX], words[400];
    sb_status st;
    if ((st = sb_path(tree, err, "%s/%03d", c->work, index)) || (st = sb_path(log, err, "%s/build.log", tree)) ||
        (st = sb_path(json, err, "%s/grade.json", tree)) || (st = sb_path(exe, err, "%s/build/segbench", tree)))
        return st;
    if (sub->link) {
        *code = GRADE_EXIT_USAGE;
        printf("  %s: a symbolic link, not a folder or a file: not followed, not graded\n", sub->shown);
        return class_row(o, csv, sub->name, variant, "FAIL (a link: not a hand-in)", *code, err);
    }
    if (!sub->file[0]) {
        *code = GRADE_EXIT_USAGE;
        printf("  %s: no %s in the folder (or more than one file of its kind)\n", sub->shown, base);
        return class_row(o, csv, sub->name, variant, "FAIL (nothing handed in)", *code, err);
    }
    char *source = NULL;
    size_t len = 0;
    sb_error read_err;
    if (sb_file_read(sub->file, SOURCE_MAX, &source, &len, &read_err) != SB_OK) {
        *code = GRADE_EXIT_USAGE;
        printf("  %s: %s\n", sub->shown, read_err.msg);
        return class_row(o, csv, sub->name, variant, "FAIL (unreadable file)", *code, err);
    }
    st = make_tree(c->root, tree, algo, base, place->gone, place->ngone, source, len, err);
    free(source);
    if (st)
        return st;
    make_argv m;
    make_args(tree, &m);
    int built = run_contained(place, c, tree, m.v, log, err);
    if (built == RUN_NOT_STARTED)
        return err->status;
    say_strays(sub, "build");
    if (built != 0) {
        last_words(log, words, sizeof words);
        *code = GRADE_EXIT_USAGE;
        printf("  %s: FAIL (does not build%s)%s%s; see %s\n", sub->shown,
               built == SB_SPAWN_TIMED_OUT ? ": out of time" : "", words[0] ? ": " : "", words, log);
        return class_row(o, csv, sub->name, variant, "FAIL (does not build)", *code, err);
    }
    if ((st = place_time_reference(o, place, err)))
        return st;
    grade_argv *a = malloc(sizeof *a);
    if (!a)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    if (!(st = sb_path(log, err, "%s/grade.log", tree))) {
        grade_args(o, exe, variant, json, sub->name, a);
        *code = run_contained(place, c, tree, a->v, log, err);
        if (*code == RUN_NOT_STARTED)
            st = err->status;
        say_strays(sub, "grade");
        last_words(log, words, sizeof words);
    }
    free(a);
    if (st)
        return st;
    if (*code == GRADE_EXIT_PASS || *code == GRADE_EXIT_WRONG || *code == GRADE_EXIT_SLOWER) {
        char said[400];
        if (verdict_row(o, &place->reference, csv, sub->name, variant, json, code, said, sizeof said, err) ==
            SB_OK) {
            printf("  %s: %s\n", sub->shown, *code == GRADE_EXIT_WRONG ? words : said);   /* its grade line */
            return SB_OK;
        }
        if (err->status != SB_ERR_FORMAT)
            return err->status;
        printf("  %s: FAIL (no verdict): its grade ended with exit %d but %s; see %s\n", sub->shown, *code, err->msg,
               log);
        *code = GRADE_EXIT_USAGE;
        return class_row(o, csv, sub->name, variant, "FAIL (no verdict)", *code, err);
    }
    char verdict[160];
    if (*code == SB_SPAWN_TIMED_OUT)
        snprintf(verdict, sizeof verdict, "FAIL (out of time: %.0f s)", c->timeout_s);
    else if (*code == 128 + SIGXCPU)            /* past --limit-cpu (a second later it is SIGKILL) */
        snprintf(verdict, sizeof verdict, "FAIL (over its CPU time: %.0f s)", c->cpu_s);
    else if (sb_spawn_over_memory())            /* its control group reached --limit-memory */
        snprintf(verdict, sizeof verdict, "FAIL (over its memory: %.1f GB)", c->memory_bytes / 1e9);
    else if (*code > 128)
        snprintf(verdict, sizeof verdict, "FAIL (crashed: signal %d)", *code - 128);
    else
        snprintf(verdict, sizeof verdict, "FAIL (could not be graded: exit %d)", *code);
    printf("  %s: %s%s%s; see %s\n", sub->shown, verdict, words[0] ? ": " : "", words, log);
    return class_row(o, csv, sub->name, variant, verdict, *code, err);
}

sb_status grade_class_run(const grade_opts *o, const grade_class_opts *c, const char *spec, grade_class_result *res,
                          sb_error *err)
{
    memset(res, 0, sizeof *res);
    char algo[64];
    const char *slash = strchr(spec, '/');
    if (!slash || (size_t)(slash - spec) >= sizeof algo)
        return sb_fail(err, SB_ERR_USAGE, "'%s': name the exercise as ALGO/RUNG", spec);
    snprintf(algo, sizeof algo, "%.*s", (int)(slash - spec), spec);
    const char *rung_name = slash + 1;
    if (sb_is_student_variant(rung_name))
        rung_name += strlen(SB_STUDENT_PREFIX);
    const sb_variant *rung = sb_variant_find(algo, rung_name);
    char why[400];
    if (!rung)
        return sb_fail(err, SB_ERR_USAGE, "'%s': no rung %s/%s here (the teacher's tree holds every rung)", spec,
                       algo, rung_name);
    if (!exercise_parent(rung, why, sizeof why))
        return sb_fail(err, SB_ERR_USAGE, "%s", why);
    if (!o->class_csv)
        return sb_fail(err, SB_ERR_USAGE, "--submissions needs --class FILE.csv (where every student's row goes)");
    /* the trees link to the teacher's tree by absolute paths */
    char root[PATH_MAX], work[PATH_MAX], made[PATH_MAX];
    if (!realpath(c->root, root))
        return sb_fail(err, SB_ERR_IO, "%s: %s", c->root, strerror(errno));
    if (snprintf(made, sizeof made, "%s/build/segbench", root) >= (int)sizeof made || access(made, X_OK) != 0 ||
        snprintf(made, sizeof made, "%s/Makefile", root) >= (int)sizeof made || access(made, R_OK) != 0)
        return sb_fail(err, SB_ERR_USAGE, "%s is not a built segbench tree (no Makefile or build/segbench): grade a "
                       "class from the repository's root, after make", root);
    sb_status st = sb_mkdirs(c->work, err);
    if (st)
        return st;
    if (!realpath(c->work, work))
        return sb_fail(err, SB_ERR_IO, "--work %s: %s", c->work, strerror(errno));
    grade_class_opts abs = *c;
    abs.root = root;
    abs.work = work;
    c = &abs;
    snprintf(res->variant, sizeof res->variant, "%s/" SB_STUDENT_PREFIX "%s", algo, rung->name);
    const char *base = strrchr(rung->file, '/') ? strrchr(rung->file, '/') + 1 : rung->file;

    char csv[PATH_MAX];
    FILE *touch = fopen(o->class_csv, "a");       /* the leaderboard must be writable, and absolute for the trees */
    if (!touch)
        return sb_fail(err, SB_ERR_IO, "--class %s: cannot write (%s)", o->class_csv, strerror(errno));
    fclose(touch);
    if (!realpath(o->class_csv, csv))
        return sb_fail(err, SB_ERR_IO, "--class %s: %s", o->class_csv, strerror(errno));
    for (int i = 0; i < o->images.nfiles; i++)   /* the teacher's images, before anything is built */
        if (access(o->images.files[i], R_OK) != 0)
            return sb_fail(err, SB_ERR_IO, "--image %s: cannot read (%s)", o->images.files[i], strerror(errno));
    submission *subs = NULL;
    int n = 0;
    if ((st = find_submissions(c->submissions, base, &subs, &n, err)))
        return st;
    grade_place place;
    if ((st = grade_place_open(o, c, rung, &place, err))) {
        grade_place_close(&place);
        free(subs);
        return st;
    }
    if (c->no_sandbox)
        printf("  note: --no-sandbox: each student's code runs as you, with your files, this class's other "
               "hand-ins and the network in its reach\n");
    sb_spawn_limits lim = { GRADE_FILE_MAX, (long long)c->memory_bytes, c->cpu_s, c->processes };
    if (sb_spawn_contain(&lim) != 0)   /* no subreaper: a student's setsid() child could outlive them */
        printf("  note: this kernel has no child subreaper: processes a student starts in a session of their own "
               "may outlive their grade\n");
    if (sb_spawn_group_missing())      /* the limits per process only: a hand-in that forks gets them again */
        printf("  note: %s: memory and CPU time are limited per process, the processes' count per user (not at "
               "all for root)\n", sb_spawn_group_missing());
    printf("grading %d submission%s of %s (exercises/%s/%s) with seed %llu, each built in %s/NNN\n", n,
               n == 1 ? "" : "s", res->variant, algo, base, o->seed, c->work);
    for (int i = 0; i < n && !st; i++) {
        printf("[%d/%d] %s\n", i + 1, n, subs[i].shown);
        int code = -1;
        st = grade_student(o, c, &place, res->variant, algo, base, csv, &subs[i], i + 1, &code, err);
        res->students++;
        res->passed += code == GRADE_EXIT_PASS;
        res->wrong += code == GRADE_EXIT_WRONG;
        res->slower += code == GRADE_EXIT_SLOWER;
        res->failed += code != GRADE_EXIT_PASS && code != GRADE_EXIT_WRONG && code != GRADE_EXIT_SLOWER;
    }
    grade_place_close(&place);
    free(subs);
    return st;
}
