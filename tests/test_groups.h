/* test_groups.h - the helpers the test files share (the groups
 * themselves are listed by scripts/test_groups.sh). */
#ifndef SEGBENCH_TEST_GROUPS_H
#define SEGBENCH_TEST_GROUPS_H

#include "test.h"

#include "segbench/image.h"

#include "cases/cases.h"
#include "io/rows.h"


/* GPU tests kept beside the CPU tests of their subject, listed by test_gpu.c. */
void test_gpu_bench_frames_ahead(void);

/* Shared helpers (test_util.c). */
/* A new row of rows with its key (algorithm, stage, variant, backend,
 * threads, image) and size, the rest zero; NULL when out of memory. */
sb_row *test_row_add(sb_rows *rows, const char *algo, const char *stage, const char *variant, const char *backend,
                     int threads, const char *image, int width, int height);
void test_random_grey(sb_image *img, int width, int height, unsigned long long seed);
/* A 16x8 random grey image opened as an integral case (stage sum). */
void test_integral_case(sb_case_data *cd, sb_image *img);
/* A host variant's fetch and release that have nothing to do (its output
 * is computed in place), for the tests' own variants. */
sb_status test_fetch_nothing(void *state, sb_error *err);
void test_release_nothing(void *state);
/* RGB test images (tests/algos/kmeans.c): uniform noise, and patches of colour. */
void test_random_rgb(sb_image *img, int width, int height, unsigned long long seed);
void test_patchy_rgb(sb_image *img, int width, int height, unsigned long long seed);
/* A panning clip of n colour frames, <test dir>/pan/fNN.png (a patchy
 * picture moved a pixel a frame, 64x40), as a sequence; 0, a failed
 * check, when it cannot be made (tests/measure/stream.c). */
struct sb_sequence;
int test_panning_clip(int n, struct sb_sequence *seq);
/* That clip and k-means' parameters for its warm stage (*params malloc'd);
 * 0, a failed check, when either cannot be made. */
int test_kmeans_warm_clip(int n, struct sb_sequence *seq, void **params);
/* The panning clip with `algo`'s warm stage's parameters, in its warm mode. */
int test_warm_clip(const char *algo, int n, struct sb_sequence *seq, void **params);
void test_fill(sb_image *img, int width, int height, int channels, unsigned char value);
/* Every CPU variant of c's algorithm, at 1, 2, 3 and 7 threads where
 * threaded, through the harness's check against c's reference. */
struct sb_case;
void test_check_cpu_variants(const struct sb_case *c, const char *what);
/* Random 8-connected grid graphs for max-flow (tests/algos/grabcut.c): kind 0
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
/* build/sbgen (or build-asan/'s), whole path; NULL when neither is built. */
const char *test_sbgen_path(void);
/* The set <test dir>/<name>.set holding lines, built by sbgen into
 * root/datasets/build/<name> (so `cd root && segbench bench --set name`
 * finds it); 0, a failed check, when it cannot be. */
int test_build_set(const char *root, const char *name, const char *lines);
/* Run a shell line; a failure (non-zero exit) is a failed check. */
void test_sh(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Crafted files (tests/common/image_io.c). */
void test_write_png_header(const char *path, unsigned width, unsigned height);
void test_write_truncated_png(const char *path);
/* Files in dir whose names hold ".tmp." (left-overs of an atomic write). */
int test_count_temp_files(const char *dir);

#endif
