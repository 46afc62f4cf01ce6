/* args.c - option parsing helpers (see args.h). */
#include "args.h"

#include <ctype.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sb_args sb_args_begin(int argc, char **argv, sb_error *err)
{
    sb_args a = { argc, argv, 0, NULL, SB_OK, err };
    return a;
}

int sb_args_next(sb_args *a)
{
    if (a->status)
        return 0;
    a->i++;
    return a->i < a->argc;
}

int sb_args_opt(sb_args *a, const char *name)
{
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        a->value = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (a->i + 1 >= a->argc) {
        a->status = sb_fail(a->err, SB_ERR_USAGE, "option %s needs a value", name);
        a->value = "";
        return 1;
    }
    a->value = a->argv[++a->i];
    return 1;
}

int sb_args_flag(sb_args *a, const char *name) { return strcmp(a->argv[a->i], name) == 0; }

int sb_args_positional(sb_args *a)
{
    const char *arg = a->argv[a->i];
    if (arg[0] == '-' && arg[1] != '\0')
        return 0;
    a->value = arg;
    return 1;
}

int sb_args_keyvalue(sb_args *a, char *key, size_t key_size)
{
    const char *arg = a->argv[a->i];
    if (strncmp(arg, "--", 2) != 0 || !arg[2])
        return 0;
    size_t n = strcspn(arg + 2, "=");
    snprintf(key, key_size, "%.*s", (int)n, arg + 2);
    if (arg[2 + n] == '=') {
        a->value = arg + 3 + n;
    } else if (a->i + 1 < a->argc) {
        a->value = a->argv[++a->i];
    } else {
        a->status = sb_fail(a->err, SB_ERR_USAGE, "option --%s needs a value", key);
        a->value = "";
    }
    return 1;
}

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

sb_status sb_args_unknown(sb_args *a)
{
    return a->status = sb_fail(a->err, SB_ERR_USAGE, "unknown option '%s' (see 'segbench help')", a->argv[a->i]);
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

sb_status sb_parse_int_list(const char *s, int lo, int hi, const char *what, int *values, int max, int *count,
                            sb_error *err)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return sb_fail(err, SB_ERR_USAGE, "%s: list too long", what);
    strcpy(buf, s);
    *count = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*count == max)
            return sb_fail(err, SB_ERR_USAGE, "%s: more than %d values", what, max);
        sb_status st = sb_parse_int(tok, lo, hi, what, &values[*count], err);
        if (st)
            return st;
        (*count)++;
    }
    if (*count == 0)
        return sb_fail(err, SB_ERR_USAGE, "%s: empty list", what);
    return SB_OK;
}
