/* cgroup.c - cgroup.h: a control group beneath this process's own, v1 or v2. */
#define _GNU_SOURCE
#include "segbench/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The file's first bytes as text ("" when it cannot be read). */
static void read_text(const char *path, char *out, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, size - 1) : 0;
    if (fd >= 0)
        close(fd);
    out[n > 0 ? n : 0] = '\0';
}

/* The number after `key ` in a file of "key value" lines; -1: none. */
static long long keyed_number(const char *path, const char *key)
{
    char text[4096];
    read_text(path, text, sizeof text);
    size_t k = strlen(key);
    for (const char *line = text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
        if (!strncmp(line, key, k) && line[k] == ' ')
            return atoll(line + k + 1);
    return -1;
}

/* Is word in the comma- or space-separated list? */
static int listed(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ',' || p[-1] == ' ') && (p[n] == '\0' || p[n] == ',' || p[n] == ' ' ||
                                                            p[n] == '\n'))
            return 1;
    return 0;
}

/* Where this process's group lies in the hierarchy of `controller` (v1)
 * or in the v2 hierarchy (controller NULL): the folder, from mountinfo's
 * mount point and /proc/self/cgroup's path.  0 or -1. */
static int own_folder(const char *controller, char *out, size_t size)
{
    char line[4096], mount[SB_CGROUP_PATH] = "", root[SB_CGROUP_PATH] = "", path[SB_CGROUP_PATH] = "";
    FILE *fp = fopen("/proc/self/mountinfo", "r");
    while (fp && !mount[0] && fgets(line, sizeof line, fp)) {
        char r[SB_CGROUP_PATH], m[SB_CGROUP_PATH], type[64], opts[1024];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2)
            continue;
        if (controller ? !strcmp(type, "cgroup") && listed(opts, controller) : !strcmp(type, "cgroup2")) {
            snprintf(mount, sizeof mount, "%s", m);
            snprintf(root, sizeof root, "%s", r);
        }
    }
    if (fp)
        fclose(fp);
    fp = fopen("/proc/self/cgroup", "r");
    while (fp && mount[0] && !path[0] && fgets(line, sizeof line, fp)) {   /* "id:controllers:/path" */
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b)
            continue;
        *b = '\0';
        line[strcspn(line, "\n")] = '\0';
        b[1 + strcspn(b + 1, "\n")] = '\0';
        if (controller ? listed(a + 1, controller) : (a[1] == '\0' && !strncmp(line, "0", 1)))
            snprintf(path, sizeof path, "%s", b + 1);
    }
    if (fp)
        fclose(fp);
    if (!mount[0] || !path[0])
        return -1;
    size_t r = strlen(root);           /* a mount of a sub-tree: the path below its root */
    const char *below = strcmp(root, "/") && !strncmp(path, root, r) ? path + r : path;
    return snprintf(out, size, "%s%s", mount, strcmp(below, "/") ? below : "") < (int)size ? 0 : -1;
}

