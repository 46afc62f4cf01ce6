/* json.c - the JSON reporter (--json): <algo>.json beside the CSV as the
 * algorithm ends, read back from <algo>.csv and <algo>.samples.csv, so
 * the rows of a resumed run's earlier invocations are in it too
 * (reporter.h). */
#include "reporters/reporters.h"

#include "base/files.h"

static sb_status json_end(sb_reporter *self, const char *dir, const sb_algo *algo, const sb_rows *measured,
                          int finished, sb_error *err)
{
    (void)measured;
    (void)self;
    if (!finished)
        return SB_OK;
    char csv[SB_PATH_MAX], samples[SB_PATH_MAX], json[SB_PATH_MAX];
    sb_status st;
    if ((st = sb_path(csv, err, "%s/%s.csv", dir, algo->name)) ||
        (st = sb_path(samples, err, "%s/%s.samples.csv", dir, algo->name)) ||
        (st = sb_path(json, err, "%s/%s.json", dir, algo->name)))
        return st;
    sb_rows rows;
    if ((st = sb_rows_read_csv(csv, &rows, err)))
        return st;
    if (!(st = sb_rows_read_samples(samples, &rows, err)))
        st = sb_rows_write_json(&rows, json, err);
    sb_rows_free(&rows);
    return st;
}

void sb_json_reporter(sb_reporter *rep)
{
    *rep = (sb_reporter){ .name = "json", .end = json_end };
}
