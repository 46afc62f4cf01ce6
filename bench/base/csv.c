/* csv.c - RFC 4180 fields and records (see csv.h). */
#include "base/csv.h"

#include <stdlib.h>
#include <string.h>

void sb_csv_put_field(FILE *fp, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

void sb_csv_put_fields(FILE *fp, const char *const *fields, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', fp);
        sb_csv_put_field(fp, fields[i]);
    }
}

/* Is a quoted field still open after these bytes (quotes counted; a
 * doubled quote counts twice, so it changes nothing)? */
static int quote_open(const char *s, size_t n, int open)
{
    for (size_t i = 0; i < n; i++)
        open ^= s[i] == '"';
    return open;
}

ssize_t sb_csv_read_record(FILE *fp, char **buf, size_t *cap)
{
    size_t len = 0;
    int open = 0;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t got;
    while ((got = getline(&line, &line_cap, fp)) > 0) {
        if (len + (size_t)got + 1 > *cap) {
            size_t want = (len + (size_t)got + 1) * 2;
            char *grown = realloc(*buf, want);
            if (!grown) {
                free(line);
                return -1;
            }
            *buf = grown;
            *cap = want;
        }
        memcpy(*buf + len, line, (size_t)got + 1);
        open = quote_open(line, (size_t)got, open);
        len += (size_t)got;
        if (!open && (*buf)[len - 1] == '\n')
            break;
    }
    free(line);
    if (len == 0)
        return 0;
    return open || (*buf)[len - 1] != '\n' ? -1 : (ssize_t)len;
}

int sb_csv_split(char *record, char **field, int max)
{
    int n = 0;
    char *p = record;
    while (n < max) {
        char *out = p;
        field[n++] = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"' || !*p) {
                    if (*p)
                        p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            while (*p && *p != ',' && *p != '\n' && *p != '\r')   /* junk after a closing quote */
                p++;
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                *out++ = *p++;
        }
        int more = *p == ',';
        if (*p)
            p++;
        *out = '\0';
        if (!more)
            break;
    }
    return n;
}

long sb_csv_complete_length(FILE *fp)
{
    long good = 0, pos = 0;
    int c, open = 0;
    while ((c = fgetc(fp)) != EOF) {
        pos++;
        if (c == '"')
            open ^= 1;
        else if (c == '\n' && !open)
            good = pos;
    }
    return good;
}
