/* cmd_docs.c - `segbench docs`: the figures of README.md and docs/ made
 * again from the results (pages/docs_figures.h). */
#include "cli/commands.h"

#include "base/files.h"

#include "pages/docs_figures.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_CHECK, OPT_RESULTS_ROOT, OPT_COUNT, FILES_MAX = 64 };

static const sb_option DOCS_OPTIONS[OPT_COUNT] = {
    [OPT_CHECK] = { "check", NULL, NULL, "write nothing: say each figure that differs from the results, exit 1 if any" },
    [OPT_RESULTS_ROOT] = { "results-root", "DIR", "results", "where the machines' result sets are" },
};

const sb_command sb_cmd_docs = {
    "docs", "[options] [FILE...]",
    "Write the figures of README.md and docs/*.md from the results (each with its run and date).",
    "A figure stands between <!-- sb:KIND ARGS --> and <!-- /sb --> (a table may span lines); its kinds:\n"
    "  aa MACHINE                     the A/A of record: its rows, how many it called (aa-ab.csv, noise.csv)\n"
    "  steal MACHINE                  the set's rows that saw steal, and the most\n"
    "  best MACHINE ALGO STAGE IMAGE  the fastest variant's kernel median, its run and date\n"
    "  aa-table MACHINE               the A/A of record's table: floors, calls (docs/measuring.md)\n"
    "  power MACHINE FILE             a trials file of ab (results/MACHINE/FILE): trials that called slower\n"
    "  warm-table MACHINE FILE        stream --warm's output (results/MACHINE/FILE): cold against warm\n"
    "  history MACHINE                segbench history's count: its commits and steps by cause\n"
    "  run MACHINE RUN_ID             a run's time in bench and its rows (env.json as git holds it)\n"
    "  bounds MACHINE                 the GPU stream rows against their bound: within it, or beating it\n"
    "  bound-share MACHINE ALGO       ALGO's GPU stream rows' shares of their bound, and what bounds them\n"
    "'make docs' rewrites them; 'make test' fails where a committed page differs (docs --check).\n",
    DOCS_OPTIONS, OPT_COUNT, 0,
    "0 success; 1 --check found a figure the results no longer say; 2 usage or input error", cmd_docs,
};

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* README.md and the .md files of docs/, in order; their names into names[] (owned). */
static int default_files(char **names, int max)
{
    int n = 0;
    names[n++] = strdup("README.md");
    DIR *d = opendir("docs");
    for (struct dirent *e; d && (e = readdir(d)) && n < max;) {
        size_t len = strlen(e->d_name);
        if (len > 3 && !strcmp(e->d_name + len - 3, ".md") && e->d_name[0] != '.') {
            char path[SB_PATH_MAX];
            snprintf(path, sizeof path, "docs/%s", e->d_name);
            names[n++] = strdup(path);
        }
    }
    if (d)
        closedir(d);
    qsort(names + 1, (size_t)(n - 1), sizeof *names, by_name);
    return n;
}

sb_status cmd_docs(int argc, char **argv, sb_error *err)
{
    const char *root = "results";
    int check = 0, nfiles = 0;
    char *files[FILES_MAX];
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_docs, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (opt) {
        case OPT_CHECK: check = 1; break;
        case OPT_RESULTS_ROOT: st = sb_dir_arg(p.value, "--results-root", err), root = p.value; break;
        case SB_OPT_ARG:
            if (nfiles == FILES_MAX)
                st = sb_fail(err, SB_ERR_USAGE, "at most %d files", FILES_MAX);
            else
                files[nfiles++] = strdup(p.value);
            break;
        default: st = sb_optparse_unexpected(&p);
        }
    if (!st && p.status)
        st = p.status;
    if (!st && !nfiles)
        nfiles = default_files(files, FILES_MAX);
    sb_docs_tally t;
    if (!st)
        st = sb_docs_figures((const char *const *)files, nfiles, root, check, stdout, &t, err);
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    if (st)
        return st;
    if (check && t.differ)
        return sb_fail(err, SB_ERR_AGREEMENT, "%d of %d figures in %d files differ from the results: make docs "
                                              "writes them", t.differ, t.figures, t.files);
    printf("docs: %d figures in %d files %s\n", t.figures, t.files,
           check ? "checked, each as the results say" : t.rewritten ? "made again" : "made again, none changed");
    if (!check && t.rewritten)
        printf("docs: %d files rewritten\n", t.rewritten);
    return SB_OK;
}
