/* main.c - the segbench command line: dispatch to a subcommand, and the one
 * place where an error becomes a message and an exit code. */
#include "commands.h"

#include "segbench/atomic_file.h"
#include "segbench/device.h"

#include <stdio.h>
#include <string.h>

static const char *USAGE =
    "usage: segbench <command> [options]\n"
    "\n"
    "commands:\n"
    "  list                      algorithms, variants and whether each can run here\n"
    "  run ALGO IN OUT           run one variant on one image and write its output picture\n"
    "        --variant NAME (default: the serial reference)  --threads N  --stage NAME\n"
    "        --labels FILE (the label image, where the algorithm has one)\n"
    "        algorithm options, e.g. kmeans --k 16 --init kmeans++ (see 'segbench list')\n"
    "  bench                     check then time every variant; write results/<machine>/\n"
    "        --set NAME (default: default) | --image FILE ...   --algo A,B  --variant V,W  --stage S,T\n"
    "        --threads 1,2,4 (default 1, 2, 4, ... up to the cores)  --sweep marked|all (where threads are\n"
    "        swept: the set's sweep image, first stage; or everywhere)  --budget MS (per row, default 100)\n"
    "        --min-reps N  --max-reps N  --no-flush (keep L2 warm between device runs)  --results DIR\n"
    "        --resume (finish the run in DIR: same commit and options; measured rows are kept)  --quiet\n"
    "  check                     agreement only, every variant on every image (same selection options)\n"
    "  compare A B               two variants, runs interleaved, verdict faster/slower/same\n"
    "        A and B as algo/variant[@threads], e.g. integral/cuda-shared integral/pthread@8\n"
    "        --set NAME | --image FILE ...  --stage NAME  --samples N (default 21, at least 9)\n"
    "        --min-diff F (smallest ratio change that matters, default 0.03)  --alpha P (default 0.01)\n"
    "  compare --baseline DIR --current DIR   a result set against a saved one, row by row\n"
    "  env [--no-measure]        this machine's fingerprint as JSON\n"
    "  report [--results DIR] [--out DIR]   REPORT.md, tables and plots for every results/<machine>/\n"
    "  help                      this text\n"
    "\n"
    "Run from the repository root (datasets/, results/ and report/ are found from there).\n";

int main(int argc, char **argv)
{
    sb_error err = { SB_OK, "" };
    sb_temp_remove_on_signal();     /* Ctrl-C leaves no half-written file behind */
    if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    static const struct {
        const char *name;
        sb_status (*fn)(int, char **, sb_error *);
    } commands[] = {
        { "list", cmd_list },       { "run", cmd_run },         { "bench", cmd_bench },
        { "check", cmd_check },     { "compare", cmd_compare }, { "env", cmd_env },
        { "report", cmd_report },
    };
    sb_status st = SB_ERR_USAGE;
    int found = 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) == 0) {
            found = 1;
            st = commands[i].fn(argc - 1, argv + 1, &err);
            break;
        }
    }
    if (!found)
        sb_fail(&err, SB_ERR_USAGE, "unknown command '%s' (try 'segbench help')", argv[1]);
    sb_device_release_scratch();
    if (st && err.msg[0])
        fprintf(stderr, "segbench %s: %s\n", argv[1], err.msg);
    return sb_exit_code(st);
}
