/* lesson_headers.h - the lesson in each CUDA rung file's opening comment:
 * "Grows from PARENT" (or "A branch of PARENT", off the main line), and
 * what the edge bought in the run of record, written from the result set
 * (`make lesson-headers`) and checked against it (`make test`). */
#ifndef SEGBENCH_LESSON_HEADERS_H
#define SEGBENCH_LESSON_HEADERS_H

#include "segbench/error.h"

#include <stdio.h>

typedef struct lesson_header_report {
    FILE *fp;            /* one line per problem (NULL: none printed) */
    int files;           /* rung files looked at */
    int stale;           /* measured block not the set's (check) */
    int written;         /* measured block rewritten (write) */
    int wrong_words;     /* an SB_RUNG parent not named as "Grows from" / "A branch of" as its place says */
    int no_comment;      /* no opening comment */
} lesson_header_report;

/* Every CUDA file that registers a rung with a parent, against the result
 * set in dir: with write, its measured block rewritten where it differs;
 * else counted as stale.  The words are checked either way. */
sb_status lesson_headers(const char *dir, int write, lesson_header_report *r, sb_error *err);

#endif
