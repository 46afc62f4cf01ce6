/* cmd_report.c - `segbench report`: its options; the report itself is
 * report/ (report.h). */
#include "cli/commands.h"

#include "base/files.h"

#include "pages/report.h"

enum { OPT_RESULTS, OPT_RESULTS_ROOT, OPT_OUT, OPT_BASELINE, OPT_COUNT };

static const sb_option REPORT_OPTIONS[OPT_COUNT] = {
    [OPT_RESULTS] = { "results", "DIR", NULL,
                      "report on this one result set (and MACHINES.md beside it), leave the others' reports alone" },
    [OPT_RESULTS_ROOT] = { "results-root", "DIR", "results", "report on every result set DIR/<machine>/" },
    [OPT_OUT] = { "out", "DIR", "report/<machine> with --results, else report",
                  "where the report goes (with --results-root: the folder of the machines' reports)" },
    [OPT_BASELINE] = { "baseline", "MACHINE", "the reference machine (results/published.txt)",
                       "the machine MACHINES.md compares the others with" },
};

const sb_command sb_cmd_report = {
    "report", "[options]", "Write REPORT.md, tables and plots for every result set (report/<machine>/), "
                           "and report/MACHINES.md.",
    "MACHINES.md puts the machines side by side; when the results folder holds a\n"
    "slurm-tasks.tsv (written by 'make bench-slurm'), it also names every cluster task\n"
    "and whether it failed.  'make bench' reports on the run it made (--results).\n",
    REPORT_OPTIONS, OPT_COUNT, 0, NULL, cmd_report,
};

sb_status cmd_report(int argc, char **argv, sb_error *err)
{
    const char *results = NULL, *root = "results", *out = NULL, *baseline = NULL;
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_report, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (opt) {
        case OPT_RESULTS: st = sb_dir_arg(p.value, "--results", err), results = p.value; break;
        case OPT_RESULTS_ROOT: st = sb_dir_arg(p.value, "--results-root", err), root = p.value; break;
        case OPT_OUT: st = sb_dir_arg(p.value, "--out", err), out = p.value; break;
        case OPT_BASELINE: baseline = p.value; break;
        default: return sb_optparse_unexpected(&p);
        }
    if (p.status || st)
        return p.status ? p.status : st;
    return results ? sb_report_result_set(results, out, baseline, err) : sb_report_all(root, out, baseline, err);
}
