/* exercise_kit.c - a student's kit (exercise.h): the repository a student
 * needs for one exercise, with its reference solution taken out.
 *
 * The rung's own file goes, and so does the file of every rung that
 * grows from it, at any depth: a descendant holds the lesson's code too.
 * (A file that registers several rungs takes all of them with it, and
 * their descendants.)  What stays builds as it is -- the build finds
 * variants by their files -- and the kit's grader, with no reference to
 * time, measures the student's rung against its parent alone (grade.c).
 * The test suite stays out: it tests the whole tree. */
#define _GNU_SOURCE            /* renameat2 */
#include "course/exercise.h"

#include "base/files.h"
#include "variants/registry.h"

#include "segbench/atomic_file.h"
#include "segbench/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a kit copies from the repository, when there. */
static const char *const KIT_PARTS[] = { "Makefile", "README.md", ".gitignore", "include", "common", "bench",
                                         "impl_cpu", "impl_pthread", "impl_cuda", "scripts", "docs", "results" };
static const char *const KIT_DATASETS[] = { "photos", "sets", "synth.c" };


static int listed(const char *const *files, int n, const char *file)
{
    for (int i = 0; i < n; i++)
        if (strcmp(files[i], file) == 0)
            return 1;
    return 0;
}

int exercise_solution_files(const sb_variant *rung, const char **gone, int max)
{
    int n = 0;
    if (max < 1)
        return 0;
    gone[n++] = rung->file;
    for (int grew = 1; grew;) {
        grew = 0;
        for (int i = 0; i < sb_variant_count() && n < max; i++) {
            const sb_variant *v = sb_variant_at(i);
            if (listed(gone, n, v->file) || !v->parent || sb_is_student_variant(v->name))
                continue;
            const sb_variant *p = sb_variant_find(v->algo, v->parent);
            if (p && listed(gone, n, p->file)) {
                gone[n++] = v->file;
                grew = 1;
            }
        }
    }
    return n;
}

static sb_status copy_in(const char *from, const char *to, sb_error *err)
{
    char *const argv[] = { "cp", "-a", (char *)from, (char *)to, NULL };
    return sb_spawn(argv, NULL, NULL) == 0 ? SB_OK : sb_fail(err, SB_ERR_IO, "cannot copy %s to %s", from, to);
}

static sb_status kit_readme(const sb_variant *rung, const char *dir, const char *stub, int parts, int ngone,
                            const char **gone, sb_error *err)
{
    char path[SB_PATH_MAX], *text = NULL;
    size_t len = 0;
    sb_status st = sb_path(path, err, "%s/KIT.md", dir);
    FILE *fp = st ? NULL : open_memstream(&text, &len);
    if (st)
        return st;
    if (!fp)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    fprintf(fp, "# Your exercise: %s\n\n", rung->who);
    fprintf(fp, "The lesson: %s.\n\n", rung->idea && rung->idea[0] ? rung->idea : rung->summary);
    fprintf(fp, "`%s` holds the code you start from: the lesson goes where %s marked `TODO(exercise part N)`. "
            "As handed out it builds, is exact, and is as fast as the rung it grows from. The course is "
            "`docs/course.md`.\n\n", stub, parts == 1 ? "one part is" : "the parts are");
    fprintf(fp, "```\nmake                     # builds everything, your file included\n"
            "$EDITOR %s\nmake && ./build/segbench grade %s/" SB_STUDENT_PREFIX "%s\n```\n\n",
            stub, rung->algo, rung->name);
    fprintf(fp, "`segbench grade` checks your output on the images of the set and on images of awkward sizes, "
            "runs compute-sanitizer on a GPU rung, and times your rung against its parent, interleaved. This kit "
            "holds no reference solution: the file of %s%s is not here", rung->who,
            ngone > 1 ? " and of the rungs that grow from it" : "");
    for (int i = 0; i < ngone; i++)
        fprintf(fp, "%s`%s`", i ? ", " : " (", gone[i]);
    fprintf(fp, "). Your teacher's grade also times the reference solution, with a seed and images of their own: "
            "where it beats the parent, yours must too.\n\nHand in `%s`, and nothing else.\n", stub);
    fclose(fp);
    st = text ? sb_atomic_write_text(path, text, err) : sb_fail(err, SB_ERR_NOMEM, "out of memory");
    free(text);
    return st;
}

/* The kit's parts into `dir`: the repository's, the datasets' sources,
 * the solution's files taken out, the stub and KIT.md. */
