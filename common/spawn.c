/* spawn.c - spawn.h: fork, then exec, never a shell. */
#define _GNU_SOURCE                /* pipe2 */
#include "segbench/spawn.h"

#include "segbench/cgroup.h"

#include <ctype.h>
#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* sb_spawn_contain's state: 1 with a subreaper, 0 without, -1: not asked;
 * the processes the last program left; the limits of its processes;
 * whether each program gets a control group (cgroup.h), and why not;
 * whether the last one's group ran out of memory. */
static int contained = -1;
static int strays;
static sb_spawn_limits limits;
static int grouped;
static char group_why[300];
static int over_memory;

/* In a contained program's child, before exec: no core dumps (a crashing
 * hand-in would leave one in its tree), and each of the limits asked for.
 * CPU time past its soft limit is SIGXCPU, a second later SIGKILL. */
static void child_limits(void)
{
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);
    if (limits.file_bytes > 0) {
        struct rlimit most = { (rlim_t)limits.file_bytes, (rlim_t)limits.file_bytes };
        setrlimit(RLIMIT_FSIZE, &most);
    }
    if (limits.memory_bytes > 0) {
        struct rlimit most = { (rlim_t)limits.memory_bytes, (rlim_t)limits.memory_bytes };
        setrlimit(RLIMIT_DATA, &most);
    }
    if (limits.cpu_seconds > 0) {
        rlim_t soft = (rlim_t)ceil(limits.cpu_seconds);
        struct rlimit most = { soft, soft + 1 };
        setrlimit(RLIMIT_CPU, &most);
    }
    if (limits.processes > 0) {
        struct rlimit most = { (rlim_t)limits.processes, (rlim_t)limits.processes };
        setrlimit(RLIMIT_NPROC, &most);
    }
}

/* fork, then exec argv in dir with its output to log; the child leads a
 * process group of its own when `group` (so that a time limit can stop
 * whatever it started); a contained one's child gets child_limits. */
