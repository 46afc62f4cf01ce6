/* cmd_exercise.c - `segbench exercise ALGO/RUNG`: a lesson handed out as an
 * exercise.  Writes exercises/<algo>/<the rung's file>: the rung with its
 * lesson's code taken out (lessons/exercise.h says how), registered as
 * student-<rung>; --solution writes the reference solution there instead.
 * `make exercise ALGO=... RUNG=...` runs it; make then builds the copy, and
 * `segbench grade ALGO/student-RUNG` grades it. */
#include "cli/commands.h"

#include "base/files.h"

#include "course/exercise.h"

#include <stdio.h>
#include <string.h>

enum { OPT_SOLUTION, OPT_FORCE, OPT_ROOT, OPT_EXPORT, OPT_COUNT };

static const sb_option EXERCISE_OPTIONS[OPT_COUNT] = {
    [OPT_SOLUTION] = { "solution", NULL, NULL, "write the reference solution (the rung itself) instead of the stub" },
    [OPT_FORCE] = { "force", NULL, NULL, "replace a student's file that is there" },
    [OPT_ROOT] = { "root", "DIR", ".", "the repository the copy goes into (DIR/exercises/ALGO/)" },
    [OPT_EXPORT] = { "export", "DIR", NULL,
                     "write a student's kit into the new folder DIR: this repository with the stub, without the "
                     "reference solution (the rung's file and its descendants') or the tests" },
};

const sb_command sb_cmd_exercise = {
    "exercise", "ALGO/RUNG [options]",
    "A lesson as an exercise: the rung with its lesson's code taken out, registered as student-RUNG.",
    "  segbench exercise integral/cuda-transposed   exercises/integral/4_transposed.cu: the parent's code\n"
    "                                               where the lesson goes, between TODO markers\n"
    "  segbench exercise kmeans/openmp              exercises/kmeans/kmeans_openmp.c: its pragmas taken out\n"
    "  segbench exercise integral/pthread-strips    a CPU rung: the parent pthread's code where the lesson goes\n"
    "Then make (it builds exercises/ when there is one) and segbench grade ALGO/student-RUNG.\n"
    "A CUDA or pthread rung's lesson is what its file changes from its parent's (at most 10 TODO parts);\n"
    "an OpenMP variant's, its pragmas.\n"
    "  segbench exercise kmeans/openmp --export kit/  a student's kit: builds and grades, no solution in it\n",
    EXERCISE_OPTIONS, OPT_COUNT, 0, NULL, cmd_exercise,
};

sb_status cmd_exercise(int argc, char **argv, sb_error *err)
{
    const char *spec = NULL, *root = ".", *export_dir = NULL;
    int solution = 0, force = 0;
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_exercise, argc, argv, err);
    sb_status st = SB_OK;
    for (int o; !st && (o = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (o) {
        case OPT_SOLUTION: solution = 1; break;
        case OPT_FORCE: force = 1; break;
        case OPT_EXPORT:
            st = sb_dir_arg(p.value, "--export", err);
            export_dir = p.value;
            break;
        case OPT_ROOT:
            st = sb_dir_arg(p.value, "--root", err);
            root = p.value;
            break;
        case SB_OPT_ARG:
            if (spec)
                return sb_fail(err, SB_ERR_USAGE, "one ALGO/RUNG at a time (got '%s' and '%s')", spec, p.value);
            spec = p.value;
            break;
        default: return sb_optparse_unexpected(&p);
        }
    if (p.status || st)
        return p.status ? p.status : st;
    if (export_dir && (solution || force || strcmp(root, ".") != 0))
        return sb_fail(err, SB_ERR_USAGE, "--export makes a kit of its own: no --solution, --force or --root with it");
    return export_dir ? sb_exercise_export(spec, export_dir, err) : sb_exercise_hand_out(spec, root, solution, force, err);
}
