/* record.c - the run record reporter: env.json, the machine and the run
 * (machine/env.h), rewritten whole each time the run's record changes --
 * as it starts, after every row (so rows_measured is true whatever stops
 * the run) and as it ends (reporter.h). */
#include "reporters/reporters.h"

#include "base/files.h"

static sb_status record_write(sb_reporter *self, const char *dir, const sb_env *env, sb_error *err)
{
    (void)self;
    char path[SB_PATH_MAX];
    sb_status st = sb_path(path, err, "%s/env.json", dir);
    return st ? st : sb_env_write_json(env, path, err);
}

void sb_record_reporter(sb_reporter *rep)
{
    *rep = (sb_reporter){ .name = "record", .record = record_write };
}
