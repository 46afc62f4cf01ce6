/* csv.h - the one CSV writer and reader every results file goes through
 * (rows, samples, quality, kernel census, compare's exports, peers).
 *
 * Writing follows RFC 4180: a field holding a comma, a double quote, a
 * carriage return or a line feed is quoted, quotes inside doubled, and
 * nothing is changed, so any name (a file called "a,b\r.png") comes back
 * as it went in.  A record therefore may span lines; reading joins lines
 * while a quoted field is open.  A record without its final line feed was
 * cut off (a kill, a full disk) and is not a record.
 */
#ifndef SEGBENCH_CSV_H
#define SEGBENCH_CSV_H

#include <stdio.h>
#include <sys/types.h>

/* One field, quoted when it needs to be. */
void sb_csv_put_field(FILE *fp, const char *s);
/* n fields separated by commas (no line end). */
void sb_csv_put_fields(FILE *fp, const char *const *fields, int n);

/* The next record into *buf (grown as needed, as getline does), its line
 * feed included.  Returns its length, 0 at the end of the file, or -1 for
 * a record cut off (no final line feed, or a quote left open). */
ssize_t sb_csv_read_record(FILE *fp, char **buf, size_t *cap);
/* Split a record in place into at most max fields, quotes undone;
 * returns how many. */
int sb_csv_split(char *record, char **field, int max);
/* The length of a file's leading complete records (where a cut-off last
 * record begins); the stream is left at an unspecified position. */
long sb_csv_complete_length(FILE *fp);

#endif
