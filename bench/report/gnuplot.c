/* gnuplot.c - running gnuplot without a shell (see report_parts.h).
 *
 * Folder names come from the results root, which may be shared: a name
 * such as "x';touch PWNED;'" must reach gnuplot as a name, never as shell
 * text.  So gnuplot is found on PATH here and started with fork and
 * execvp, in the plot folder, its messages going to a log file. */
#include "report/report_parts.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int report_gnuplot_found(void)
{
    const char *path = getenv("PATH");
    char dir[PATH_MAX + 16];
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(dir, sizeof dir, "%.*s/gnuplot", (int)n ? (int)n : 1, n ? p : ".");
        if (access(dir, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

int report_gnuplot_run(const char *dir, const char *script, const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (chdir(dir) != 0 || fd < 0 || dup2(fd, 2) < 0)
            _exit(127);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
