/* sandbox.h - a student's build and grade kept apart from the teacher,
 * the class and the other students, with bubblewrap (bwrap: the sandbox
 * Flatpak uses; unprivileged, through Linux namespaces).
 *
 * Inside, a student's make and segbench grade see:
 *   - the whole system read-only: the teacher's tree can be read and
 *     compiled against, never written -- but not the files of the
 *     exercise's reference solution (empty there), the teacher's build or
 *     its git history (empty folders);
 *   - their own tree (WORK/NNN) as the one writable place, and an empty
 *     /tmp of their own;
 *   - none of the class: the work folder (every student's tree) and the
 *     submissions folder are empty there;
 *   - no network, their own PID namespace (every process they start dies
 *     with the sandbox; the grader's processes cannot be seen, so cannot
 *     be signalled), their own session (no terminal to type into);
 *   - the GPU's device files, where there are any.
 * What it does not do: limit memory, CPU time or the number of processes
 * -- the spawn does that, in a control group where one can be made
 * (segbench/spawn.h) -- or hide what the whole machine may read anyway
 * (docs/course-plan.md). */
#ifndef SEGBENCH_SANDBOX_H
#define SEGBENCH_SANDBOX_H

#include "segbench/error.h"

#include <stddef.h>

enum { SANDBOX_ARGS = 1024, SANDBOX_DEVICES = 16, SANDBOX_PATH = 4096 };

typedef struct grade_sandbox {
    char bwrap[SANDBOX_PATH];          /* the program; "" when grading runs without a sandbox */
} grade_sandbox;

/* A command line wrapped in the sandbox: bwrap's arguments, then the
 * command's own. */
typedef struct sandbox_argv {
    char *v[SANDBOX_ARGS];
    int n;
    char devices[SANDBOX_DEVICES][64];
} sandbox_argv;

/* Find bwrap on PATH and prove that it can make a sandbox here (user
 * namespaces allowed).  SB_OK, or SB_ERR_USAGE with one line saying what
 * is missing and what to install. */
sb_status grade_sandbox_find(grade_sandbox *s, sb_error *err);

/* What the sandbox shows apart from the read-only system: `own` the one
 * writable folder (and the folder cmd starts in), each of hide[] empty,
 * each of show[] (the teacher's tree and images, which may lie under
 * /tmp or a hidden folder) read-only where it is, then within what is
 * shown each folder of cover[] empty and each file of blank[] empty (the
 * teacher's build and history, the reference solution's files).
 * Absolute paths. */
typedef struct sandbox_view {
    const char *own;
    const char *const *hide;
    int nhide;
    const char *const *show;
    int nshow;
    const char *const *cover;
    int ncover;
    const char *const *blank;
    int nblank;
} sandbox_view;

/* cmd (NULL-terminated) run inside s, seeing what view says.  Without a
 * sandbox (s->bwrap ""), cmd as it is. */
sb_status grade_sandbox_wrap(const grade_sandbox *s, const sandbox_view *view, char *const cmd[], sandbox_argv *out,
                             sb_error *err);

#endif
