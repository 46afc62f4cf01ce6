/* catalogue.c - the catalogue reporter: variants.tsv, the variants a
 * result set is measured with (io/catalogue.h), written as the run is
 * announced -- the run's algorithms from this binary, the set's others
 * as the file had them (reporter.h). */
#include "reporters/reporters.h"

#include "io/catalogue.h"

static sb_status catalogue_write(sb_reporter *self, const char *dir, const char *algos, sb_error *err)
{
    (void)self;
    return sb_catalogue_write(dir, algos, err);
}

void sb_catalogue_reporter(sb_reporter *rep)
{
    *rep = (sb_reporter){ .name = "catalogue", .run_begin = catalogue_write };
}
