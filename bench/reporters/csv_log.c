/* csv_log.c - the file reporters' shared log (csv_log.h). */
#include "reporters/csv_log.h"

#include "base/files.h"

#include <stdlib.h>

static sb_status file_begin(sb_reporter *self, const char *dir, const sb_algo *algo, int keep, sb_error *err)
{
    sb_file_reporter *f = self->state;
    char path[SB_PATH_MAX];
    sb_status st = sb_path(path, err, "%s/%s%s", dir, algo->name, f->suffix);
    return st ? st : sb_csv_log_open(&f->log, path, f->header, keep, err);
}

static sb_status file_row(sb_reporter *self, const sb_row_report *rr, sb_error *err)
{
    sb_file_reporter *f = self->state;
    if (rr->kind != SB_ROW_MEASURED)
        return SB_OK;
    f->put(f->log.fp, rr->row);
    return sb_csv_log_flush(&f->log, err);
}

static sb_status file_end(sb_reporter *self, const char *dir, const sb_algo *algo, const sb_rows *measured,
                          int finished, sb_error *err)
{
    (void)measured;
    (void)dir, (void)algo, (void)finished, (void)err;
    sb_file_reporter *f = self->state;
    sb_csv_log_close(&f->log);
    free(f->seen);
    f->seen = NULL;
    return SB_OK;
}

void sb_file_reporter_make(sb_reporter *rep, sb_file_reporter *f, const char *name, const char *suffix,
                           const char *header, void (*put)(FILE *, const sb_row *))
{
    *f = (sb_file_reporter){ .suffix = suffix, .header = header, .put = put };
    *rep = (sb_reporter){ .name = name, .begin = file_begin, .row = file_row, .end = file_end, .state = f };
}
