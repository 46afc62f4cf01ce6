/* report_cli.c - the report's whole-process table: hyperfine's cli.json
 * (written by `make bench-cli`), what a user of `segbench run` waits for,
 * PNG decode and encode included.  This reads the fields hyperfine writes
 * for each command, not JSON in general. */
#include "pages/report.h"

#include "base/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number after "key": within [p, end), or -1. */
static double field_number(const char *p, const char *end, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(p, pattern);
    if (!at || at >= end)
        return -1.0;
    return strtod(at + strlen(pattern), NULL);
}

/* The string after "command": at p, unescaped into out. */
static void command_name(const char *p, char *out, size_t size)
{
    const char *q = strchr(p + strlen("\"command\":"), '"');
    size_t n = 0;
    for (q = q ? q + 1 : ""; *q && *q != '"' && n + 1 < size; q++) {
        if (*q == '\\' && q[1])
            q++;
        out[n++] = *q;
    }
    out[n] = '\0';
}

void sb_report_cli(FILE *md, const char *results_dir)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/cli.json", results_dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    char buf[4096];
    size_t n;
    while (mem && (n = fread(buf, 1, sizeof buf, fp)) > 0)
        fwrite(buf, 1, n, mem);
    fclose(fp);
    if (!mem)
        return;
    fclose(mem);
    fprintf(md, "## The whole process: `segbench run`\n\n"
                "What a user of `segbench run integral` waits for, process start, PNG decode and encode "
                "included, timed by hyperfine (`make bench-cli`, the set's largest image):\n\n"
                "| command | mean ± σ (ms) | median (ms) | min … max (ms) | user (ms) | system (ms) |\n"
                "|---|---:|---:|---:|---:|---:|\n");
    int rows = 0;
    for (const char *p = strstr(text, "\"command\":"); p; rows++) {
        const char *next = strstr(p + 1, "\"command\":"), *end = next ? next : text + len;
        char name[256];
        command_name(p, name, sizeof name);
        fprintf(md, "| %s | %.1f ± %.1f | %.1f | %.1f … %.1f | %.1f | %.1f |\n", name,
                1e3 * field_number(p, end, "mean"), 1e3 * field_number(p, end, "stddev"),
                1e3 * field_number(p, end, "median"), 1e3 * field_number(p, end, "min"),
                1e3 * field_number(p, end, "max"), 1e3 * field_number(p, end, "user"),
                1e3 * field_number(p, end, "system"));
        p = next;
    }
    if (!rows)
        fprintf(md, "| (cli.json holds no command) | | | | | |\n");
    fprintf(md, "\n");
    free(text);
}