static sb_status write_kit(const sb_variant *rung, const char *root, const char *dir, const char **gone, int *ngone,
                           int *parts, char *stub, size_t stub_size, sb_error *err)
{
    char from[SB_PATH_MAX], to[SB_PATH_MAX];
    sb_status st = SB_OK;
    for (size_t i = 0; i < sizeof KIT_PARTS / sizeof KIT_PARTS[0] && !st; i++)
        if (!(st = sb_path(from, err, "%s/%s", root, KIT_PARTS[i])) && access(from, F_OK) == 0)
            st = copy_in(from, dir, err);
    if (!st && !(st = sb_path(to, err, "%s/datasets", dir)))
        st = sb_mkdirs(to, err);
    for (size_t i = 0; i < sizeof KIT_DATASETS / sizeof KIT_DATASETS[0] && !st; i++)
        if (!(st = sb_path(from, err, "%s/datasets/%s", root, KIT_DATASETS[i])) && access(from, F_OK) == 0)
            st = copy_in(from, to, err);
    *ngone = st ? 0 : exercise_solution_files(rung, gone, KIT_MAX_GONE);
    for (int i = 0; i < *ngone && !st; i++)
        if (!(st = sb_path(to, err, "%s/%s", dir, gone[i])) && unlink(to) != 0 && errno != ENOENT)
            st = sb_fail(err, SB_ERR_IO, "cannot remove %s: %s", to, strerror(errno));
    char written[SB_PATH_MAX];
    if (!st)
        st = exercise_write(rung, dir, 0, 0, parts, written, sizeof written, err);
    if (!st)
        snprintf(stub, stub_size, "%s", written + strlen(dir) + (written[strlen(dir)] == '/'));
    if (!st)
        st = kit_readme(rung, dir, stub, *parts, *ngone, gone, err);
    return st;
}

/* The kit is made in a hidden folder beside `dir` and renamed to it once
 * whole: a kit that fails half-way (a full disk, a copy that breaks)
 * leaves nothing, so it holds no solution and a retry is not refused. */
sb_status exercise_export(const sb_variant *rung, const char *root, const char *dir, sb_error *err)
{
    char why[400];
    if (!exercise_parent(rung, why, sizeof why))
        return sb_fail(err, SB_ERR_USAGE, "%s", why);
    struct stat sb;
    if (stat(dir, &sb) == 0)
        return sb_fail(err, SB_ERR_USAGE, "--export %s: it is there already; a kit goes into a new folder", dir);
    const char *slash = strrchr(dir, '/'), *name = slash ? slash + 1 : dir;
    char parent[SB_PATH_MAX], partial[SB_PATH_MAX];
    sb_status st = sb_path(parent, err, "%.*s", slash ? (int)(slash - dir) : 1, slash ? dir : ".");
    if (!st && !parent[0])
        st = sb_path(parent, err, "/");
    if (!st)
        st = sb_mkdirs(parent, err);
    if (!st && !(st = sb_path(partial, err, "%s/.%s.partial-XXXXXX", parent, name)) && !mkdtemp(partial))
        st = sb_fail(err, SB_ERR_IO, "--export %s: cannot make a folder beside it (%s)", dir, strerror(errno));
    if (st)
        return st;
    const char *gone[KIT_MAX_GONE];
    int ngone = 0, parts = 0;
    char stub[SB_PATH_MAX] = "";
    st = write_kit(rung, root, partial, gone, &ngone, &parts, stub, sizeof stub, err);
    if (!st && renameat2(AT_FDCWD, partial, AT_FDCWD, dir, RENAME_NOREPLACE) != 0)
        st = sb_fail(err, SB_ERR_IO, "--export %s: cannot put the kit there (%s)", dir, strerror(errno));
    if (st) {
        sb_error ignored;
        sb_remove_tree(partial, &ignored);
        return st;
    }
    printf("wrote a kit for %s in %s: %s with %d TODO part%s, KIT.md; %d file%s of the solution left out (%s%s)\n",
           rung->who, dir, stub, parts, parts == 1 ? "" : "s", ngone, ngone == 1 ? "" : "s", gone[0],
           ngone > 1 ? ", ..." : "");
    return SB_OK;
}

sb_status sb_exercise_export(const char *spec, const char *dir, sb_error *err)
{
    const sb_variant *v;
    sb_status st = exercise_rung(spec, &v, err);
    return st ? st : exercise_export(v, ".", dir, err);
}
