/* args.h - small helpers for the subcommands' option parsing.
 *
 *     sb_args a = sb_args_begin(argc, argv, &err);
 *     while (sb_args_next(&a)) {
 *         if (sb_args_opt(&a, "--set")) set = a.value;
 *         else if (sb_args_flag(&a, "--quick")) quick = 1;
 *         else if (sb_args_positional(&a)) files[n++] = a.value;
 *         else return sb_args_unknown(&a);
 *     }
 *     if (a.status) return a.status;
 *
 * Options take "--name value" or "--name=value".
 */
#ifndef SEGBENCH_ARGS_H
#define SEGBENCH_ARGS_H

#include <stddef.h>

#include "segbench/error.h"

typedef struct sb_args {
    int argc;
    char **argv;
    int i;
    const char *value;
    sb_status status;
    sb_error *err;
} sb_args;

sb_args sb_args_begin(int argc, char **argv, sb_error *err);
int sb_args_next(sb_args *a);
int sb_args_opt(sb_args *a, const char *name);
int sb_args_flag(sb_args *a, const char *name);
int sb_args_positional(sb_args *a);
/* An option the command does not know, "--name value" or "--name=value",
 * for the algorithm to judge: returns 1 and copies the name (without
 * dashes) into key when the argument looks like one. */
int sb_args_keyvalue(sb_args *a, char *key, size_t key_size);
sb_status sb_args_unknown(sb_args *a);

/* Comma lists ("cpu,openmp"): copy the next item into `item` and move
 * *cursor past it; 0 when the list is done. */
int sb_list_next(const char **cursor, char *item, size_t size);
/* Is `name` one of the items of the comma list `list`?  NULL means all. */
int sb_in_list(const char *list, const char *name);

/* Checked number parsing; `what` names the option in the message. */
sb_status sb_parse_int(const char *s, long min, long max, const char *what, int *out, sb_error *err);
sb_status sb_parse_double(const char *s, double min, double max, const char *what, double *out, sb_error *err);
/* "1,2,4" -> values; at most `max` entries, each in [lo, hi]. */
sb_status sb_parse_int_list(const char *s, int lo, int hi, const char *what, int *values, int max, int *count,
                            sb_error *err);

#endif
