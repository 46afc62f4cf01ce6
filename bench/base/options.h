/* options.h - each command's options, declared once, in a table that drives
 * both the parsing and the --help text, so the two cannot drift apart.
 *
 *     enum { OPT_SET, OPT_QUIET, OPT_COUNT };
 *     static const sb_option OPTIONS[OPT_COUNT] = {
 *         [OPT_SET]   = { "set", "NAME", "default", "the image set (datasets/sets/NAME.set)" },
 *         [OPT_QUIET] = { "quiet", NULL, NULL, "no progress line" },
 *     };
 *     sb_optparse p;
 *     sb_optparse_begin(&p, &sb_cmd_bench, argc, argv, err);
 *     for (int o; (o = sb_optparse_next(&p)) != SB_OPT_END;)
 *         switch (o) {
 *         case OPT_SET: set = p.value; break;
 *         case OPT_QUIET: quiet = 1; break;
 *         case SB_OPT_ARG: ... p.value is a positional argument ...
 *         default: return sb_optparse_unexpected(&p);
 *         }
 *     if (p.status) return p.status;
 *
 * Conventions (those of getopt_long, which segbench does not use because
 * `run` must pass the algorithm's own options through, and because
 * getopt_long's prefix abbreviations would make a future option change the
 * meaning of an old command line): "--name value" or "--name=value";
 * options and arguments in any order; "--" ends the options; "-h" and
 * "--help" print the help.  An unknown option is refused with the nearest
 * known name as a suggestion.
 */
#ifndef SEGBENCH_OPTIONS_H
#define SEGBENCH_OPTIONS_H

#include <stdio.h>

#include "segbench/error.h"

/* A number as the string the help shows: SB_STR(BENCH_BUDGET_MS) -> "100". */
#define SB_STR_(x) #x
#define SB_STR(x) SB_STR_(x)

/* One option.  An entry whose name is NULL is a hole (a command that shares
 * another's option enum but not every option). */
typedef struct sb_option {
    const char *name;     /* without the dashes: "set" */
    const char *value;    /* what it takes ("NAME", "MS"), or NULL for a flag */
    const char *def;      /* its default as the help shows it, or NULL */
    const char *help;     /* one line */
} sb_option;

typedef struct sb_command {
    const char *name;          /* "bench" */
    const char *synopsis;      /* its arguments after the name: "[options]", "ALGO IN OUT [options]" */
    const char *summary;       /* one line, for `segbench help` */
    const char *details;       /* lines printed under the usage line, or NULL */
    const sb_option *options;
    int noptions;
    int passthrough;           /* unknown "--key value" pairs go to the command (run: algorithm options) */
    const char *exit_codes;    /* every exit status it uses, or NULL for "0 success; 2 usage or input error; 130 interrupted" */
    sb_status (*run)(int argc, char **argv, sb_error *err);
} sb_command;

#define SB_EXIT_AGREEMENT "0 success; 1 a variant broke its agreement contract; 2 usage or input error; 130 interrupted"

enum {
    SB_OPT_END = -1,      /* no more arguments, or an error (status says which) */
    SB_OPT_ARG = -2,      /* a positional argument, in value */
    SB_OPT_OTHER = -3,    /* passthrough: an unknown option, name in key, its value in value */
    SB_OPT_HELP = -4      /* -h or --help */
};

typedef struct sb_optparse {
    const sb_command *cmd;
    int argc;
    char **argv;
    int i;
    int options_done;      /* after "--" */
    const char *value;
    char key[64];
    sb_status status;
    sb_error *err;
} sb_optparse;

/* argv[0] is the command's name; parsing starts at argv[1]. */
void sb_optparse_begin(sb_optparse *p, const sb_command *cmd, int argc, char **argv, sb_error *err);
/* The index of the next option in cmd->options, or one of SB_OPT_*. */
int sb_optparse_next(sb_optparse *p);
/* A return the command's switch did not expect (help, a passthrough option
 * where none is taken): an internal error, worded for the user. */
sb_status sb_optparse_unexpected(sb_optparse *p);

/* Does argv ask for help (-h or --help where an option may stand)? */
int sb_command_wants_help(const sb_command *cmd, int argc, char **argv);
/* The command's help: usage, details, every option with its default, exit codes. */
void sb_command_help(const sb_command *cmd, FILE *fp);

/* The known name nearest to `word` (edit distance), or NULL when none is close. */
const char *sb_nearest_name(const char *word, const char *const *names, int count);

#endif
