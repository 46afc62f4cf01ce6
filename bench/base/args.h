/* args.h - parsing option values: checked numbers, number lists and comma
 * lists.  (Options themselves are parsed from each command's table:
 * options.h.) */
#ifndef SEGBENCH_ARGS_H
#define SEGBENCH_ARGS_H

#include <stddef.h>

#include "segbench/error.h"

/* Comma lists ("cpu,openmp"): copy the next item into `item` and move
 * *cursor past it; 0 when the list is done. */
int sb_list_next(const char **cursor, char *item, size_t size);
/* Is `name` one of the items of the comma list `list`?  NULL means all. */
int sb_in_list(const char *list, const char *name);

/* Split a line in place at each `sep` (no quoting: for files whose fields
 * hold no separator): up to max fields into field[]; returns how many. */
int sb_split_fields(char *line, char sep, char **field, int max);

/* Checked number parsing; `what` names the option in the message. */
sb_status sb_parse_int(const char *s, long min, long max, const char *what, int *out, sb_error *err);
sb_status sb_parse_double(const char *s, double min, double max, const char *what, double *out, sb_error *err);
/* "1,2,4" -> values; at most `max` entries, each in [lo, hi]; an empty
 * item ("1,,2") is an error. */
sb_status sb_parse_int_list(const char *s, int lo, int hi, const char *what, int *values, int max, int *count,
                            sb_error *err);
/* One of the words in choices[] (NULL-terminated): *out gets its index. */
sb_status sb_parse_choice(const char *s, const char *what, const char *const *choices, int *out, sb_error *err);
/* A size in bytes: "8G", "500M", "64k", "1048576" (binary multiples). */
sb_status sb_parse_bytes(const char *s, const char *what, size_t *out, sb_error *err);

#endif
