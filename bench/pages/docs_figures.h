/* docs_figures.h - numbers in prose that come from a run, written from
 * the results (`segbench docs`, `make docs`).  A figure in README.md or
 * docs/ stands between two comments Markdown does not show,
 *
 *     an A/A of <!-- sb:aa h200 -->489 rows calls none of them (...)<!-- /sb -->
 *
 * (one shown in code, right after a backquote, is not a figure), and its
 * text is what the kind (aa) makes of its arguments (h200) from
 * results/<machine>/, with the run and date it came from beside it.  The
 * check (--check, and the test suite) fails where a committed page's text
 * differs from what the results say now. */
#ifndef SEGBENCH_PAGES_DOCS_FIGURES_H
#define SEGBENCH_PAGES_DOCS_FIGURES_H

#include "segbench/error.h"

#include <stdio.h>

typedef struct sb_docs_tally {
    int files, figures;          /* read, and the figures in them */
    int differ;                  /* figures whose text is not what the results say */
    int rewritten;               /* files written again (not --check) */
} sb_docs_tally;

/* Each figure of each file made again from results_root: the files
 * rewritten where a figure changed, or with check, each difference said
 * on out ("FILE:LINE: sb:KIND ARGS: the page says '...', the results
 * '...'") and nothing written.  A figure of an unknown kind, with the
 * wrong arguments, or whose results cannot be read, is an error naming
 * its file and line. */
sb_status sb_docs_figures(const char *const *files, int nfiles, const char *results_root, int check, FILE *out,
                          sb_docs_tally *t, sb_error *err);

#endif
