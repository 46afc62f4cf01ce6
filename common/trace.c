/* trace.c - trace.h over NVTX 3 (header-only: it finds the profiler's
 * injection library at the first call, and does nothing when none is
 * attached). */
#include "segbench/trace.h"

#include <stdarg.h>
#include <stdio.h>

#ifdef SB_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>

int sb_trace_built(void) { return 1; }

void sb_trace_push(const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    nvtxRangePushA(name);
}

void sb_trace_pop(void) { nvtxRangePop(); }
#else
int sb_trace_built(void) { return 0; }

void sb_trace_push(const char *fmt, ...) { (void)fmt; }

void sb_trace_pop(void) {}
#endif
