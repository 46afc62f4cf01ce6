/* env.h - the machine fingerprint written beside every result set. */
#ifndef SEGBENCH_ENV_H
#define SEGBENCH_ENV_H

#include <stdio.h>

#include "segbench/device.h"
#include "segbench/error.h"

enum { SB_ENV_MAX_THREAD_COUNTS = 16 };

typedef struct sb_env {
    char machine_id[96];          /* e.g. "h100-80gb-hbm3", "cpu-intel-xeon-gold-6430" */
    sb_device_info device;
    double device_copy_gbps;      /* measured D2D copy, read + write bytes; 0 if none */
    sb_bus_rates bus;             /* measured pinned host <-> device copies; zeros if none */
    char cpu_model[160];
    int cpu_cores;                /* online logical CPUs */
    int cpu_usable_cores;         /* of them, those this process may run on (its affinity) */
    double cpu_llc_bytes;         /* CPU 0's last-level cache (sysfs); 0 unknown */
    char host[128];               /* the host's name: two result sets of one host say so */
    int host_threads[SB_ENV_MAX_THREAD_COUNTS];
    double host_copy_gbps[SB_ENV_MAX_THREAD_COUNTS];   /* memcpy with that many threads */
    int host_counts;
    char os[200];
    char kernel[120];
    char cc_version[160], cflags[400];
    char nvcc_version[160], nvccflags[400];
    char commit[48];              /* the binary's (built in), without "-dirty" */
    int dirty;                    /* the binary was built from a tree with changes; -1 unknown */
    char tree_commit[56];         /* git in the current directory, "-dirty" added, where it
                                     differs from the binary's; "" otherwise */
    char date[40];                /* UTC, ISO 8601 */
    char set[64];
    int l2_flush;
    /* the bench run these results come from */
    char run_id[48];
    char run_options[400];        /* the timing options; a resumed run must share them */
    char run_algos[400];          /* algorithms this run has measured, comma list */
    int run_finished;             /* 1 once the run (or its last resume) got to its end */
    int rows_planned, rows_done;  /* of the latest invocation */
    double run_seconds;           /* the time bench spent on this run, resumes included */
    char time_spent[600];         /* where the latest invocation's time went, a JSON object of
                                     seconds (bench's account); "" none */
    char repeatability[300];      /* how many rows repeated at the run's end (run/repeat.c), a
                                     sentence; "" not measured */
    int repeat_cpu[2], repeat_gpu[2];   /* of them within 10 %, and how many, by kind */
} sb_env;

/* Collect everything; measure bandwidth (a second or two) when asked, for
 * the given host thread counts. */
void sb_env_collect(sb_env *env, int measure, const int *threads, int thread_counts);
/* The bandwidth part alone, for an env collected without it. */
void sb_env_measure(sb_env *env, const int *threads, int thread_counts);

/* The host copy bandwidth measured for `threads` (nearest count below). */
double sb_env_host_peak(const sb_env *env, int threads);

sb_status sb_env_write_json(const sb_env *env, const char *path, sb_error *err);
/* The same JSON to a stream. */
void sb_env_print_json(const sb_env *env, FILE *fp);

/* The commit this binary was built from ("-dirty" when the tree had changes). */
const char *sb_env_build_commit(void);
/* The CUDA targets it was built for ("90", "75 80 86 89 90"), or "none". */
const char *sb_env_build_cuda_archs(void);
/* The nvcc this binary was built with ("none": none found). */
const char *sb_env_build_nvcc_version(void);

/* The cores this process may run on: its CPU affinity (what Slurm's
 * --cpus-per-task, taskset or a cgroup leave it), else the online count. */
int sb_usable_cores(void);

/* "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3". */
void sb_env_slug(const char *name, char *out, size_t size);

#endif
