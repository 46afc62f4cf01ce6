/* env_json.c - reading what env.json says (see env_json.h). */
#include "io/env_json.h"

#include "base/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_json_get(const char *text, const char *key, char *out, size_t size)
{
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\": ", key);
    snprintf(out, size, "?");
    const char *p = text ? strstr(text, pattern) : NULL;
    if (!p)
        return;
    p += strlen(pattern);
    size_t n = 0;
    if (*p == '"') {
        for (p++; *p && *p != '"' && n + 1 < size; p++) {
            if (*p == '\\' && p[1])
                p++;
            out[n++] = *p;
        }
    } else {
        while (*p && *p != ',' && *p != '\n' && n + 1 < size)
            out[n++] = *p++;
    }
    out[n] = '\0';
}

void sb_run_info_parse(const char *env, sb_run_info *ri)
{
    char dirty[16];
    sb_json_get(env, "machine_id", ri->machine_id, sizeof ri->machine_id);
    sb_json_get(env, "dataset", ri->set, sizeof ri->set);
    sb_json_get(env, "run_id", ri->run_id, sizeof ri->run_id);
    sb_json_get(env, "commit", ri->commit, sizeof ri->commit);
    sb_json_get(env, "dirty", dirty, sizeof dirty);
    if (strcmp(dirty, "true") == 0)
        strncat(ri->commit, "-dirty", sizeof ri->commit - strlen(ri->commit) - 1);
    sb_json_get(env, "run_options", ri->options, sizeof ri->options);
    sb_json_get(env, "run_algos", ri->algos, sizeof ri->algos);
    sb_json_get(env, "run_finished", ri->finished, sizeof ri->finished);
    sb_json_get(env, "rows_planned", ri->planned, sizeof ri->planned);
    sb_json_get(env, "rows_measured", ri->measured, sizeof ri->measured);
    sb_json_get(env, "gpu_name", ri->gpu_name, sizeof ri->gpu_name);
    sb_json_get(env, "gpu_uuid", ri->gpu_uuid, sizeof ri->gpu_uuid);
    sb_json_get(env, "cpu_model", ri->cpu_model, sizeof ri->cpu_model);
    sb_json_get(env, "cpu_logical_cores", ri->cpu_cores, sizeof ri->cpu_cores);
    sb_json_get(env, "cpu_usable_cores", ri->cpu_usable_cores, sizeof ri->cpu_usable_cores);
    sb_json_get(env, "host", ri->host, sizeof ri->host);
}

int sb_run_info_read(const char *dir, sb_run_info *ri)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/env.json", dir);
    char *env = sb_read_text(path);
    sb_run_info_parse(env, ri);
    free(env);
    return env != NULL;
}

double sb_json_host_copy(const char *text, int threads, int *at_threads)
{
    const char *obj = text ? strstr(text, "\"host_copy_gbps\": {") : NULL;
    double rate = 0.0;
    int at = 0;
    for (const char *p = obj ? obj + 19 : ""; *p && *p != '}';) {
        int t = 0;
        double gbps = 0.0;
        if (sscanf(p, " \"%d\": %lf", &t, &gbps) == 2 && (threads ? t == threads : t > at)) {
            at = t;
            rate = gbps;
        }
        p += strcspn(p, ",}");
        if (*p == ',')
            p++;
    }
    if (at_threads)
        *at_threads = at;
    return rate;
}
