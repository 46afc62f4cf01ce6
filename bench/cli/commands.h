/* commands.h - the segbench subcommands and what they share. */
#ifndef SEGBENCH_COMMANDS_H
#define SEGBENCH_COMMANDS_H

#include "base/options.h"

/* The commands, each with its option table (defined beside its code). */
extern const sb_command sb_cmd_list, sb_cmd_run, sb_cmd_bench, sb_cmd_check, sb_cmd_compare, sb_cmd_env,
    sb_cmd_report, sb_cmd_profile, sb_cmd_stream, sb_cmd_lesson, sb_cmd_exercise, sb_cmd_grade, sb_cmd_ab,
    sb_cmd_noise, sb_cmd_history, sb_cmd_docs;

/* Every command, in the order `segbench help` lists them (cmd_common.c):
 * main dispatches from it and the tests check every entry's help. */
extern const sb_command *const SB_COMMANDS[];
extern const int SB_COMMAND_COUNT;

sb_status cmd_list(int argc, char **argv, sb_error *err);
sb_status cmd_run(int argc, char **argv, sb_error *err);
sb_status cmd_stream(int argc, char **argv, sb_error *err);
sb_status cmd_bench(int argc, char **argv, sb_error *err);
sb_status cmd_check(int argc, char **argv, sb_error *err);
sb_status cmd_compare(int argc, char **argv, sb_error *err);
sb_status cmd_ab(int argc, char **argv, sb_error *err);
sb_status cmd_noise(int argc, char **argv, sb_error *err);
sb_status cmd_history(int argc, char **argv, sb_error *err);
sb_status cmd_docs(int argc, char **argv, sb_error *err);
sb_status cmd_env(int argc, char **argv, sb_error *err);
sb_status cmd_report(int argc, char **argv, sb_error *err);
sb_status cmd_profile(int argc, char **argv, sb_error *err);
sb_status cmd_lesson(int argc, char **argv, sb_error *err);
sb_status cmd_exercise(int argc, char **argv, sb_error *err);
sb_status cmd_grade(int argc, char **argv, sb_error *err);

#endif
