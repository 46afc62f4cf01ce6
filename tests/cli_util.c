/* cli_util.c - running segbench from the tests (see cli_util.h). */
#include "cli_util.h"

#include "test_groups.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void test_slurp(const char *path, char *buf, size_t size)
{
    FILE *fp = fopen(path, "r");
    size_t n = fp ? fread(buf, 1, size - 1, fp) : 0;
    buf[n] = '\0';
    if (fp)
        fclose(fp);
}

int test_write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return 0;
    int ok = fputs(text, fp) >= 0;
    return fclose(fp) == 0 && ok;
}

/* Append path's text, then that of each header it includes with quotes
 * that sits beside it (or a folder up, "../x.cuh"), each file once. */
static void slurp_with_includes(const char *path, char *buf, size_t size, char seen[][256], int *nseen)
{
    for (int i = 0; i < *nseen; i++)
        if (strcmp(seen[i], path) == 0)
            return;
    if (*nseen == 32 || strlen(path) >= 256)
        return;
    snprintf(seen[(*nseen)++], 256, "%s", path);
    size_t at = strlen(buf);
    if (at + 1 >= size)
        return;
    test_slurp(path, buf + at, size - at);
    const char *slash = strrchr(path, '/');
    int folder = slash ? (int)(slash - path + 1) : 0;
    char *own = strdup(buf + at);
    for (const char *p = own; p && (p = strstr(p, "#include \"")); p++) {
        const char *name = p + 10, *end = strchr(name, '"');
        char header[512];
        if (end && snprintf(header, sizeof header, "%.*s%.*s", folder, path, (int)(end - name), name) <
                       (int)sizeof header && test_exists(header))
            slurp_with_includes(header, buf, size, seen, nseen);
    }
    free(own);
}

void test_slurp_rung(const char *path, char *buf, size_t size)
{
    char seen[32][256];
    int nseen = 0;
    buf[0] = '\0';
    slurp_with_includes(path, buf, size, seen, &nseen);
}

char *test_read_all(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + n, 1, cap - n - 1, fp)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = realloc(text, cap *= 2);
            if (!grown)
                free(text);
            text = grown;
        }
    }
    fclose(fp);
    if (text)
        text[n] = '\0';
    return text;
}

const char *test_segbench_path(void)
{
    static char path[4096];
    if (!path[0]) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 16);
        path[n > 0 ? n : 0] = '\0';
        char *slash = strrchr(path, '/');
        if (slash)
            strcpy(slash + 1, "segbench");
        else
            strcpy(path, "./build/segbench");
    }
    return path;
}

static cli_result *cli_run(const char *exe, const char *fmt, va_list ap)
{
    static cli_result r;
    static char args[16384], cmd[20480];
    int n = vsnprintf(args, sizeof args, fmt, ap);
    const char *out = test_path("cli.out"), *err = test_path("cli.err");
    int m = snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", exe, args, out, err);
    if (n < 0 || (size_t)n >= sizeof args || m < 0 || (size_t)m >= sizeof cmd) {
        r.code = -1;                  /* a command line cut would run another command */
        snprintf(r.err, sizeof r.err, "cli_util: a command line of over %zu characters", sizeof args);
        r.out[0] = '\0';
        return &r;
    }
    int status = system(cmd);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
    test_slurp(out, r.out, sizeof r.out);
    test_slurp(err, r.err, sizeof r.err);
    return &r;
}

cli_result *cli(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_result *r = cli_run(test_segbench_path(), fmt, ap);
    va_end(ap);
    return r;
}

cli_result *cli_exe(const char *exe, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_result *r = cli_run(exe, fmt, ap);
    va_end(ap);
    return r;
}

const char *test_shq(const char *s)
{
    static char buf[8][1200];
    static int next;
    char *out = buf[next = (next + 1) % 8];
    size_t n = 0;
    out[n++] = '\'';
    for (; *s && n + 6 < sizeof buf[0]; s++) {
        if (*s == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *s;
        }
    }
    out[n++] = '\'';
    out[n] = '\0';
    return out;
}

int test_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int test_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}
