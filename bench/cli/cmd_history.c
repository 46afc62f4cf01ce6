/* cmd_history.c - `segbench history`: its options; the history itself is
 * compare/history.c, its page pages/report_history.c. */
#include "cli/commands.h"

#include "base/args.h"
#include "base/files.h"
#include "compare/compare.h"
#include "compare/history.h"
#include "io/result_set.h"

#include "pages/report.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OPT_MACHINE, OPT_LAST, OPT_VARIANT, OPT_FLOOR, OPT_OUT, OPT_RESULTS_ROOT, OPT_QUIET, OPT_COUNT };

static const sb_option HISTORY_OPTIONS[OPT_COUNT] = {
    [OPT_MACHINE] = { "machine", "ID", "every machine of results/published.txt",
                      "the history of results/ID/ over the commits that changed it" },
    [OPT_LAST] = { "last", "N", "all", "only the last N commits (or result sets)" },
    [OPT_VARIANT] = { "variant", "NAME", "each stage's fastest",
                      "on the terminal, this variant's rows (each thread count and image) instead" },
    [OPT_FLOOR] = { "floor", "FILE", "results/ID/noise.csv, else the defaults",
                    "the noise floors a step must clear (a noise.csv: segbench noise)" },
    [OPT_OUT] = { "out", "DIR", "none: the table only",
                  "write the page: DIR/ID/history.md for each machine (make report: --out report), or "
                  "DIR/history.md for result sets; its plots in plots/ beside it" },
    [OPT_RESULTS_ROOT] = { "results-root", "DIR", "results", "where the machines' result sets are" },
    [OPT_QUIET] = { "quiet", NULL, NULL, "print no table, only where the page went" },
};

const sb_command sb_cmd_history = {
    "history", "[options] [SET_DIR...]",
    "When did a row get faster or slower, and was it the code or the machine?  Runs of record over commits.",
    "Reads each run of record from git (every commit that changed results/ID/), or the result\n"
    "sets SET_DIR... in the order given, and follows each stage and image's fastest variant over\n"
    "them.  A step is a move beyond the machine's noise floor; it is put down to the code when the\n"
    "fastest variant or its code identity changed, else to the machine, driver or protocol.  Runs\n"
    "of two machines are never judged against each other.  'make report' writes every machine's page\n"
    "(--out report: report/ID/history.md).\n"
    "  segbench history --machine h200 --last 5\n"
    "  segbench history --variant cuda-lastblock --machine h200\n"
    "  segbench history --out /tmp/hist runs/monday runs/tuesday runs/wednesday\n",
    HISTORY_OPTIONS, OPT_COUNT, 0, NULL, cmd_history,
};

typedef struct history_opts {
    const char *machine, *variant, *floor_file, *out, *root;
    int last, quiet;
    const char *const *dirs;
    int ndirs;
} history_opts;

/* The floors: --floor, else the set's own noise.csv, else the defaults
 * (never this machine's: the history is another's). */
static sb_status floors_for(const history_opts *o, const char *set_dir, sb_noise_floor *f, char *said, size_t size,
                            sb_error *err)
{
    char path[SB_PATH_MAX];
    struct stat sb;
    sb_status st = SB_OK;
    if (o->floor_file)
        st = sb_floor_read(o->floor_file, f, err);
    else if (set_dir && snprintf(path, sizeof path, "%s/noise.csv", set_dir) < (int)sizeof path &&
             stat(path, &sb) == 0)
        st = sb_floor_read(path, f, err);
    else
        sb_floor_defaults(f);
    if (!st)
        sb_floor_describe(f, said, size);
    return st;
}

