/* lesson_headers.h - the lesson in each CUDA (and pthread) rung file's
 * opening comment: its first line names the file, "Grows from PARENT" (or
 * "A branch of PARENT", off the main line) names its parent, and no
 * measured numbers: those live in the generated lessons pages, with the
 * run that measured them; and, for a CUDA rung, a header of a few lines
 * and its whole lesson in LESSONS.md beside it (`make test` checks it;
 * `segbench lesson --check-headers`). */
#ifndef SEGBENCH_LESSON_HEADERS_H
#define SEGBENCH_LESSON_HEADERS_H

#include "segbench/error.h"

#include <stdio.h>

/* A CUDA rung's header keeps the idea, the parent and why in this many
 * lines at most (issue 78: the header is part of every lesson's diff);
 * the whole lesson is the section "## FILE" of its folder's LESSONS.md. */
enum { LESSON_HEADER_LINES = 6 };

typedef struct lesson_header_report {
    FILE *fp;            /* one line per problem (NULL: none printed) */
    int files;           /* rung files looked at */
    int numbers;         /* a header that holds measured numbers */
    int wrong_words;     /* its file or its SB_RUNG parent not named as its place says */
    int no_comment;      /* no opening comment */
    int long_header;     /* a CUDA rung's header of more than LESSON_HEADER_LINES lines */
    int no_lesson;       /* a CUDA rung with no section in the LESSONS.md beside it */
} lesson_header_report;

/* Every CUDA and pthread file that registers a rung with a parent; dir:
 * the result set whose fastest rungs make a tree's main line where it
 * declares no top. */
sb_status lesson_headers(const char *dir, lesson_header_report *r, sb_error *err);
/* The same for one file's text, as if it were that file. */
sb_status lesson_header_check(const char *file, const char *text, const char *dir, lesson_header_report *r,
                              sb_error *err);

/* The section "## FILE" of the LESSONS.md beside the rung file at path
 * (a path this program can open), malloc'd; NULL when there is none. */
char *lesson_long_text(const char *path);

#endif
