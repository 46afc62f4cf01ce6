/* cmd_env.c - `segbench env`: this machine's fingerprint as JSON. */
#include "cli/commands.h"
#include "cases/select.h"

#include "machine/env.h"

#include <stdio.h>

enum { OPT_NO_MEASURE, OPT_COUNT };

static const sb_option ENV_OPTIONS[OPT_COUNT] = {
    [OPT_NO_MEASURE] = { "no-measure", NULL, NULL, "skip the bandwidth measurements (device copy, host memcpy)" },
};

const sb_command sb_cmd_env = {
    "env", "[options]", "Print this machine's fingerprint as JSON (what bench writes to env.json).", NULL,
    ENV_OPTIONS, OPT_COUNT, 0, NULL, cmd_env,
};

sb_status cmd_env(int argc, char **argv, sb_error *err)
{
    int measure = 1;
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_env, argc, argv, err);
    for (int opt; (opt = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (opt) {
        case OPT_NO_MEASURE: measure = 0; break;
        default: return sb_optparse_unexpected(&p);
        }
    if (p.status)
        return p.status;
    int threads[16];
    int n = sb_default_threads(threads, 16);
    sb_env env;
    sb_env_collect(&env, measure, threads, n);
    sb_env_print_json(&env, stdout);
    return SB_OK;
}
