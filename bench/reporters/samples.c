/* samples.c - the samples reporter: every raw sample of a measured row
 * into <algo>.samples.csv (io/rows.h's format), flushed before the
 * row reaches <algo>.csv (reporter.h). */
#include "reporters/reporters.h"

void sb_samples_reporter(sb_reporter *rep, sb_file_reporter *f)
{
    sb_file_reporter_make(rep, f, "samples", ".samples.csv", SB_SAMPLES_CSV_HEADER, sb_row_put_samples);
}
