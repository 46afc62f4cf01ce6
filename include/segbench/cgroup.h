/* cgroup.h - a group of processes held to limits together: a Linux
 * control group, for a student's build or grade (spawn.h).
 *
 * setrlimit's limits hold per process, and the count of processes per
 * user and not at all for root: a hand-in that forks gets the memory and
 * CPU limits once a child, and a fork bomb graded as root runs until the
 * time limit.  A control group holds every process in it, whoever runs
 * it: at most `processes` of them at once (a fork past it fails), at
 * most `memory` bytes between them (past it the kernel's OOM killer ends
 * one), and their CPU time read as one sum.
 *
 * Made beneath this process's own group, where the kernel lets it write:
 * cgroup v2 (one hierarchy, its pids and memory controllers enabled for
 * the children of this process's group) or v1 (the pids, memory and
 * cpuacct hierarchies, each mounted apart).  Usually that takes root;
 * where none can be made, the caller says so and keeps its per-process
 * limits. */
#ifndef SEGBENCH_CGROUP_H
#define SEGBENCH_CGROUP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { SB_CGROUP_PATH = 4096 };

typedef struct sb_cgroup {
    int version;                       /* 2, 1; 0: none made */
    char pids[SB_CGROUP_PATH];         /* v2: the group; v1: its folder in the pids hierarchy */
    char memory[SB_CGROUP_PATH];       /* v1: in the memory hierarchy ("" in v2) */
    char cpu[SB_CGROUP_PATH];          /* v1: in the cpuacct hierarchy ("": its CPU time not known) */
} sb_cgroup;

/* A new group `name` (a name, no '/') with at most `processes` processes
 * and `memory` bytes (0: no such limit).  0, or -1 with why (a line:
 * what could not be made) and *g with version 0. */
int sb_cgroup_create(sb_cgroup *g, const char *name, long processes, long long memory, char *why, size_t size);
/* The calling process joins g: a child, before it execs the program.
 * 0 or -1. */
int sb_cgroup_enter(const sb_cgroup *g);
/* The CPU seconds g's processes have used, the ended ones included; -1
 * when not known. */
double sb_cgroup_cpu_seconds(const sb_cgroup *g);
/* Did the kernel end one of g's processes for its memory limit? */
int sb_cgroup_out_of_memory(const sb_cgroup *g);
/* Kill every process in g, again until none is left (a fork between two
 * reads joins it): how many were killed. */
int sb_cgroup_kill_all(const sb_cgroup *g);
/* Kill what is left and remove g. */
void sb_cgroup_remove(sb_cgroup *g);

#ifdef __cplusplus
}
#endif
#endif
