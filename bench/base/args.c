/* args.c - parsing option values (see args.h). */
#include "base/args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sb_list_next(const char **cursor, char *item, size_t size)
{
    const char *p = *cursor;
    if (!p || !*p)
        return 0;
    size_t len = strcspn(p, ",");
    snprintf(item, size, "%.*s", (int)len, p);
    *cursor = p + len + (p[len] == ',');
    return 1;
}

int sb_in_list(const char *list, const char *name)
{
    if (!list)
        return 1;
    char item[128];
    for (const char *p = list; sb_list_next(&p, item, sizeof item);)
        if (strcmp(item, name) == 0)
            return 1;
    return 0;
}

int sb_split_fields(char *line, char sep, char **field, int max)
{
    int n = 0;
    while (n < max) {
        field[n++] = line;
        char *end = strchr(line, sep);
        if (!end)
            break;
        *end = '\0';
        line = end + 1;
    }
    return n;
}

sb_status sb_parse_int(const char *s, long min, long max, const char *what, int *out, sb_error *err)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || isspace((unsigned char)*s) || *end || errno)    /* strtol would skip leading blanks */
        return sb_fail(err, SB_ERR_USAGE, "%s: '%s' is not a whole number", what, s);
    if (v < min || v > max)
        return sb_fail(err, SB_ERR_USAGE, "%s: %ld is outside %ld..%ld", what, v, min, max);
    *out = (int)v;
    return SB_OK;
}

sb_status sb_parse_double(const char *s, double min, double max, const char *what, double *out, sb_error *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || isspace((unsigned char)*s) || *end || errno || !isfinite(v))
        return sb_fail(err, SB_ERR_USAGE, "%s: '%s' is not a number", what, s);
    if (v < min || v > max)
        return sb_fail(err, SB_ERR_USAGE, "%s: %g is outside %g..%g", what, v, min, max);
    *out = v;
    return SB_OK;
}

sb_status sb_parse_choice(const char *s, const char *what, const char *const *choices, int *out, sb_error *err)
{
    char list[256] = "";
    for (int i = 0; choices[i]; i++) {
        if (strcmp(s, choices[i]) == 0) {
            *out = i;
            return SB_OK;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s'%s'", i ? (choices[i + 1] ? ", " : " or ") : "", choices[i]);
    }
    return sb_fail(err, SB_ERR_USAGE, "%s: '%s' is not %s", what, s, list);
}

sb_status sb_parse_int_list(const char *s, int lo, int hi, const char *what, int *values, int max, int *count,
                            sb_error *err)
{
    char item[64];
    *count = 0;
    if (!*s)
        return sb_fail(err, SB_ERR_USAGE, "%s: empty list", what);
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return sb_fail(err, SB_ERR_USAGE, "%s: '%s' has an empty item", what, s);
        if (*count == max)
            return sb_fail(err, SB_ERR_USAGE, "%s: more than %d values", what, max);
        if (len >= sizeof item)
            return sb_fail(err, SB_ERR_USAGE, "%s: '%.*s' is not a whole number", what, (int)len, p);
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        sb_status st = sb_parse_int(item, lo, hi, what, &values[*count], err);
        if (st)
            return st;
        (*count)++;
        if (!p[len])
            return SB_OK;
        p += len + 1;
    }
}

sb_status sb_parse_bytes(const char *s, const char *what, size_t *out, sb_error *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double unit = 1.0;
    if (*end && !end[1] && strchr("kKmMgGtT", *end)) {
        int k = (int)(strchr("kmgt", tolower((unsigned char)*end)) - "kmgt") + 1;
        unit = ldexp(1.0, 10 * k);
        end++;
    }
    if (!*s || isspace((unsigned char)*s) || *end || errno || !isfinite(v) || v <= 0 || v * unit > 1e18)
        return sb_fail(err, SB_ERR_USAGE, "%s: '%s' is not a size (say 8G, 500M, 64k or bytes)", what, s);
    *out = (size_t)(v * unit);
    return SB_OK;
}
