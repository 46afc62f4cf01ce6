/* gpu_clocks.c - reading the GPU's clocks (gpu_clocks.h). */
#include "machine/gpu_clocks.h"
#include "machine/nvml.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- NVML ---------------------------------------------------------------------------------- */

static int nvml_read(const char *uuid, sb_gpu_clocks *c)
{
    sb_nvml_dev dev;
    unsigned sm = 0, mem = 0;
    if (!sb_nvml_device(uuid, &dev) || !sb_nvml_clock(dev, SB_NVML_CLOCK_SM, &sm) ||
        !sb_nvml_clock(dev, SB_NVML_CLOCK_MEM, &mem))
        return 0;
    unsigned long long reasons = 0;
    sb_nvml_reasons(dev, &reasons);
    c->sm_mhz = (int)sm;
    c->mem_mhz = (int)mem;
    c->reasons = reasons;
    return 1;
}

/* ---- nvidia-smi, where NVML is not there ---------------------------------------------------- */

static int smi_missing;

static int smi_read(const char *uuid, sb_gpu_clocks *c)
{
    if (smi_missing)
        return 0;
    char id[80];
    snprintf(id, sizeof id, "--id=%s", uuid && *uuid ? uuid : "0");
    char *argv[] = { "nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,clocks_event_reasons.active",
                     "--format=csv,noheader,nounits", id, NULL };
    int fd[2];
    if (pipe(fd) != 0)
        return 0;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    pid_t pid;
    int spawned = posix_spawnp(&pid, "nvidia-smi", &fa, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    char text[256] = "";
    size_t got = 0;
    for (ssize_t n; spawned && got < sizeof text - 1 && (n = read(fd[0], text + got, sizeof text - 1 - got)) > 0;)
        got += (size_t)n;
    text[got] = '\0';
    close(fd[0]);
    int status = 1;
    if (spawned)
        waitpid(pid, &status, 0);
    if (!spawned || !WIFEXITED(status) || WEXITSTATUS(status) == 127) {
        smi_missing = 1;
        return 0;
    }
    int sm, mem;
    unsigned long long reasons = 0;
    int n = sscanf(text, "%d , %d , %llx", &sm, &mem, &reasons);
    if (WEXITSTATUS(status) != 0 || n < 2)
        return 0;
    c->sm_mhz = sm;
    c->mem_mhz = mem;
    c->reasons = reasons;
    return 1;
}

/* ---- the interface -------------------------------------------------------------------------- */

static const char *simulated(void)
{
    const char *s = getenv("SB_SIMULATE_CLOCKS");
    return s && *s ? s : NULL;
}

int sb_gpu_clocks_read(const char *uuid, sb_gpu_clocks *c)
{
    memset(c, 0, sizeof *c);
    const char *sim = simulated();
    if (sim)
        c->ok = sscanf(sim, "%d,%d,%llx", &c->sm_mhz, &c->mem_mhz, &c->reasons) == 3;
    else if (sb_nvml_load())
        c->ok = nvml_read(uuid, c);
    else
        c->ok = smi_read(uuid, c);
    return c->ok;
}

const char *sb_gpu_clocks_source(void)
{
    if (simulated())
        return "simulated";
    if (sb_nvml_load())
        return "nvml";
    if (!smi_missing) {                  /* find out, once, whether nvidia-smi answers */
        sb_gpu_clocks probe;
        smi_read(NULL, &probe);
    }
    return smi_missing ? "none" : "nvidia-smi";
}

void sb_gpu_clocks_reasons_text(unsigned long long reasons, char *out, size_t size)
{
    static const struct {
        unsigned long long bit;
        const char *name;
    } NAMES[] = {
        { 0x04, "sw_power_cap" }, { 0x08, "hw_slowdown" },   { 0x20, "sw_thermal" },
        { 0x40, "hw_thermal" },   { 0x80, "power_brake" },
    };
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0] && n < size; i++)
        if (reasons & NAMES[i].bit)
            n += (size_t)snprintf(out + n, size - n, "%s%s", n ? ";" : "", NAMES[i].name);
}
