/* json_out.c - JSON strings and numbers (see json_out.h). */
#include "base/json_out.h"

#include <math.h>

void sb_json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(fp, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", fp);
        else if (*p == '\t')
            fputs("\\t", fp);
        else if (*p < 0x20)
            fprintf(fp, "\\u%04x", *p);
        else
            fputc(*p, fp);
    }
    fputc('"', fp);
}

void sb_json_num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.9g", v);
    else
        fputs("null", fp);
}

void sb_json_key_str(FILE *fp, const char *key, const char *value)
{
    fprintf(fp, "\"%s\": ", key);
    sb_json_str(fp, value);
}

void sb_json_key_num(FILE *fp, const char *key, double value)
{
    fprintf(fp, "\"%s\": ", key);
    sb_json_num(fp, value);
}

void sb_json_key_nums(FILE *fp, const char *key, const double *values, int n)
{
    fprintf(fp, "\"%s\": [", key);
    for (int i = 0; values && i < n; i++) {
        fprintf(fp, "%s", i ? ", " : "");
        sb_json_num(fp, values[i]);
    }
    fputc(']', fp);
}
