/* json_out.h - the two pieces every JSON writer here needs: a string with
 * its escapes, and a number that is null when it is not finite (JSON has
 * no NaN).  Layout is the caller's. */
#ifndef SEGBENCH_JSON_OUT_H
#define SEGBENCH_JSON_OUT_H

#include <stdio.h>

void sb_json_str(FILE *fp, const char *s);
void sb_json_num(FILE *fp, double v);

#endif