/* folder/name made; 0 or -1. */
static int make_group(const char *folder, const char *name, char *out, size_t size)
{
    if (snprintf(out, size, "%s/%s", folder, name) >= (int)size)
        return -1;
    return mkdir(out, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

static int limit(const char *group, const char *file, long long value)
{
    char path[SB_CGROUP_PATH + 64], text[32];
    snprintf(path, sizeof path, "%s/%s", group, file);
    snprintf(text, sizeof text, "%lld", value);
    return value > 0 ? write_text(path, text) : 0;
}

static int create_v1(sb_cgroup *g, const char *name, long processes, long long memory)
{
    char pids[SB_CGROUP_PATH], mem[SB_CGROUP_PATH], cpu[SB_CGROUP_PATH];
    if (own_folder("pids", pids, sizeof pids) || own_folder("memory", mem, sizeof mem) ||
        make_group(pids, name, g->pids, sizeof g->pids) || make_group(mem, name, g->memory, sizeof g->memory))
        return -1;
    g->version = 1;
    if (!own_folder("cpuacct", cpu, sizeof cpu) && make_group(cpu, name, g->cpu, sizeof g->cpu))
        g->cpu[0] = '\0';
    return limit(g->pids, "pids.max", processes) || limit(g->memory, "memory.limit_in_bytes", memory) ? -1 : 0;
}

static int create_v2(sb_cgroup *g, const char *name, long processes, long long memory)
{
    char folder[SB_CGROUP_PATH], path[SB_CGROUP_PATH + 32], on[256];
    if (own_folder(NULL, folder, sizeof folder))
        return -1;
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", folder);
    read_text(path, on, sizeof on);
    if ((!listed(on, "pids") || !listed(on, "memory")) && write_text(path, "+pids +memory"))
        return -1;                     /* a group with processes of its own cannot hand controllers down */
    if (make_group(folder, name, g->pids, sizeof g->pids))
        return -1;
    g->version = 2;
    if (memory > 0) {                  /* best effort: no swap to run on past the limit */
        snprintf(path, sizeof path, "%s/memory.swap.max", g->pids);
        write_text(path, "0");
    }
    return limit(g->pids, "pids.max", processes) || limit(g->pids, "memory.max", memory) ? -1 : 0;
}

int sb_cgroup_create(sb_cgroup *g, const char *name, long processes, long long memory, char *why, size_t size)
{
    memset(g, 0, sizeof *g);
    if (create_v1(g, name, processes, memory) == 0)
        return 0;
    sb_cgroup_remove(g);               /* what v1 made of it */
    if (create_v2(g, name, processes, memory) == 0)
        return 0;
    int e = errno;
    sb_cgroup_remove(g);
    snprintf(why, size, "no control group could be made beneath this process's own (%s; usually it takes root)",
             strerror(e ? e : ENOENT));
    return -1;
}

int sb_cgroup_enter(const sb_cgroup *g)
{
    char path[SB_CGROUP_PATH + 32], pid[24];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    const char *dirs[3] = { g->pids, g->memory, g->cpu };
    for (int i = 0; i < 3 && g->version; i++) {
        if (!dirs[i][0])
            continue;
        snprintf(path, sizeof path, "%s/cgroup.procs", dirs[i]);
        if (write_text(path, pid))
            return -1;
    }
    return g->version ? 0 : -1;
}

double sb_cgroup_cpu_seconds(const sb_cgroup *g)
{
    char path[SB_CGROUP_PATH + 32], text[64];
    if (g->version == 2) {
        snprintf(path, sizeof path, "%s/cpu.stat", g->pids);
        long long us = keyed_number(path, "usage_usec");
        return us >= 0 ? (double)us * 1e-6 : -1.0;
    }
    if (g->version != 1 || !g->cpu[0])
        return -1.0;
    snprintf(path, sizeof path, "%s/cpuacct.usage", g->cpu);
    read_text(path, text, sizeof text);
    return text[0] ? (double)atoll(text) * 1e-9 : -1.0;
}

int sb_cgroup_out_of_memory(const sb_cgroup *g)
{
    char path[SB_CGROUP_PATH + 32];
    if (g->version == 2) {
        snprintf(path, sizeof path, "%s/memory.events", g->pids);
        return keyed_number(path, "oom_kill") > 0;
    }
    if (g->version != 1)
        return 0;
    snprintf(path, sizeof path, "%s/memory.oom_control", g->memory);
    long long kills = keyed_number(path, "oom_kill");
    if (kills >= 0)
        return kills > 0;
    snprintf(path, sizeof path, "%s/memory.failcnt", g->memory);   /* older kernels: the limit was reached */
    char text[32];
    read_text(path, text, sizeof text);
    return atoll(text) > 0;
}

int sb_cgroup_kill_all(const sb_cgroup *g)
{
    char path[SB_CGROUP_PATH + 32], text[16384];
    if (!g->version)
        return 0;
    snprintf(path, sizeof path, "%s/cgroup.procs", g->pids);
    int killed = 0;
    struct timespec nap = { 0, 1000 * 1000 };
    for (int round = 0, quiet = 0; round < 1000 && quiet < 2; round++) {
        read_text(path, text, sizeof text);
        int found = 0;
        for (char *p = text, *end; *p; p = end) {
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
                found++;
        }
        killed += found;
        quiet = found ? 0 : quiet + 1;
        nanosleep(&nap, NULL);
    }
    return killed;
}

void sb_cgroup_remove(sb_cgroup *g)
{
    sb_cgroup_kill_all(g);
    const char *dirs[3] = { g->pids, g->memory, g->cpu };
    struct timespec nap = { 0, 2 * 1000 * 1000 };
    for (int i = 0; i < 3; i++)        /* a group empties a moment after its last process is killed */
        for (int tries = 0; dirs[i][0] && rmdir(dirs[i]) != 0 && errno == EBUSY && tries < 500; tries++)
            nanosleep(&nap, NULL);
    memset(g, 0, sizeof *g);
}
