/* spawn.c - spawn.h: fork, then exec, never a shell. */
#define _DEFAULT_SOURCE            /* DT_DIR */
#include "segbench/spawn.h"

#include <ctype.h>
#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* fork, then exec argv in dir with its output to log; the child leads a
 * process group of its own when `group` (so that a time limit can stop
 * whatever it started). */
static pid_t start(char *const argv[], const char *dir, const char *log, int group)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (group)
        setpgid(0, 0);
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

int sb_spawn(char *const argv[], const char *dir, const char *log)
{
    pid_t pid = start(argv, dir, log, 0);
    if (pid < 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* While a limited child runs in its own process group, the terminal's
 * Ctrl-C reaches only this process: pass it (and SIGTERM, SIGHUP) on to
 * the group, then end as the signal ends us once the child is gone. */
static volatile sig_atomic_t child_group, caught;
static void forward(int sig)
{
    caught = sig;
    if (child_group > 0)
        kill(-(pid_t)child_group, sig);
}

static int contained = -1;         /* sb_spawn_contain: 1 with a subreaper, 0 without, -1: not asked */
static int strays;

int sb_spawn_contain(void)
{
    contained = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
    return contained ? 0 : -1;
}

int sb_spawn_strays(void) { return strays; }

/* The processes ended since the last program ended (each counted once). */
enum { STRAYS_MAX = 4096 };
static pid_t stray[STRAYS_MAX];

static void count_stray(pid_t pid)
{
    for (int i = 0; i < strays && i < STRAYS_MAX; i++)
        if (stray[i] == pid)
            return;
    if (strays < STRAYS_MAX)
        stray[strays] = pid;
    strays++;
}

/* This process's children now, from /proc: each killed (a zombie is only
 * waited for).  How many were still alive. */
static int kill_children(void)
{
    DIR *d = opendir("/proc");
    int live = 0;
    pid_t me = getpid();
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        char path[300], line[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *fp = fopen(path, "r");
        size_t got = fp ? fread(line, 1, sizeof line - 1, fp) : 0;
        if (fp)
            fclose(fp);
        line[got] = '\0';
        const char *after = strrchr(line, ')');   /* past the name, which may hold anything */
        char state;
        int ppid;
        if (!after || sscanf(after + 1, " %c %d", &state, &ppid) != 2 || ppid != me || state == 'Z')
            continue;
        pid_t pid = (pid_t)atoi(e->d_name);
        live++;
        count_stray(pid);
        kill(pid, SIGKILL);
    }
    if (d)
        closedir(d);
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    return live;
}

/* What the ended program left behind, ended: with a subreaper, every
 * process that came back here (its children, once it ended, and any whose
 * parent died before), round after round until two looks 2 ms apart find
 * none (a killed process's own children come back in their turn); then
 * its process group, whatever is left in it. */
static void end_strays(pid_t group)
{
    strays = 0;
    struct timespec nap = { 0, 2 * 1000 * 1000 };
    for (int quiet = 0, round = 0; contained > 0 && quiet < 2 && round < 1000; round++) {
        int live = kill_children();
        quiet = live ? 0 : quiet + 1;
        if (!live)
            nanosleep(&nap, NULL);
    }
    kill(-group, SIGKILL);
}

int sb_spawn_limited(char *const argv[], const char *dir, const char *log, double seconds)
{
    const int signals[3] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    caught = 0;
    for (int i = 0; i < 3; i++)
        sigaction(signals[i], &sa, &old[i]);
    pid_t pid = start(argv, dir, log, 1);
    if (pid < 0) {
        for (int i = 0; i < 3; i++)
            sigaction(signals[i], &old[i], NULL);
        return -1;
    }
    setpgid(pid, pid);                       /* also here: no race with the child's own call */
    child_group = pid;
    struct timespec t0, now, nap = { 0, 20 * 1000 * 1000 };
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status = 0, timed_out = 0, lost = 0;
    for (;;) {
        pid_t got = waitpid(pid, &status, seconds > 0 ? WNOHANG : 0);
        if (got == pid)
            break;
        if (got < 0 && errno != EINTR) {
            lost = 1;
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!timed_out && seconds > 0 &&
            (double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > seconds) {
            kill(-pid, SIGKILL);             /* the whole group: a make, its compilers, a grade */
            timed_out = 1;
        }
        nanosleep(&nap, NULL);
    }
    child_group = 0;
    if (contained >= 0)
        end_strays(pid);
    for (int i = 0; i < 3; i++)
        sigaction(signals[i], &old[i], NULL);
    if (caught)
        raise(caught);
    if (lost)
        return -1;
    if (timed_out)
        return SB_SPAWN_TIMED_OUT;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
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
