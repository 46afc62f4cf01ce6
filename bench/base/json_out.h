/* json_out.h - the two pieces every JSON writer here needs: a string with
 * its escapes, and a number that is null when it is not finite (JSON has
 * no NaN).  Layout is the caller's. */
#ifndef SEGBENCH_JSON_OUT_H
#define SEGBENCH_JSON_OUT_H

#include <stdio.h>

void sb_json_str(FILE *fp, const char *s);
void sb_json_num(FILE *fp, double v);
/* "key": value, nothing after it (the caller writes the separator). */
void sb_json_key_str(FILE *fp, const char *key, const char *value);
void sb_json_key_num(FILE *fp, const char *key, double value);
/* "key": [v0, v1, ...] */
void sb_json_key_nums(FILE *fp, const char *key, const double *values, int n);

#endif
