/* code_id.c - a variant's code identity (code_id.h).  Self-contained: the
 * build compiles it alone into build/code_ids, before segbench. */
#define _POSIX_C_SOURCE 200809L      /* strtok_r */
#include "base/code_id.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CODE_PATH_MAX = 512 };

typedef struct source {
    char path[CODE_PATH_MAX];
    char *text;
} source;

typedef struct source_set {
    source file[SB_CODE_ID_MAX_FILES];
    int count;
    sb_source_reader read;
    void *ctx;
} source_set;

char *sb_code_id_read_tree(const char *path, void *ctx)
{
    char full[2 * CODE_PATH_MAX];
    snprintf(full, sizeof full, "%s/%s", ctx ? (const char *)ctx : ".", path);
    FILE *fp = fopen(full, "rb");
    if (!fp)
        return NULL;
    size_t cap = 1 << 14, len = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + len, 1, cap - len - 1, fp)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *more = realloc(text, cap *= 2);
            if (!more)
                free(text);
            text = more;
        }
    }
    fclose(fp);
    if (text)
        text[len] = '\0';
    return text;
}

/* "a/b/../c/./d" -> "a/c/d", in place; 0 when it climbs above the root. */
static int tidy_path(char *path)
{
    char *part[64];
    int n = 0;
    for (char *save = NULL, *p = strtok_r(path, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
        if (!strcmp(p, "."))
            continue;
        if (!strcmp(p, "..")) {
            if (n == 0)
                return 0;
            n--;
        } else if (n < 64) {
            part[n++] = p;
        } else {
            return 0;
        }
    }
    char tidy[CODE_PATH_MAX] = "";
    for (int i = 0; i < n; i++) {
        size_t used = strlen(tidy);
        snprintf(tidy + used, sizeof tidy - used, "%s%s", i ? "/" : "", part[i]);
    }
    strcpy(path, tidy);
    return n > 0;
}

static int known(const source_set *s, const char *path)
{
    for (int i = 0; i < s->count; i++)
        if (!strcmp(s->file[i].path, path))
            return 1;
    return 0;
}

/* Read `path` into the set (once); 1 when it is there now. */
static int take(source_set *s, const char *path)
{
    if (known(s, path))
        return 1;
    if (s->count == SB_CODE_ID_MAX_FILES)
        return 0;
    char *text = s->read(path, s->ctx);
    if (!text)
        return 0;
    source *f = &s->file[s->count++];
    snprintf(f->path, sizeof f->path, "%s", path);
    f->text = text;
    return 1;
}

/* The folder of `path` with its slash ("impl_cuda/meanshift/"), or "". */
static void folder_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) + 1 : 0;
    snprintf(dir, size, "%.*s", (int)len, path);
}

/* A quoted include of file f: where the compiler finds it, and the
 * implementation beside a header. */
static void follow(source_set *s, const char *from, const char *name)
{
    char dir[CODE_PATH_MAX], path[CODE_PATH_MAX];
    folder_of(from, dir, sizeof dir);
    const char *roots[] = { dir, "include/", "impl_cpu/" };
    for (int r = 0; r < 3; r++) {
        snprintf(path, sizeof path, "%s%s", roots[r], name);
        if (!tidy_path(path) || !take(s, path))
            continue;
        char *dot = strrchr(path, '.');
        if (dot && (!strcmp(dot, ".h") || !strcmp(dot, ".cuh"))) {
            const char *impl[] = { ".c", ".cu" };
            for (int i = 0; i < 2; i++) {
                strcpy(dot, impl[i]);
                take(s, path);
            }
            /* impl_cpu/<algo>_host.h: the serial file <algo>.c holds what it declares */
            size_t len = (size_t)(dot - path);
            if (len > 5 && !strncmp(dot - 5, "_host", 5)) {
                strcpy(dot - 5, ".c");
                take(s, path);
            }
        }
        return;
    }
}

/* Every quoted include of s->file[i]. */
static void scan(source_set *s, int i)
{
    for (const char *p = s->file[i].text; p && *p;) {
        const char *line = p;
        const char *end = strchr(p, '\n');
        p = end ? end + 1 : p + strlen(p);
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line != '#')
            continue;
        line++;
        while (*line == ' ' || *line == '\t')
            line++;
        if (strncmp(line, "include", 7))
            continue;
        const char *open = strchr(line, '"');
        const char *close = open ? strchr(open + 1, '"') : NULL;
        if (!open || !close || (end && close > end) || close - open - 1 >= CODE_PATH_MAX)
            continue;
        char name[CODE_PATH_MAX];
        snprintf(name, sizeof name, "%.*s", (int)(close - open - 1), open + 1);
        follow(s, s->file[i].path, name);
    }
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const source *)a)->path, ((const source *)b)->path);
}

static uint64_t fnv(uint64_t h, const char *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)bytes[i];
        h *= 1099511628211ull;
    }
    return h;
}

static const char MEASURED[] = " * Measured (the run of record";

/* The text's hash without a rung header's measured block: from its first
 * line up to the line that closes the comment, which stays. */
static uint64_t fnv_text(uint64_t h, const char *text)
{
    int skipping = 0;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) + 1 : strlen(p);
        if (!strncmp(p, MEASURED, sizeof MEASURED - 1))
            skipping = 1;
        else if (skipping && !strncmp(p, " */", 3))
            skipping = 0;
        if (!skipping)
            h = fnv(h, p, len);
        p += len;
    }
    return h;
}

int sb_code_id(const char *file, sb_source_reader read, void *ctx, char id[SB_CODE_ID_LEN + 1])
{
    source_set *s = calloc(1, sizeof *s);     /* 256 paths: too large for a stack */
    id[0] = '\0';
    if (!s)
        return 0;
    s->read = read;
    s->ctx = ctx;
    if (!take(s, file)) {
        free(s);
        return 0;
    }
    for (int i = 0; i < s->count; i++)     /* the set grows as it is scanned */
        scan(s, i);
    qsort(s->file, (size_t)s->count, sizeof s->file[0], by_path);
    uint64_t h = 14695981039346656037ull;
    for (int i = 0; i < s->count; i++) {
        h = fnv(h, s->file[i].path, strlen(s->file[i].path) + 1);
        h = fnv_text(h, s->file[i].text);
        h = fnv(h, "", 1);
        free(s->file[i].text);
    }
    snprintf(id, SB_CODE_ID_LEN + 1, "%016llx", (unsigned long long)h);
    int files = s->count;
    free(s);
    return files;
}
