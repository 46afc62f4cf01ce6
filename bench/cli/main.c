/* main.c - the segbench command line: dispatch to a command, and the one
 * place where an error becomes a message and an exit code.  Each command's
 * options live in its own table (options.h), which also makes its --help. */
#include "cli/commands.h"

#include "base/options.h"

#include "segbench/atomic_file.h"
#include "segbench/device.h"

#include "buildinfo.h"

#include <stdio.h>
#include <string.h>

#define SEGBENCH_VERSION "0.9.0"

#define COMMANDS SB_COMMANDS
#define NCOMMANDS SB_COMMAND_COUNT

static void usage(FILE *fp)
{
    fprintf(fp, "usage: segbench <command> [options]     (segbench <command> --help for its options)\n\n"
                "commands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(fp, "  %-9s %s\n", COMMANDS[i]->name, COMMANDS[i]->summary);
    fprintf(fp, "  %-9s %s\n", "help", "this text, or 'help COMMAND' for one command");
    fprintf(fp, "  %-9s %s\n", "version", "version, commit, compilers, flags and CUDA architectures (also --version)");
    fprintf(fp, "\nexit status: 0 success; 1 a variant broke its agreement contract; 2 usage or input error;\n"
                "             3 compare --fail-on-slower found a slowdown; 130 interrupted\n"
                "Run from the repository root (datasets/, results/ and report/ are found from there).\n");
}

static void version(void)
{
    printf("segbench %s\n", SEGBENCH_VERSION);
    printf("commit:     %s\n", SB_BUILD_COMMIT);
    printf("cc:         %s\n", SB_BUILD_CC_VERSION);
    printf("cflags:     %s\n", SB_BUILD_CFLAGS);
    printf("nvcc:       %s\n", SB_BUILD_NVCC_VERSION);
    printf("nvccflags:  %s\n", SB_BUILD_NVCCFLAGS);
    printf("cuda archs: %s\n", SB_BUILD_CUDA_ARCHS);
}

static const sb_command *find_command(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(COMMANDS[i]->name, name) == 0)
            return COMMANDS[i];
    return NULL;
}

static const char *nearest_command(const char *name)
{
    const char *names[32] = { "help", "version" };
    int n = 2;
    for (int i = 0; i < NCOMMANDS && n < 32; i++)
        names[n++] = COMMANDS[i]->name;
    return sb_nearest_name(name, names, n);
}

int main(int argc, char **argv)
{
    sb_error err = { SB_OK, "" };
    sb_temp_remove_on_signal();     /* Ctrl-C leaves no half-written file behind */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "version") || !strcmp(name, "-V")) {
        version();
        return 0;
    }
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        const sb_command *cmd = argc > 2 ? find_command(argv[2]) : NULL;
        if (argc > 2 && !cmd) {
            fprintf(stderr, "segbench help: unknown command '%s' (try 'segbench help')\n", argv[2]);
            return 2;
        }
        if (cmd)
            sb_command_help(cmd, stdout);
        else
            usage(stdout);
        return 0;
    }
    const sb_command *cmd = find_command(name);
    if (!cmd) {
        const char *near = nearest_command(name);
        fprintf(stderr, "segbench: unknown command '%s'%s%s%s (try 'segbench help')\n", name,
                near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        return 2;
    }
    if (sb_command_wants_help(cmd, argc - 1, argv + 1)) {
        sb_command_help(cmd, stdout);
        return 0;
    }
    sb_status st = cmd->run(argc - 1, argv + 1, &err);
    sb_device_release_scratch();
    if (st && err.msg[0])
        fprintf(stderr, "segbench %s: %s\n", name, err.msg);
    return sb_exit_code(st);
}
