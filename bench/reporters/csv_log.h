/* csv_log.h - what the file reporters share: one append log a format,
 * opened as an algorithm begins at <dir>/<algo><suffix>, closed as it
 * ends; a measured row put into it by the format's own function
 * (reporter.h). */
#ifndef SEGBENCH_REPORTERS_CSV_LOG_H
#define SEGBENCH_REPORTERS_CSV_LOG_H

#include "reporters/reporter.h"

#include <stdio.h>

typedef struct sb_file_reporter {
    const char *suffix;           /* ".csv", ".samples.csv", ".kernels.csv" */
    const char *header;
    void (*put)(FILE *fp, const sb_row *row);   /* a measured row's lines */
    sb_csv_log log;
    char *seen;                   /* kernels.c: the census lines written for this algorithm */
} sb_file_reporter;

/* rep made a file reporter over f: begin opens the log, row puts each
 * measured row (f->put) and flushes, end closes; a format that writes
 * something else than rows (kernels.c) replaces row. */
void sb_file_reporter_make(sb_reporter *rep, sb_file_reporter *f, const char *name, const char *suffix,
                           const char *header, void (*put)(FILE *, const sb_row *));

#endif
