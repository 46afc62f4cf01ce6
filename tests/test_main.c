/* test_main.c - the CPU test suite (`make test`).  Optional argument: a
 * substring of the test names to run. */
#include "test.h"

#include "test_groups.h"

int main(int argc, char **argv)
{
    const sb_test *const groups[] = { tests_image_io, tests_integral, tests_kmeans, tests_slic, tests_meanshift, tests_grabcut, tests_stats, tests_harness, tests_cli, tests_cli_options, tests_hardening,
                                      tests_report_truth, tests_profile, tests_lessons, tests_course };
    const int counts[] = { tests_image_io_count, tests_integral_count, tests_kmeans_count, tests_slic_count, tests_meanshift_count, tests_grabcut_count, tests_stats_count, tests_harness_count,
                           tests_cli_count, tests_cli_options_count, tests_hardening_count,
                           tests_report_truth_count, tests_profile_count, tests_lessons_count, tests_course_count };
    int failed = sb_test_run(groups, counts, (int)(sizeof counts / sizeof counts[0]), argc > 1 ? argv[1] : NULL);
    return failed ? 1 : 0;
}