static pid_t start(char *const argv[], const char *dir, const char *input, const char *log, int group, int out_fd,
                   const sb_cgroup *cg)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (group)
        setpgid(0, 0);
    if (group && contained >= 0)             /* a contained sb_spawn_limited */
        child_limits();
    if (cg && cg->version && sb_cgroup_enter(cg) != 0)
        _exit(127);                          /* never run a contained program outside its group */
    if (input) {
        int fd = open(input, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || dup2(fd, 0) < 0)
            _exit(127);
    }
    if (out_fd >= 0) {
        if (dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
            _exit(127);
    } else if (log) {
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

int sb_spawn(char *const argv[], const char *dir, const char *log) { return sb_spawn_input(argv, dir, NULL, log); }

int sb_spawn_input(char *const argv[], const char *dir, const char *input, const char *log)
{
    pid_t pid = start(argv, dir, input, log, 0, -1, NULL);
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


/* The name of the next program's control group: this process's, numbered. */
static void group_name(char *out, size_t size)
{
    static unsigned serial;
    snprintf(out, size, "segbench-%d-%u", (int)getpid(), serial++);
}

int sb_spawn_contain(const sb_spawn_limits *lim)
{
    memset(&limits, 0, sizeof limits);
    if (lim)
        limits = *lim;
    contained = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
    /* can a program get a control group here?  One made, joined by a child and removed says */
    sb_cgroup g;
    char name[64];
    group_name(name, sizeof name);
    grouped = sb_cgroup_create(&g, name, limits.processes, limits.memory_bytes, group_why, sizeof group_why) == 0;
    if (grouped) {
        pid_t child = fork();
        if (child == 0)
            _exit(sb_cgroup_enter(&g) == 0 ? 0 : 1);
        int status = 0;
        while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
            ;
        grouped = child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!grouped)
            snprintf(group_why, sizeof group_why, "a process could not join the control group made for it "
                     "(%.200s)", g.pids);
        sb_cgroup_remove(&g);
    }
    return contained ? 0 : -1;
}

const char *sb_spawn_group_missing(void) { return contained >= 0 && !grouped ? group_why : NULL; }

int sb_spawn_over_memory(void) { return over_memory; }

void sb_spawn_release(void)
{
    if (contained > 0)
        prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
    contained = -1;
    grouped = 0;
    memset(&limits, 0, sizeof limits);
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

/* This process's children now, from /proc: each killed and counted a
 * stray when end_them (a zombie is only waited for).  How many were
 * still alive. */
static int children(int end_them)
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
        if (end_them) {
            count_stray(pid);
            kill(pid, SIGKILL);
        }
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
 * its process group, whatever is left in it.  Those that end by
 * themselves within GRACE_MS are not strays: bubblewrap's process inside
 * the sandbox outlives its parent by a moment as it takes its namespace
 * down, and was said to be "left running" after one build in three. */
enum { GRACE_MS = 100 };
static void end_strays(pid_t group)
{
    strays = 0;
    struct timespec nap = { 0, 2 * 1000 * 1000 };
    for (int waited = 0; contained > 0 && waited < GRACE_MS && children(0) > 0; waited += 2)
        nanosleep(&nap, NULL);
    for (int quiet = 0, round = 0; contained > 0 && quiet < 2 && round < 1000; round++) {
        int live = children(1);
        quiet = live ? 0 : quiet + 1;
        if (!live)
            nanosleep(&nap, NULL);
    }
    kill(-group, SIGKILL);
}

/* A contained program's output, through a pipe into its log: the first
 * SB_SPAWN_LOG_HEAD bytes as they come, the last SB_SPAWN_LOG_TAIL kept
 * in a ring and written at the end after a line saying how much was left
 * out between -- so that 100 MB on stdout take neither the disk nor the
 * memory, and the verdict a program prints last is still there. */
enum { SB_SPAWN_LOG_HEAD = 2 << 20, SB_SPAWN_LOG_TAIL = 1 << 20 };
typedef struct log_pump {
    int in, out;               /* the pipe's read end, the log; -1: none */
    long long written, total;
    char *tail;                /* ring of SB_SPAWN_LOG_TAIL bytes, after the head */
    size_t tail_len, tail_at;
} log_pump;

static void pump_take(log_pump *p, const char *buf, size_t n)
{
    p->total += (long long)n;
    size_t head = p->written < SB_SPAWN_LOG_HEAD ? (size_t)(SB_SPAWN_LOG_HEAD - p->written) : 0;
    if (head > n)
        head = n;
    if (head && write(p->out, buf, head) == (ssize_t)head)
        p->written += (long long)head;
    for (size_t i = head; i < n && p->tail; i++) {
        p->tail[p->tail_at] = buf[i];
        p->tail_at = (p->tail_at + 1) % SB_SPAWN_LOG_TAIL;
        if (p->tail_len < SB_SPAWN_LOG_TAIL)
            p->tail_len++;
    }
}

/* Read what is there now, waiting up to ms for it: 1 when it read some,
 * 0 at the pipe's end (or an error), -1 when nothing came. */
static int pump_read(log_pump *p, int ms)
{
    struct pollfd pfd = { p->in, POLLIN, 0 };
    if (poll(&pfd, 1, ms) <= 0)
        return -1;
    char buf[65536];
    ssize_t n = read(p->in, buf, sizeof buf);
    if (n > 0)
        pump_take(p, buf, (size_t)n);
    return n > 0 ? 1 : n < 0 && (errno == EINTR || errno == EAGAIN) ? -1 : 0;
}

/* What is left in the pipe, then the tail after a line saying how much
 * was left out.  (A log that cannot be written loses what did not fit;
 * the program's status stands.) */
static void pump_finish(log_pump *p)
{
    while (pump_read(p, 0) == 1)
        ;
    long long left_out = p->total - p->written - (long long)p->tail_len;
    char line[160];
    int n = snprintf(line, sizeof line, "\n[segbench: %lld bytes of output left out here: a log keeps the first %d MB "
                     "and the last %d MB]\n", left_out, SB_SPAWN_LOG_HEAD >> 20, SB_SPAWN_LOG_TAIL >> 20);
    size_t first = p->tail_len < SB_SPAWN_LOG_TAIL ? 0 : p->tail_at;   /* the ring's oldest byte */
    size_t a = SB_SPAWN_LOG_TAIL - first < p->tail_len ? SB_SPAWN_LOG_TAIL - first : p->tail_len;
    if ((left_out <= 0 || write(p->out, line, (size_t)n) == n) && a &&
        write(p->out, p->tail + first, a) == (ssize_t)a && p->tail_len > a &&
        write(p->out, p->tail, p->tail_len - a) < 0)
        p->tail_len = 0;                         /* the tail is lost: nothing else reads it */
    close(p->in);
    close(p->out);
    free(p->tail);
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
    log_pump pump = { -1, -1, 0, 0, NULL, 0, 0 };
    int pipe_fd[2] = { -1, -1 };
    if (contained >= 0 && log && pipe2(pipe_fd, O_CLOEXEC) == 0) {
        pump.in = pipe_fd[0];
        pump.out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        pump.tail = malloc(SB_SPAWN_LOG_TAIL);
        if (pump.out < 0 || !pump.tail) {
            close(pipe_fd[0]);
            close(pipe_fd[1]);
            if (pump.out >= 0)
                close(pump.out);
            free(pump.tail);
            pump = (log_pump){ -1, -1, 0, 0, NULL, 0, 0 };
            pipe_fd[1] = -1;
        }
    }
    sb_cgroup cg = { 0 };                    /* contained: the program and all it starts, held together */
    char name[64], why[300];
    group_name(name, sizeof name);
    if (contained >= 0 && grouped)
        sb_cgroup_create(&cg, name, limits.processes, limits.memory_bytes, why, sizeof why);
    over_memory = 0;
    pid_t pid = start(argv, dir, NULL, log, 1, pipe_fd[1], &cg);
    if (pipe_fd[1] >= 0)
        close(pipe_fd[1]);                   /* the child's now: the pipe ends when it and its own do */
    if (pid < 0) {
        sb_cgroup_remove(&cg);
        if (pump.in >= 0)
            pump_finish(&pump);
        for (int i = 0; i < 3; i++)
            sigaction(signals[i], &old[i], NULL);
        return -1;
    }
    setpgid(pid, pid);                       /* also here: no race with the child's own call */
    child_group = pid;
    struct timespec t0, now, nap = { 0, 20 * 1000 * 1000 };
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status = 0, timed_out = 0, lost = 0, over_cpu = 0;
    for (;;) {
        pid_t got = waitpid(pid, &status, seconds > 0 || pump.in >= 0 ? WNOHANG : 0);
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
            sb_cgroup_kill_all(&cg);         /* and what left the process group */
            timed_out = 1;
        }
        if (!over_cpu && !timed_out && limits.cpu_seconds > 0 && sb_cgroup_cpu_seconds(&cg) > limits.cpu_seconds) {
            sb_cgroup_kill_all(&cg);         /* the CPU time of every process it started, together */
            over_cpu = 1;
        }
        if (pump.in >= 0)
            pump_read(&pump, 20);
        else
            nanosleep(&nap, NULL);
    }
    child_group = 0;
    if (contained >= 0)
        end_strays(pid);
    if (cg.version) {
        strays += sb_cgroup_kill_all(&cg);   /* what the subreaper could not see (in a namespace of its own) */
        over_memory = sb_cgroup_out_of_memory(&cg);
        sb_cgroup_remove(&cg);
    }
    if (pump.in >= 0)
        pump_finish(&pump);
    for (int i = 0; i < 3; i++)
        sigaction(signals[i], &old[i], NULL);
    if (caught)
        raise(caught);
    if (lost)
        return -1;
    if (timed_out)
        return SB_SPAWN_TIMED_OUT;
    if (over_cpu)
        return 128 + SIGXCPU;                /* as a process past its own RLIMIT_CPU ends */
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
