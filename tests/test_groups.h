/* test_groups.h - the test lists each tests/test_*.c file exports. */
#ifndef SEGBENCH_TEST_GROUPS_H
#define SEGBENCH_TEST_GROUPS_H

#include "test.h"

#include "segbench/image.h"

extern const sb_test tests_image_io[];
extern const int tests_image_io_count;
extern const sb_test tests_integral[];
extern const int tests_integral_count;
extern const sb_test tests_kmeans[];
extern const int tests_kmeans_count;
extern const sb_test tests_slic[];
extern const int tests_slic_count;
extern const sb_test tests_meanshift[];
extern const int tests_meanshift_count;
extern const sb_test tests_grabcut[];
extern const int tests_grabcut_count;
extern const sb_test tests_stats[];
extern const int tests_stats_count;
extern const sb_test tests_harness[];
extern const int tests_harness_count;
extern const sb_test tests_cli[];
extern const int tests_cli_count;
extern const sb_test tests_cli_options[];
extern const int tests_cli_options_count;
extern const sb_test tests_hardening[];
extern const int tests_hardening_count;
extern const sb_test tests_report_truth[];
extern const int tests_report_truth_count;
extern const sb_test tests_profile[];
extern const int tests_profile_count;
extern const sb_test tests_lessons[];
extern const int tests_lessons_count;
extern const sb_test tests_course[];
extern const int tests_course_count;

/* Shared helpers (test_util.c). */
void test_random_grey(sb_image *img, int width, int height, unsigned long long seed);
/* RGB test images (test_kmeans.c): uniform noise, and patches of colour. */
void test_random_rgb(sb_image *img, int width, int height, unsigned long long seed);
void test_patchy_rgb(sb_image *img, int width, int height, unsigned long long seed);
void test_fill(sb_image *img, int width, int height, int channels, unsigned char value);
/* Every CPU variant of c's algorithm, at 1, 2, 3 and 7 threads where
 * threaded, through the harness's check against c's reference. */
struct sb_case;
void test_check_cpu_variants(const struct sb_case *c, const char *what);
/* Random 8-connected grid graphs for max-flow (test_grabcut.c): kind 0
 * small capacities with many zeros, 1 GrabCut-like, 2 one source and one
 * sink corner. */
struct sb_gc_graph;
void test_random_graph(struct sb_gc_graph *g, int w, int h, unsigned long long seed, int kind);
void test_graph_free(struct sb_gc_graph *g);
/* "<test dir>/<name>", and the same with a formatted name (a ring of 32
 * buffers: a few live at once). */
const char *test_path(const char *name);
const char *test_pathf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* A random grey PNG "<test dir>/<name>", written once (the same seed, the
 * same pixels); its path. */
const char *test_grey_png(const char *name, int width, int height, unsigned long long seed);
/* Run a shell line; a failure (non-zero exit) is a failed check. */
void test_sh(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Crafted files (test_image_io.c). */
void test_write_png_header(const char *path, unsigned width, unsigned height);
void test_write_truncated_png(const char *path);
/* Files in dir whose names hold ".tmp." (left-overs of an atomic write). */
int test_count_temp_files(const char *dir);

#endif
