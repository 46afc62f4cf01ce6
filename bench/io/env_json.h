/* env_json.h - reading the env.json that `bench` writes beside a result
 * set: a flat key's value, and what it says of the run.  Written by env.c;
 * read here by report, compare and bench --resume (and a fuzzer: a
 * results folder may come from anywhere). */
#ifndef SEGBENCH_ENV_JSON_H
#define SEGBENCH_ENV_JSON_H

#include <stddef.h>

/* A flat key of an env.json as text ("?" when absent); reads what
 * sb_env_print_json writes, not JSON in general.  text may be NULL. */
void sb_json_get(const char *text, const char *key, char *out, size_t size);

/* The host memcpy rate in env.json's "host_copy_gbps" object (GB/s) at
 * `threads` threads, or (threads 0) at the most threads it has, which
 * *at_threads gets (may be NULL); 0 when absent.  text may be NULL. */
double sb_json_host_copy(const char *text, int threads, int *at_threads);

/* What env.json says of the run that wrote a result set. */
typedef struct sb_run_info {
    char machine_id[96], set[64];
    char run_id[48];          /* "?" when env.json predates run ids */
    char commit[64];          /* with "-dirty" when the tree had changes */
    char options[400], algos[400];
    char finished[16];        /* "true", "false", or "?" */
    char planned[16], measured[16];
    char gpu_name[128], gpu_uuid[64];   /* "?" when absent (no GPU, or an older env.json) */
    char cpu_model[160], cpu_cores[16];
    char cpu_usable_cores[16], host[128];   /* "?" in an older env.json */
} sb_run_info;

/* From env.json's text ("?" everywhere for what it lacks; text may be NULL). */
void sb_run_info_parse(const char *text, sb_run_info *ri);
/* Read dir/env.json; 0 (and "?" everywhere) when it cannot be read. */
int sb_run_info_read(const char *dir, sb_run_info *ri);

#endif
