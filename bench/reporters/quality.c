/* quality.c - the quality reporter: each case's quality measures (its
 * reference's output against the image's truth) as lines of
 * <algo>.quality.csv (algos/quality.h), for an algorithm that measures
 * any; a resumed run's file kept, so that no line is added twice
 * (reporter.h). */
#include "reporters/reporters.h"

#include "algos/quality.h"
#include "base/files.h"

#include <stdlib.h>
#include <string.h>

static sb_status quality_begin(sb_reporter *self, const char *dir, const sb_algo *algo, int keep, sb_error *err)
{
    sb_quality_state *q = self->state;
    if (!algo->quality)
        return SB_OK;
    char path[SB_PATH_MAX];
    sb_status st = sb_path(path, err, "%s/%s.quality.csv", dir, algo->name);
    if (st)
        return st;
    if (keep)
        q->text = sb_read_text(path);
    return sb_csv_log_open(&q->log, path, SB_QUALITY_CSV_HEADER, keep, err);
}

static sb_status quality_case(sb_reporter *self, const sb_quality_report *qr, sb_error *err)
{
    sb_quality_state *q = self->state;
    if (!q->log.fp)
        return SB_OK;
    sb_quality_put(q->log.fp, qr->algo->name, qr->stage, qr->image, qr->width, qr->height, qr->quality);
    return sb_csv_log_flush(&q->log, err);
}

static sb_status quality_end(sb_reporter *self, const char *dir, const sb_algo *algo, const sb_rows *measured,
                             int finished, sb_error *err)
{
    (void)measured;
    (void)dir, (void)algo, (void)finished, (void)err;
    sb_quality_state *q = self->state;
    sb_csv_log_close(&q->log);
    free(q->text);
    q->text = NULL;
    return SB_OK;
}

int sb_reporters_quality_known(const sb_reporters *rs, const sb_algo *algo, const char *stage, const char *image)
{
    char key[300];
    snprintf(key, sizeof key, "\n%s,%s,%s,", algo->name, stage, image);
    return rs->quality.text && strstr(rs->quality.text, key);
}

void sb_quality_reporter(sb_reporter *rep, sb_quality_state *state)
{
    memset(state, 0, sizeof *state);
    *rep = (sb_reporter){ .name = "quality", .begin = quality_begin, .quality = quality_case, .end = quality_end,
                          .state = state };
}
