/* rows_csv.c - the CSV reporter: each measured row, one line of
 * <algo>.csv (its columns: docs/results.md), flushed as it comes
 * (reporter.h). */
#include "reporters/reporters.h"

void sb_rows_csv_reporter(sb_reporter *rep, sb_file_reporter *f)
{
    sb_file_reporter_make(rep, f, "csv", ".csv", SB_ROWS_CSV_HEADER, sb_row_put_csv);
}
