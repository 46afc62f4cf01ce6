/* error.c - the sb_error helpers (see include/segbench/error.h). */
#include "segbench/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Formatted into a buffer of its own first: a caller may pass err->msg
 * itself as an argument, to wrap the message it holds. */
sb_status sb_fail(sb_error *err, sb_status status, const char *fmt, ...)
{
    if (err) {
        char msg[SB_ERROR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        memcpy(err->msg, msg, sizeof msg);
        err->status = status;
    }
    return status;
}

int sb_exit_code(sb_status status)
{
    switch (status) {
    case SB_OK: return 0;
    case SB_ERR_AGREEMENT: return 1;
    case SB_ERR_SLOWER: return 3;
    default: return 2;
    }
}
