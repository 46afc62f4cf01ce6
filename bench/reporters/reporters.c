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
    if (cfg->files) {
        sb_streams_reporter(&rs->list[rs->n++], &rs->streams);
        sb_repeat_reporter(&rs->list[rs->n++], &rs->repeat);
        sb_record_reporter(&rs->list[rs->n++]);
        sb_catalogue_reporter(&rs->list[rs->n++]);
        sb_gallery_reporter(&rs->list[rs->n++], &rs->gallery);
    }
}

/* What the set hands its reporters, one call of reporter.h each. */
typedef enum event { EV_RUN_BEGIN, EV_RECORD, EV_RUN_END, EV_GALLERY, EV_BEGIN, EV_ROW, EV_QUALITY, EV_END, EV_STREAM_ROW, EV_STREAMS_END,
                     EV_REPEAT_BEGIN, EV_REPEAT_ROW, EV_REPEAT_END } event;
typedef struct event_arg {
    const sb_algo *algo;
    int flag;                     /* begin: keep; the ends: finished */
    const void *item;             /* the row, quality, stream row, repeat row, env; the kept text, the algos */
} event_arg;

static sb_status call(sb_reporter *rep, const char *dir, event e, const event_arg *a, sb_error *err)
{
    switch (e) {
    case EV_RUN_BEGIN: return rep->run_begin ? rep->run_begin(rep, dir, a->item, err) : SB_OK;
    case EV_RECORD: return rep->record ? rep->record(rep, dir, a->item, err) : SB_OK;
    case EV_RUN_END: return rep->run_end ? rep->run_end(rep, dir, err) : SB_OK;
    case EV_GALLERY: return rep->gallery ? rep->gallery(rep, a->item, err) : SB_OK;
    case EV_BEGIN: return rep->begin ? rep->begin(rep, dir, a->algo, a->flag, err) : SB_OK;
    case EV_ROW: return rep->row ? rep->row(rep, a->item, err) : SB_OK;
    case EV_QUALITY: return rep->quality ? rep->quality(rep, a->item, err) : SB_OK;
    case EV_END: return rep->end ? rep->end(rep, dir, a->algo, a->item, a->flag, err) : SB_OK;
    case EV_STREAM_ROW: return rep->stream_row ? rep->stream_row(rep, a->item, err) : SB_OK;
    case EV_STREAMS_END: return rep->streams_end ? rep->streams_end(rep, dir, a->algo, a->flag, err) : SB_OK;
    case EV_REPEAT_BEGIN: return rep->repeat_begin ? rep->repeat_begin(rep, a->item, err) : SB_OK;
    case EV_REPEAT_ROW: return rep->repeat_row ? rep->repeat_row(rep, a->item, err) : SB_OK;
    case EV_REPEAT_END: return rep->repeat_end ? rep->repeat_end(rep, dir, a->flag, err) : SB_OK;
    }
    return SB_OK;
}

/* The event to the first n reporters in order.  An end reaches every one
 * (each closes what it opened) and the first failure is returned; any
 * other event stops at the first that fails. */
static sb_status each(sb_reporters *rs, int n, event e, const event_arg *a, sb_error *err)
{
    int ends = e == EV_END || e == EV_STREAMS_END || e == EV_REPEAT_END || e == EV_RUN_END;
    sb_status first = SB_OK;
    for (int i = 0; i < n; i++) {
        sb_error one = { SB_OK, "" };
        sb_status st = call(&rs->list[i], rs->dir, e, a, &one);
        if (st && !first) {
            first = st;
            *err = one;
        }
        if (st && !ends)
            break;
    }
    return first;
}

sb_status sb_reporters_run_begin(sb_reporters *rs, const char *algos, sb_error *err)
{
    return each(rs, rs->n, EV_RUN_BEGIN, &(event_arg){ .item = algos }, err);
}

sb_status sb_reporters_record(sb_reporters *rs, const sb_env *env, sb_error *err)
{
    return each(rs, rs->n, EV_RECORD, &(event_arg){ .item = env }, err);
}

void sb_reporters_run_end(sb_reporters *rs)
{
    sb_error ignored;
    each(rs, rs->n, EV_RUN_END, &(event_arg){ 0 }, &ignored);
}

sb_status sb_reporters_gallery(sb_reporters *rs, const sb_gallery_report *gr, sb_error *err)
{
    return each(rs, rs->n, EV_GALLERY, &(event_arg){ .item = gr }, err);
}

sb_status sb_reporters_begin(sb_reporters *rs, const sb_algo *algo, int keep, sb_error *err)
{
    event_arg a = { .algo = algo, .flag = keep };
    for (rs->begun = 0; rs->begun < rs->n; rs->begun++) {
        sb_status st = call(&rs->list[rs->begun], rs->dir, EV_BEGIN, &a, err);
        if (st)
            return st;              /* the ones begun end in sb_reporters_end */
    }
    return SB_OK;
}

sb_status sb_reporters_row(sb_reporters *rs, const sb_row_report *rr, sb_error *err)
{
    return each(rs, rs->begun, EV_ROW, &(event_arg){ .item = rr }, err);
}

sb_status sb_reporters_quality(sb_reporters *rs, const sb_quality_report *qr, sb_error *err)
{
    return each(rs, rs->begun, EV_QUALITY, &(event_arg){ .item = qr }, err);
}

sb_status sb_reporters_end(sb_reporters *rs, const sb_algo *algo, const sb_rows *measured, int finished,
                           sb_error *err)
{
    sb_status st = each(rs, rs->begun, EV_END, &(event_arg){ .algo = algo, .item = measured, .flag = finished }, err);
    rs->begun = 0;
    return st;
}

sb_status sb_reporters_stream_row(sb_reporters *rs, const sb_stream_row *row, sb_error *err)
{
    return each(rs, rs->n, EV_STREAM_ROW, &(event_arg){ .item = row }, err);
}

sb_status sb_reporters_streams_end(sb_reporters *rs, const sb_algo *algo, int finished, sb_error *err)
{
    return each(rs, rs->n, EV_STREAMS_END, &(event_arg){ .algo = algo, .flag = finished }, err);
}

sb_status sb_reporters_repeat_begin(sb_reporters *rs, const char *kept, sb_error *err)
{
    return each(rs, rs->n, EV_REPEAT_BEGIN, &(event_arg){ .item = kept }, err);
}

sb_status sb_reporters_repeat_row(sb_reporters *rs, const sb_repeat_report *rr, sb_error *err)
{
    return each(rs, rs->n, EV_REPEAT_ROW, &(event_arg){ .item = rr }, err);
}

sb_status sb_reporters_repeat_end(sb_reporters *rs, int finished, sb_error *err)
{
    return each(rs, rs->n, EV_REPEAT_END, &(event_arg){ .flag = finished }, err);
}

int sb_reporters_stream_files(const sb_reporters *rs)
{
    return rs->streams.files;
}

int sb_reporters_take_census(const sb_reporters *rs)
{
    return rs->kernels.log.fp != NULL;
}
