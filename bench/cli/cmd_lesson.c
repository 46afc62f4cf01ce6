/* cmd_lesson.c - `segbench lesson ALGO/RUNG | ALGO`: its options.  The
 * edge or tree is bench/course/lesson_show.c. */
#include "cli/commands.h"

#include "base/files.h"

#include "course/lesson_headers.h"
#include "course/lesson_share.h"
#include "course/lesson_show.h"
#include "io/result_set.h"
#include "variants/registry.h"

#include <stdio.h>

enum { OPT_RESULTS, OPT_STAGE, OPT_NO_DIFF, OPT_CHECK_HEADERS, OPT_SHARE, OPT_COUNT };

static const sb_option LESSON_OPTIONS[OPT_COUNT] = {
    [OPT_RESULTS] = { "results", "DIR", "results/<reference machine>", "the result set whose numbers it quotes" },
    [OPT_STAGE] = { "stage", "NAME", "every stage", "quote the gain at this stage only" },
    [OPT_NO_DIFF] = { "no-diff", NULL, NULL, "leave out the diff against the parent's code" },
    [OPT_CHECK_HEADERS] = { "check-headers", NULL, NULL,
                            "say which rung files' headers do not name their file and parent as their place "
                            "says, or hold numbers (exit 1)" },
    [OPT_SHARE] = { "share", NULL, NULL,
                    "each CUDA edge's changed lines (the diff the lesson shows) and the idea's share of "
                    "them, against the goal of 70 % (issue 78); with ALGO, its edges only" },
};

const sb_command sb_cmd_lesson = {
    "lesson", "ALGO/RUNG | ALGO [options]",
    "One lesson of a ladder: its parent, idea, gain and diff; or an algorithm's whole tree.",
    "  segbench lesson integral/cuda-pdl      the edge cuda-inflight -> cuda-pdl, then one diff -u of the two\n"
    "                                         sides: each file with the headers it lends (6_pdl.cuh, ...), the\n"
    "                                         rung's with the parent's it includes; each hunk names its file\n"
    "  segbench lesson slic                   the tree: every rung under the rung it grows from\n"
    "Gains are kernel (and per-frame) medians at each stage's summary image in --results;\n"
    "census: the most registers and shared memory of the rung's kernels, the lowest occupancy.\n"
    "  segbench lesson --share [ALGO]         each edge's changed lines, the idea's share, the rest by kind\n"
    "  segbench lesson --check-headers        every rung file's opening comment names its file and parent;\n"
    "                                         what an edge bought is in report/<machine>/lessons-<algo>.md\n",
    LESSON_OPTIONS, OPT_COUNT, 0, NULL, cmd_lesson,
};

/* --check-headers: every rung file's opening comment. */
static sb_status lesson_headers_command(const char *results, sb_error *err)
{
    char dir[SB_PATH_MAX];
    if (results)
        snprintf(dir, sizeof dir, "%s", results);
    else
        sb_reference_results_dir("results", dir, sizeof dir);
    lesson_header_report r = { .fp = stdout };
    sb_status st = lesson_headers(dir, &r, err);
    if (st)
        return st;
    printf("%d rung files: %d with words to fix, %d holding numbers, %d without an opening comment, %d headers over "
           "%d lines, %d without their section in LESSONS.md\n", r.files, r.wrong_words, r.numbers, r.no_comment,
           r.long_header, LESSON_HEADER_LINES, r.no_lesson);
    if (r.numbers || r.wrong_words || r.no_comment || r.long_header || r.no_lesson)
        return sb_fail(err, SB_ERR_AGREEMENT, "rung headers: %d with words to fix, %d holding numbers, %d too long, %d "
                       "without a lesson", r.wrong_words + r.no_comment, r.numbers, r.long_header, r.no_lesson);
    return SB_OK;
}

sb_status cmd_lesson(int argc, char **argv, sb_error *err)
{
    const char *results = NULL, *stage_name = NULL, *spec = NULL;
    int no_diff = 0, headers = 0, share = 0;
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_lesson, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (opt) {
        case OPT_RESULTS:
            st = sb_dir_arg(p.value, "--results", err);
            results = p.value;
            break;
        case OPT_STAGE: stage_name = p.value; break;
        case OPT_NO_DIFF: no_diff = 1; break;
        case OPT_CHECK_HEADERS: headers = 1; break;
        case OPT_SHARE: share = 1; break;
        case SB_OPT_ARG:
            if (spec)
                return sb_fail(err, SB_ERR_USAGE, "one ALGO/RUNG or ALGO at a time (got '%s' and '%s')", spec, p.value);
            spec = p.value;
            break;
        default: return sb_optparse_unexpected(&p);
        }
    if (p.status || st)
        return p.status ? p.status : st;
    if (headers && spec)
        return sb_fail(err, SB_ERR_USAGE, "--check-headers takes every rung file, not '%s'", spec);
    if (headers)
        return lesson_headers_command(results, err);
    if (share) {
        if (spec && !sb_algo_find(spec))
            return sb_fail(err, SB_ERR_USAGE, "--share takes an algorithm or none, not '%s'", spec);
        return lesson_share_report(spec, 70, stdout, err);
    }
    if (!spec)
        return sb_fail(err, SB_ERR_USAGE, "which lesson? give ALGO/RUNG (segbench lesson integral/cuda-pdl) or ALGO");

    return sb_lesson_show(spec, results, stage_name, no_diff, err);
}