static sb_status show(const history_opts *o, sb_history *h, const char *title, const char *source,
                      const char *set_dir, const char *out, sb_error *err)
{
    sb_noise_floor floors;
    memset(&floors, 0, sizeof floors);
    char said[600];
    sb_status st = floors_for(o, set_dir, &floors, said, sizeof said, err);
    sb_code_ids *ids = st ? NULL : sb_code_ids_new();
    /* the page follows each stage's fastest variant; the terminal, --variant's rows where named */
    if (!st && out && !(st = sb_history_find_steps(h, NULL, &floors, ids, err)) &&
        !(st = sb_report_history(h, title, source, said, out, err)))
        printf("written: %s/history.md\n", out);
    if (!st && !o->quiet && (!out || o->variant))
        st = sb_history_find_steps(h, o->variant, &floors, ids, err);
    if (!st && !o->quiet) {
        printf("history of %s (%s)\nnoise floor: %s\n", title, source, said);
        sb_history_print(h, o->variant, stdout);
    }
    sb_code_ids_free(ids);
    sb_floor_free(&floors);
    return st;
}

static sb_status one_machine(const history_opts *o, const char *machine, sb_error *err)
{
    char title[300], dir[SB_PATH_MAX], out[SB_PATH_MAX];
    snprintf(title, sizeof title, "%s/%s/", o->root, machine);
    sb_status st = sb_path(dir, err, "%s/%s", o->root, machine);
    if (!st && o->out)
        st = sb_path(out, err, "%s/%s", o->out, machine);
    if (!o->quiet && !st && isatty(STDERR_FILENO))
        fprintf(stderr, "history: reading %s from git ...\n", title);
    sb_history h;
    if (!st)
        st = sb_history_from_git(&h, o->root, machine, o->last, err);
    if (!st)
        st = show(o, &h, title, "git", dir, o->out ? out : NULL, err);
    sb_history_free(&h);
    return st;
}

static sb_status from_sets(const history_opts *o, sb_error *err)
{
    int first = o->last > 0 && o->last < o->ndirs ? o->ndirs - o->last : 0;
    char title[64];
    snprintf(title, sizeof title, "%d result sets", o->ndirs - first);
    sb_history h;
    sb_status st = sb_history_from_sets(&h, o->dirs + first, o->ndirs - first, err);
    if (!st)
        st = show(o, &h, title, "folders", o->dirs[o->ndirs - 1], o->out, err);
    sb_history_free(&h);
    return st;
}

sb_status cmd_history(int argc, char **argv, sb_error *err)
{
    history_opts o = { .root = "results" };
    const char *dirs[64];
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_history, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (opt) {
        case OPT_MACHINE: o.machine = p.value; break;
        case OPT_LAST: st = sb_parse_int(p.value, 1, 100000, "--last", &o.last, err); break;
        case OPT_VARIANT: o.variant = p.value; break;
        case OPT_FLOOR: o.floor_file = p.value; break;
        case OPT_OUT: o.out = p.value; break;
        case OPT_RESULTS_ROOT: st = sb_dir_arg(p.value, "--results-root", err), o.root = p.value; break;
        case OPT_QUIET: o.quiet = 1; break;
        case SB_OPT_ARG:
            if (o.ndirs == 64)
                return sb_fail(err, SB_ERR_USAGE, "at most 64 result sets (got more at '%s')", p.value);
            st = sb_dir_arg(p.value, "a result set", err);
            dirs[o.ndirs++] = p.value;
            break;
        default: return sb_optparse_unexpected(&p);
        }
    if (p.status || st)
        return p.status ? p.status : st;
    o.dirs = dirs;
    if (o.ndirs && o.machine)
        return sb_fail(err, SB_ERR_USAGE, "--machine reads git's history; result sets (%s ...) are a history of "
                                          "their own: give one or the other", dirs[0]);
    if (o.ndirs)
        return from_sets(&o, err);
    if (o.machine) {
        if (strchr(o.machine, '/') || !strcmp(o.machine, "..") || !o.machine[0])
            return sb_fail(err, SB_ERR_USAGE, "--machine: '%s' is not a machine id (a folder name under %s/)",
                           o.machine, o.root);
        return one_machine(&o, o.machine, err);
    }
    char machine[128];
    int n = 0;
    for (; !st && sb_published_at(o.root, n, machine, sizeof machine); n++)
        st = one_machine(&o, machine, err);
    if (!st && !n)
        st = sb_fail(err, SB_ERR_USAGE, "%s/published.txt lists no machine: name one with --machine", o.root);
    return st;
}
