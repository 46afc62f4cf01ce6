/* cmd_common.c - the list of commands, in the order `segbench help` shows
 * them (commands.h). */
#include "cli/commands.h"

const sb_command *const SB_COMMANDS[] = {
    &sb_cmd_list, &sb_cmd_run, &sb_cmd_stream, &sb_cmd_bench, &sb_cmd_check, &sb_cmd_compare, &sb_cmd_ab, &sb_cmd_noise, &sb_cmd_history, &sb_cmd_profile, &sb_cmd_lesson,
    &sb_cmd_exercise, &sb_cmd_grade, &sb_cmd_report, &sb_cmd_docs,
    &sb_cmd_env,
};
const int SB_COMMAND_COUNT = sizeof SB_COMMANDS / sizeof SB_COMMANDS[0];
