/* lesson_share.h - how much of a lesson's diff is its idea (issue 78):
 * for each CUDA edge, the lines that differ between the parent's code and
 * the rung's -- each side its file and the headers it lends, the rung's
 * with the parent's headers it includes (lesson_files_share) -- sorted
 * into
 *   header        a file's opening comment (before its first #include),
 *   boilerplate   #include lines and a header's include guard,
 *   registration  SB_VARIANT, SB_RUNG, SB_CUDA_RUNG and the step macros
 *                 that register it,
 *   idea          everything else: kernels, launches, their comments;
 * and the idea's share of them.  Blank lines count for nothing.  A rename
 * inside code counts as idea (it cannot be told apart by lines). */
#ifndef SEGBENCH_LESSON_SHARE_H
#define SEGBENCH_LESSON_SHARE_H

#include "segbench/error.h"
#include "segbench/variant.h"

#include <stdio.h>

enum lesson_line_kind { LESSON_BLANK, LESSON_HEADER, LESSON_BOILERPLATE, LESSON_REGISTRATION, LESSON_IDEA };

typedef struct lesson_share {
    int changed;   /* lines added or removed, blank ones left out */
    int idea;      /* of them, the idea's */
    int header, boilerplate, registration;   /* and the others, by kind */
} lesson_share;

/* The kind of each line of a source text: kinds[i] for line i + 1, at most
 * max lines; returns how many lines the text has (at most max). */
int lesson_line_kinds(const char *text, enum lesson_line_kind *kinds, int max);

/* The counts of a `diff -u OLD NEW` output, each line's kind read from
 * the kinds of OLD's lines ('-' lines) and NEW's ('+' lines). */
void lesson_share_of_diff(const char *diff, const enum lesson_line_kind *old_kinds, int old_lines,
                          const enum lesson_line_kind *new_kinds, int new_lines, lesson_share *s);

/* One edge's counts, from its files: the diff of the parent's side -- the
 * headers its file lends (lesson_own_headers), then the file -- against
 * the rung's -- those of the parent's headers it includes, then its file
 * and the headers it lends.  Code moved into a header, or a header both
 * sides include, counts only where it differs. */
sb_status lesson_files_share(const char *parent_file, const char *rung_file, lesson_share *s, sb_error *err);

/* A reader's view of the same two sides: each written to a scratch file
 * (old_path and new_path: mkstemp templates, filled in), every file of a
 * side after a line LESSON_FILE_MARK NAME, for `diff -u -F`.  On an error
 * neither file is left. */
#define LESSON_FILE_MARK "// ===="
sb_status lesson_sides_write(const char *parent_file, const char *rung_file, char *old_path, char *new_path,
                             sb_error *err);

/* One edge's counts (lesson_files_share of the two rungs' files).
 * Returns 1, or 0 where the rung has no parent or its sources are not
 * here (s left zero), or -1 on an error. */
int lesson_edge_share(const sb_variant *v, lesson_share *s, sb_error *err);

/* Every CUDA edge of `algo` (NULL: of every algorithm): a line each,
 * "ALGO/RUNG  changed  idea  share" and the others by kind, then how
 * many reach `goal` percent and which kind the rest of their lines are.
 * Runs diff from the repository's folder. */
sb_status lesson_share_report(const char *algo, int goal, FILE *fp, sb_error *err);

#endif
