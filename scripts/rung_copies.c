/* rung_copies.c - `make check-copies`: the copies between the CUDA ladders'
 * files, held to a list that may only shrink (issue 78, "Ladders without
 * copies").
 *
 * The rule (impl_cuda/README.md): a rung file holds the kernels its idea
 * changes, whole, and its registration; what it keeps from its parent
 * comes from its ladder's shared device code, never from a copy.  Most
 * rungs were written before the rule as whole copies of their parents,
 * so the check is a ratchet: two files of impl_cuda/ that share a run of
 * RUN or more lines (the same text, spaces aside; blank lines skipped, a
 * comment's blank " *" lines too: the rung headers end in one since their
 * numbers left them)
 * must be listed in impl_cuda/COPIES.txt, a listed pair's longest run may
 * not grow, and a listed pair that no longer shares one must leave the
 * list.  A new rung that copies its parent fails it.
 *
 *   rung_copies DIR LIST            check (exit 1: a copy not listed, grown, or stale)
 *   rung_copies --write DIR LIST    write LIST from what is there now */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { RUN = 40, MAX_FILES = 512, PATH = 1024 };

typedef struct source {
    char path[PATH];           /* relative to DIR: "grabcut/11_tally.cu" */
    int n;                     /* its lines, blank ones (and blank " *" ones) skipped */
    uint64_t *line;            /* each line's hash, spaces aside */
    int *at;                   /* its number in the file */
    uint64_t *window;          /* the hash of each RUN lines from i, sorted (n - RUN + 1 of them) */
    int windows;
} source;

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int read_source(const char *dir, const char *rel, source *s)
{
    char full[2 * PATH + 2], text[4096];
    snprintf(full, sizeof full, "%s/%s", dir, rel);
    FILE *fp = fopen(full, "r");
    if (!fp)
        return -1;
    snprintf(s->path, sizeof s->path, "%s", rel);
    int cap = 256, number = 0;
    s->line = malloc(cap * sizeof *s->line);
    s->at = malloc(cap * sizeof *s->at);
    while (s->line && s->at && fgets(text, sizeof text, fp)) {
        number++;
        char *a = text, *b = text + strlen(text);
        while (*a == ' ' || *a == '\t')
            a++;
        while (b > a && (b[-1] == '\n' || b[-1] == '\r' || b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (b == a || (b - a == 1 && *a == '*'))     /* a blank line, in a comment or not */
            continue;
        if (s->n == cap) {
            cap *= 2;
            s->line = realloc(s->line, cap * sizeof *s->line);
            s->at = realloc(s->at, cap * sizeof *s->at);
            if (!s->line || !s->at)
                break;
        }
        s->line[s->n] = fnv(a, (size_t)(b - a));
        s->at[s->n++] = number;
    }
    fclose(fp);
    if (!s->line || !s->at)
        return -1;
    s->windows = s->n >= RUN ? s->n - RUN + 1 : 0;
    s->window = malloc((s->windows ? s->windows : 1) * sizeof *s->window);
    for (int i = 0; s->window && i < s->windows; i++)
        s->window[i] = fnv((const char *)(s->line + i), RUN * sizeof *s->line);
    if (s->window)
        qsort(s->window, (size_t)s->windows, sizeof *s->window, by_value);
    return s->window ? 0 : -1;
}

/* Every .cu and .cuh one folder down from dir (the ladders' folders). */
static int read_tree(const char *dir, source *src, int *n)
{
    DIR *top = opendir(dir);
    if (!top)
        return -1;
    for (struct dirent *e; (e = readdir(top));) {
        char sub[2 * PATH + 2];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        DIR *d = opendir(sub);
        for (struct dirent *f; d && (f = readdir(d));) {
            size_t len = strlen(f->d_name);
            int cu = len > 3 && !strcmp(f->d_name + len - 3, ".cu"), cuh = len > 4 && !strcmp(f->d_name + len - 4, ".cuh");
            char rel[PATH];
            if ((!cu && !cuh) || *n == MAX_FILES || snprintf(rel, sizeof rel, "%s/%s", e->d_name, f->d_name) >= PATH)
                continue;
            memset(&src[*n], 0, sizeof src[*n]);
            if (read_source(dir, rel, &src[*n]) == 0)
                (*n)++;
        }
        if (d)
            closedir(d);
    }
    closedir(top);
    return 0;
}

/* Do two files share a window of RUN lines? (Both lists sorted.) */
static int share_window(const source *a, const source *b)
{
    for (int i = 0, j = 0; i < a->windows && j < b->windows;) {
        if (a->window[i] == b->window[j])
            return 1;
        if (a->window[i] < b->window[j])
            i++;
        else
            j++;
    }
    return 0;
}

/* The longest run of equal lines the two share, and where it starts. */
static int longest_run(const source *a, const source *b, int *at_a, int *at_b)
{
    int *prev = calloc((size_t)b->n + 1, sizeof *prev), *cur = calloc((size_t)b->n + 1, sizeof *cur), best = 0;
    for (int i = 1; prev && cur && i <= a->n; i++) {
        for (int j = 1; j <= b->n; j++) {
            cur[j] = a->line[i - 1] == b->line[j - 1] ? prev[j - 1] + 1 : 0;
            if (cur[j] > best) {
                best = cur[j];
                *at_a = a->at[i - best];
                *at_b = b->at[j - best];
            }
        }
        int *t = prev;
        prev = cur;
        cur = t;
    }
    free(prev);
    free(cur);
    return best;
}

static int by_path(const void *a, const void *b) { return strcmp(((const source *)a)->path, ((const source *)b)->path); }

/* The list's entry for a pair: its longest run then, or -1. */
static int listed_run(const char *list, const char *a, const char *b)
{
    char want[2 * PATH + 4];
    snprintf(want, sizeof want, "%s %s ", a, b);
    for (const char *p = list; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, want, strlen(want)))
            return atoi(p + strlen(want));
    return -1;
}

int main(int argc, char **argv)
{
    int write = argc == 4 && !strcmp(argv[1], "--write");
    if (argc != 3 + write) {
        fprintf(stderr, "usage: rung_copies [--write] DIR LIST\n");
        return 2;
    }
    const char *dir = argv[1 + write], *list_path = argv[2 + write];
    static source src[MAX_FILES];
    int n = 0;
    if (read_tree(dir, src, &n) != 0) {
        fprintf(stderr, "rung_copies: cannot read %s\n", dir);
        return 2;
    }
    qsort(src, (size_t)n, sizeof *src, by_path);
    static char list[1 << 20];
    FILE *fp = fopen(list_path, write ? "w" : "r");
    size_t got = !write && fp ? fread(list, 1, sizeof list - 1, fp) : 0;
    list[got] = '\0';
    if (!fp && write) {
        fprintf(stderr, "rung_copies: cannot write %s\n", list_path);
        return 2;
    }
    if (write)
        fprintf(fp, "# Pairs of files under %s sharing a run of %d or more lines (spaces aside, blank lines and\n"
                    "# blank comment lines skipped), and the longest run: the copies of issue 78, which may\n"
                    "# only shrink.  `make check-copies` holds it; `make check-copies WRITE=1` writes it anew.\n",
                dir, RUN);
    int pairs = 0, bad = 0, still = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int at_a = 0, at_b = 0, run = share_window(&src[i], &src[j]) ? longest_run(&src[i], &src[j], &at_a, &at_b) : 0;
            int was = write ? -1 : listed_run(list, src[i].path, src[j].path);
            if (run >= RUN)
                pairs++;
            if (write && run >= RUN)
                fprintf(fp, "%s %s %d\n", src[i].path, src[j].path, run);
            else if (!write && run >= RUN && was < 0) {
                printf("copy: %s:%d and %s:%d share %d lines: keep what the rung keeps from its parent in the "
                       "ladder's shared code (impl_cuda/README.md)\n", src[i].path, at_a, src[j].path, at_b, run);
                bad++;
            } else if (!write && run >= RUN && run > was) {
                printf("copy grown: %s:%d and %s:%d share %d lines, %d when listed\n", src[i].path, at_a,
                       src[j].path, at_b, run, was);
                bad++;
            } else if (!write && was >= 0 && run < RUN) {
                printf("stale: %s and %s share no run of %d lines now: take them out of %s (make check-copies "
                       "WRITE=1)\n", src[i].path, src[j].path, RUN, list_path);
                bad++;
            }
            still += !write && was >= 0 && run >= RUN;
        }
    if (fp)
        fclose(fp);
    if (write)
        printf("rung_copies: %d pairs of %d files share a run of %d lines or more: written to %s\n", pairs, n, RUN,
               list_path);
    else
        printf("rung_copies: %d files, %d pairs sharing a run of %d lines or more (%d listed in %s, to go); %s\n", n,
               pairs, RUN, still, list_path, bad ? "FAILED" : "no new copy");
    return bad ? 1 : 0;
}
