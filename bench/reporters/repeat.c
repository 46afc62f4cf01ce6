/* repeat.c - the repeatability reporter: the summary image's rows
 * measured again at the end of a run, each beside its first measurement,
 * into repeat.csv -- the lines of the set's other algorithms kept from
 * the file before, the whole written at once through a temporary file,
 * so a run stopped during the re-measure leaves the old file whole
 * (reporter.h). */
#include "reporters/reporters.h"

#include "base/csv.h"
#include "base/files.h"

#include "segbench/atomic_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char REPEAT_CSV_HEADER[] = "algo,stage,variant,threads,image,first_median_ms,first_n,again_median_ms,"
                                        "again_n,ratio,within_10pct,first_flags,run_id,commit,machine,date\n";

static sb_status repeat_begin(sb_reporter *self, const char *kept, sb_error *err)
{
    sb_repeat_state *s = self->state;
    free(s->text);
    s->text = NULL;
    s->len = 0;
    FILE *fp = open_memstream(&s->text, &s->len);
    if (!fp)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory for repeat.csv");
    fputs(REPEAT_CSV_HEADER, fp);
    fputs(kept ? kept : "", fp);
    s->fp = fp;
    return SB_OK;
}

static sb_status repeat_row(sb_reporter *self, const sb_repeat_report *rr, sb_error *err)
{
    (void)err;
    sb_repeat_state *s = self->state;
    const sb_row *first = rr->first;
    if (!s->fp)
        return SB_OK;
    sb_csv_put_fields(s->fp, (const char *const[]){ first->algo, first->stage, first->variant }, 3);
    fprintf(s->fp, ",%d,", first->threads);
    sb_csv_put_field(s->fp, first->image);
    fprintf(s->fp, ",%.6f,%d,%.6f,%d,%.4f,%s,", first->kernel.median, first->kernel.n, rr->again_median_ms,
            rr->again_n, rr->ratio, rr->within ? "yes" : "no");
    sb_csv_put_field(s->fp, first->flags);
    fputc(',', s->fp);
    sb_csv_put_fields(s->fp, (const char *const[]){ first->run_id, first->commit, rr->machine ? rr->machine : "",
                                                    first->date }, 4);
    fputc('\n', s->fp);
    return SB_OK;
}

static sb_status repeat_end(sb_reporter *self, const char *dir, int finished, sb_error *err)
{
    sb_repeat_state *s = self->state;
    if (!s->fp)
        return SB_OK;
    fclose(s->fp);
    s->fp = NULL;
    sb_status st = SB_OK;
    char path[SB_PATH_MAX];
    if (finished && !(st = sb_path(path, err, "%s/repeat.csv", dir))) {
        sb_atomic_file af;
        if (!(st = sb_atomic_open(&af, path, err))) {
            fwrite(s->text, 1, s->len, af.fp);
            st = sb_atomic_commit(&af, err);
        }
    }
    free(s->text);
    s->text = NULL;
    return st;
}

void sb_repeat_reporter(sb_reporter *rep, sb_repeat_state *state)
{
    memset(state, 0, sizeof *state);
    *rep = (sb_reporter){ .name = "repeat", .repeat_begin = repeat_begin, .repeat_row = repeat_row,
                          .repeat_end = repeat_end, .state = state };
}
