/* git.c - git's answers, asked without a shell (git.h). */
#define _GNU_SOURCE            /* mkstemp */
#include "io/git.h"

#include "base/files.h"

#include "segbench/spawn.h"

#include <stdio.h>
#include <stdlib.h>
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
