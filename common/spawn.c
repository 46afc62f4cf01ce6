/* spawn.c - spawn.h: fork, then exec, never a shell. */
#include "segbench/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int sb_spawn(char *const argv[], const char *dir, const char *log)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (log) {
            int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
                _exit(127);
        }
        if (dir && chdir(dir) != 0)
            _exit(127);
        if (strchr(argv[0], '/'))
            execv(argv[0], argv);
        else
            execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int sb_find_program(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    char file[PATH_MAX + 64];
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(file, sizeof file, "%.*s/%s", n ? (int)n : 1, n ? p : ".", name);
        if (access(file, X_OK) == 0) {
            if (out)
                snprintf(out, size, "%s", file);
            return 1;
        }
        p += n + (p[n] == ':');
    }
    return 0;
}
