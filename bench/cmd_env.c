/* cmd_env.c - `segbench env`: this machine's fingerprint as JSON. */
#include "commands.h"

#include "args.h"
#include "env.h"

#include <stdio.h>

sb_status cmd_env(int argc, char **argv, sb_error *err)
{
    int measure = 1;
    sb_args a = sb_args_begin(argc, argv, err);
    while (sb_args_next(&a)) {
        if (sb_args_flag(&a, "--no-measure"))
            measure = 0;
        else
            return sb_args_unknown(&a);
    }
    int threads[16];
    int n = sb_default_threads(threads, 16);
    sb_env env;
    sb_env_collect(&env, measure, threads, n);
    sb_env_print_json(&env, stdout);
    return SB_OK;
}
