/* git.c - git's answers, asked without a shell (git.h). */
#define _GNU_SOURCE            /* mkstemp */
#include "io/git.h"

#include "base/files.h"

#include "segbench/spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *sb_git_output(char *const argv[])
{
    char out[] = "/tmp/segbench-git-XXXXXX";
    int fd = mkstemp(out);
    if (fd < 0)
        return NULL;
    close(fd);
    /* stdout and stderr share the file: git's complaints are a failure's, and a
     * failure returns NULL, so what a success returns is its output alone */
    char *text = sb_spawn(argv, NULL, out) == 0 ? sb_read_text(out) : NULL;
    unlink(out);
    return text;
}

char *sb_git_show(const char *commit, const char *path)
{
    char spec[SB_PATH_MAX + 80];
    if (snprintf(spec, sizeof spec, "%s:%s", commit, path) >= (int)sizeof spec)
        return NULL;
    char *argv[] = { "git", "show", spec, NULL };
    return sb_git_output(argv);
}

int sb_git_show_many(const char *const *specs, int n, char **texts)
{
    for (int i = 0; i < n; i++)
        texts[i] = NULL;
    char in[] = "/tmp/segbench-git-in-XXXXXX", out[] = "/tmp/segbench-git-out-XXXXXX";
    int fin = mkstemp(in), fout = fin >= 0 ? mkstemp(out) : -1;
    FILE *fp = fin >= 0 ? fdopen(fin, "w") : NULL;
    int ok = fp && fout >= 0;
    for (int i = 0; ok && i < n; i++)
        ok = !strchr(specs[i], '\n') && fprintf(fp, "%s\n", specs[i]) > 0;
    if (fp)
        ok = fclose(fp) == 0 && ok;
    else if (fin >= 0)
        close(fin);
    if (fout >= 0)
        close(fout);
    char *argv[] = { "git", "cat-file", "--batch", NULL };
    char *all = ok && sb_spawn_input(argv, NULL, in, out) == 0 ? sb_read_text(out) : NULL;
    if (fin >= 0)
        unlink(in);
    if (fout >= 0)
        unlink(out);
    /* each answer: "<object> blob <size>\n<size bytes>\n", or "<spec> missing\n" */
    const char *at = all, *end = all ? all + strlen(all) : NULL;
    for (int i = 0; at && i < n; i++) {
        const char *eol = strchr(at, '\n');
        char kind[16];
        unsigned long size;
        if (!eol)
            at = NULL;
        else if (sscanf(at, "%*s %15s %lu", kind, &size) == 2 && !strcmp(kind, "blob") &&
                 (size_t)(end - (eol + 1)) >= size + 1 && (texts[i] = malloc(size + 1))) {
            memcpy(texts[i], eol + 1, size);
            texts[i][size] = '\0';
            at = eol + 1 + size + 1;
        } else if (strstr(at, " missing") && strstr(at, " missing") < eol)
            at = eol + 1;                      /* no such file there */
        else
            at = NULL;                         /* not an answer of cat-file's, or no memory */
    }
    free(all);
    if (at || n == 0)
        return 0;
    for (int i = 0; i < n; i++) {
        free(texts[i]);
        texts[i] = NULL;
    }
    return -1;
}
