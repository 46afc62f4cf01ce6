/* compare_streams.h - `segbench compare --baseline DIR --current DIR`'s
 * second table: the two sets' stream rows (<algo>.stream.csv), frames/s
 * side by side.  A stream row is one measurement, with no samples to
 * test, so its verdict is a threshold: *same* within SB_STREAM_SAME of the
 * baseline's rate, or when either row is flagged (unstable, few); these
 * lines are not in the kernel table's tally, its exports or
 * --fail-on-slower. */
#ifndef SEGBENCH_COMPARE_STREAMS_H
#define SEGBENCH_COMPARE_STREAMS_H

#include <stdio.h>

#define SB_STREAM_SAME 0.10

/* The table for the algorithms and variants the patterns choose (NULL:
 * all); nothing when neither set has stream rows.  Returns how many rows
 * were compared. */
int sb_compare_stream_rows(const char *baseline, const char *current, const char *algos, const char *variants,
                           FILE *fp);

#endif
