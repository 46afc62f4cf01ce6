/* error.c - the sb_error helpers (see include/segbench/error.h). */
#include "segbench/error.h"

#include <stdarg.h>
#include <stdio.h>

sb_status sb_fail(sb_error *err, sb_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

int sb_exit_code(sb_status status)
{
    switch (status) {
    case SB_OK: return 0;
    case SB_ERR_AGREEMENT: return 1;
    default: return 2;
    }
}
