/* spawn.h - running another program without a shell.
 *
 * Names that reach a program here (result folders, image files, source
 * paths) may hold any character; they go to it as arguments, never as
 * shell text: fork, then exec of argv.  Used for gnuplot (the report),
 * diff (segbench lesson), compute-sanitizer (segbench grade), and make
 * and the graders of a class (segbench grade --submissions). */
#ifndef SEGBENCH_SPAWN_H
#define SEGBENCH_SPAWN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Run argv[0] with argv (NULL-terminated): found on PATH unless it holds a
 * '/'; in folder dir (NULL: this one); its stdout and stderr to the file
 * log, created or emptied (NULL: this process's).  Waits for it.  Returns
 * its exit status, 127 when it could not be started (as a shell does), or
 * -1 when it could not be forked, waited for, or ended by a signal. */
int sb_spawn(char *const argv[], const char *dir, const char *log);

/* sb_spawn with its standard input read from the file `input` (NULL: this
 * process's): a program that takes its requests a line each. */
int sb_spawn_input(char *const argv[], const char *dir, const char *input, const char *log);

/* sb_spawn with a time limit (seconds <= 0: none), for work that may not
 * end (a student's code): past the limit the program and every process it
 * started (its process group) are killed, and SB_SPAWN_TIMED_OUT is
 * returned.  Ended by a signal: 128 + the signal's number, as a shell
 * says it.  Else as sb_spawn. */
enum { SB_SPAWN_TIMED_OUT = 124 };         /* as timeout(1) */
int sb_spawn_limited(char *const argv[], const char *dir, const char *log, double seconds);

/* For untrusted work: from now on this process is the reaper of its
 * children's orphans (Linux's PR_SET_CHILD_SUBREAPER), and each
 * sb_spawn_limited, once its program has ended, ends every process that
 * program left behind -- its process group, and every process that came
 * back to this one as its parent (a child that called setsid(), a fork
 * of a fork): each killed, and waited for.  The count of those is
 * sb_spawn_strays().  Its program's output reaches its log through a
 * pipe that keeps the head and the tail, and each of its processes runs
 * with no core dumps and within lim (NULL, or 0 in a field: no such
 * limit) -- setrlimit's limits, so each holds per process except the
 * processes' count, which holds per user (and not for root). Returns 0,
 * or -1 where the kernel offers no subreaper (then only the process group
 * is ended).  sb_spawn_release() ends all of that. */
typedef struct sb_spawn_limits {
    long long file_bytes;      /* no file larger (a write past it fails; SIGXFSZ) */
    long long memory_bytes;    /* heap and private writable mappings (RLIMIT_DATA: malloc returns NULL) */
    double cpu_seconds;        /* CPU time, all its threads' (SIGXCPU, a second later SIGKILL) */
    long processes;            /* processes of the user at once (RLIMIT_NPROC: fork fails) */
} sb_spawn_limits;
int sb_spawn_contain(const sb_spawn_limits *lim);
void sb_spawn_release(void);
int sb_spawn_strays(void);
/* Where the kernel lets this process make control groups (cgroup.h: as
 * root, usually), each contained program runs in a group of its own that
 * holds lim for it and everything it starts together: processes at once
 * (root included), memory between them, and their CPU time summed (past
 * it, all are killed and the status is 128 + SIGXCPU, as a process past
 * its own RLIMIT_CPU).  NULL when it does; else why not, a line (the
 * limits then hold per process only). */
const char *sb_spawn_group_missing(void);
/* Did the last contained program's group reach its memory limit (the
 * kernel ended one of its processes)? */
int sb_spawn_over_memory(void);

/* Where name is on PATH: 1 with the path in out (when out is not NULL),
 * else 0. */
int sb_find_program(const char *name, char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif
