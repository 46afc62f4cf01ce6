/* streams.c - the stream CSV reporter: an algorithm's stream rows, kept
 * as they come and written whole into <algo>.stream.csv (io/stream_rows.h)
 * once its scenes are done; nothing when it streamed nothing
 * (reporter.h). */
#include "reporters/reporters.h"

#include "base/files.h"

#include <stdlib.h>

static sb_status streams_row(sb_reporter *self, const sb_stream_row *row, sb_error *err)
{
    sb_streams_state *s = self->state;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        sb_stream_row *grown = realloc(s->rows, (size_t)cap * sizeof *grown);
        if (!grown)
            return sb_fail(err, SB_ERR_NOMEM, "out of memory for the stream rows");
        s->rows = grown;
        s->cap = cap;
    }
    s->rows[s->n++] = *row;
    return SB_OK;
}

static sb_status streams_end(sb_reporter *self, const char *dir, const sb_algo *algo, int finished, sb_error *err)
{
    sb_streams_state *s = self->state;
    sb_status st = SB_OK;
    char path[SB_PATH_MAX];
    if (finished && s->n > 0 && !(st = sb_path(path, err, "%s/%s.stream.csv", dir, algo->name)))
        st = sb_stream_rows_write(path, s->rows, s->n, err);
    s->files += finished && s->n > 0 && !st;
    free(s->rows);
    s->rows = NULL;
    s->n = s->cap = 0;
    return st;
}

void sb_streams_reporter(sb_reporter *rep, sb_streams_state *state)
{
    *rep = (sb_reporter){ .name = "streams", .stream_row = streams_row, .streams_end = streams_end, .state = state };
}
