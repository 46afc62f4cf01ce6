/* reporters.c - the set of reporters (reporters.h): which a run has, in
 * the order a row reaches them. */
#include "reporters/reporters.h"

#include <string.h>

void sb_reporters_init(sb_reporters *rs, const sb_reporters_config *cfg, const char *dir)
{
    memset(rs, 0, sizeof rs->list);
    rs->n = 0;
    rs->begun = 0;
    rs->dir = dir;
    memset(&rs->console, 0, sizeof rs->console);
    rs->console.quiet = cfg->quiet;
    if (cfg->files) {              /* samples before their row: a row in the file has its samples */
        sb_samples_reporter(&rs->list[rs->n++], &rs->samples);
        sb_rows_csv_reporter(&rs->list[rs->n++], &rs->rows);
        if (cfg->census)
            sb_kernels_reporter(&rs->list[rs->n++], &rs->kernels);
        sb_quality_reporter(&rs->list[rs->n++], &rs->quality);
    }
    sb_console_reporter(&rs->list[rs->n++], &rs->console);
    if (cfg->files && cfg->json)
        sb_json_reporter(&rs->list[rs->n++]);
    memset(&rs->streams, 0, sizeof rs->streams);
    if (cfg->files)
        sb_streams_reporter(&rs->list[rs->n++], &rs->streams);
}

sb_status sb_reporters_begin(sb_reporters *rs, const sb_algo *algo, int keep, sb_error *err)
{
    rs->begun = 0;
    for (; rs->begun < rs->n; rs->begun++) {
        sb_reporter *rep = &rs->list[rs->begun];
        sb_status st = rep->begin ? rep->begin(rep, rs->dir, algo, keep, err) : SB_OK;
        if (st)
            return st;              /* the ones begun end in sb_reporters_end */
    }
    return SB_OK;
}

sb_status sb_reporters_row(sb_reporters *rs, const sb_row_report *rr, sb_error *err)
{
    for (int i = 0; i < rs->begun; i++) {
        sb_status st = rs->list[i].row ? rs->list[i].row(&rs->list[i], rr, err) : SB_OK;
        if (st)
            return st;
    }
    return SB_OK;
}

sb_status sb_reporters_end(sb_reporters *rs, const sb_algo *algo, int finished, sb_error *err)
{
    sb_status first = SB_OK;
    for (int i = 0; i < rs->begun; i++) {
        sb_error e = { SB_OK, "" };
        sb_status st = rs->list[i].end ? rs->list[i].end(&rs->list[i], rs->dir, algo, finished, &e) : SB_OK;
        if (st && !first) {
            first = st;
            *err = e;
        }
    }
    rs->begun = 0;
    return first;
}

int sb_reporters_take_census(const sb_reporters *rs)
{
    return rs->kernels.log.fp != NULL;
}

sb_status sb_reporters_stream_row(sb_reporters *rs, const sb_stream_row *row, sb_error *err)
{
    for (int i = 0; i < rs->n; i++) {
        sb_status st = rs->list[i].stream_row ? rs->list[i].stream_row(&rs->list[i], row, err) : SB_OK;
        if (st)
            return st;
    }
    return SB_OK;
}

sb_status sb_reporters_streams_end(sb_reporters *rs, const sb_algo *algo, int finished, sb_error *err)
{
    sb_status first = SB_OK;
    for (int i = 0; i < rs->n; i++) {
        sb_error e = { SB_OK, "" };
        sb_reporter *rep = &rs->list[i];
        sb_status st = rep->streams_end ? rep->streams_end(rep, rs->dir, algo, finished, &e) : SB_OK;
        if (st && !first) {
            first = st;
            *err = e;
        }
    }
    return first;
}

int sb_reporters_stream_files(const sb_reporters *rs)
{
    return rs->streams.files;
}

sb_status sb_reporters_quality(sb_reporters *rs, const sb_quality_report *qr, sb_error *err)
{
    for (int i = 0; i < rs->begun; i++) {
        sb_status st = rs->list[i].quality ? rs->list[i].quality(&rs->list[i], qr, err) : SB_OK;
        if (st)
            return st;
    }
    return SB_OK;
}
