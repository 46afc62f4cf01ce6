/* lessons.h - the ladders as trees of lessons: each CUDA rung, the rung
 * it grows from (its SB_RUNG line, variant.h), the idea of that edge, and
 * what the edge bought in a result set: kernel and per-frame time at the
 * stage's summary image, and what changed in the kernel census.
 * `segbench lesson` prints one edge; the report's lessons pages draw every
 * tree (report_lessons.c). */
#ifndef SEGBENCH_LESSONS_H
#define SEGBENCH_LESSONS_H

#include <limits.h>

#include "variants/registry.h"
#include "io/rows.h"
#include "measure/evidence.h"

#include "segbench/stats.h"

#include <stdio.h>

/* A variant's kernels at one stage, from <algo>.kernels.csv (at the
 * stage's image, else the first image the file has for it): each
 * kernel's registers a thread, shared memory a block and theoretical
 * occupancy. */
enum { LESSON_KERNELS = 24 };
typedef struct lesson_kernel {
    char name[96];             /* without "void " and template arguments */
    int regs, smem;
    double occupancy;
} lesson_kernel;
typedef struct lesson_census {
    int kernels;               /* 0: no census for it */
    lesson_kernel k[LESSON_KERNELS];
} lesson_census;

/* One edge, parent -> rung, measured at one stage. */
typedef struct lesson_edge {
    const sb_variant *rung, *parent;   /* parent NULL: a root */
    char image[128];                   /* the stage's summary image ("" when neither ran) */
    double kernel_ms, parent_kernel_ms;  /* 0: no agreeing row */
    double frame_ms, parent_frame_ms;
    int frame_outlier, parent_frame_outlier;   /* its upload + download (per frame - kernel) far above
                                                  the stage's other rungs' at the image: disturbed */
    int judged;                        /* both rows had a time: eff is the rung against its parent */
    sb_effect eff;                     /* as compare judges two rows (measure/evidence.h): their rounds'
                                          medians, the machine's noise floor (its noise.csv, else the
                                          defaults); undetermined where a side has one round */
    lesson_census census, parent_census;
} lesson_edge;

/* The CUDA variants of an algorithm that take part in its tree (every
 * variant with an SB_RUNG line), in registry order; returns the count. */
int lesson_rungs(const char *algo, const sb_variant **out, int max);

/* The edge into `rung` at `stage`, from rows (the algorithm's result rows;
 * NULL: none) and results_dir's <algo>.kernels.csv (NULL: none). */
void lesson_edge_measure(lesson_edge *e, const sb_variant *rung, const sb_rows *rows, const char *results_dir,
                         const char *stage);

/* "1.18x" faster, "0.85x" (a loss), or "-" when either side has no time. */
void lesson_gain_text(double parent_ms, double ms, char *out, size_t size);
/* A row's per-frame time is an outlier when its upload and download (per
 * frame less kernel) take more than LESSON_FRAME_OUTLIER times the median
 * of the stage's CUDA rows at that image, by more than LESSON_FRAME_SLACK_MS
 * and more than LESSON_FRAME_SHARE of its per-frame time: the same bytes
 * cross the bus for every rung, so such a time was disturbed (or the rung
 * moves more), and a per-frame gain against it says nothing.  (A long
 * kernel's per frame less kernel is the difference of two noisy medians:
 * the share keeps its noise out.) */
#define LESSON_FRAME_OUTLIER 1.5
#define LESSON_FRAME_SLACK_MS 0.05
#define LESSON_FRAME_SHARE 0.05
/* The edge's per-frame gain: lesson_gain_text's, or "- (outlier)" when
 * either side's per-frame time is an outlier. */
void lesson_frame_gain(const lesson_edge *e, char *out, size_t size);
/* The edge's kernel gain as compare would call it: "1.18x +-2 %" where
 * the rounds say faster or slower (the half-width of its 95 % interval),
 * "same (1.01x)" where they lie inside the floor, "1.05x (undetermined)"
 * where the interval crosses the floor, "48.5x (one round)" where a side
 * has one round (no interval: undetermined, whatever the ratio); "-"
 * where a side has no time. */
void lesson_gain_judged(const lesson_edge *e, char *out, size_t size);
/* Did the edge lose: called slower by compare's rule?  (Undetermined is
 * not lost.) */
int lesson_edge_lost(const lesson_edge *e);
/* Attach <results_dir>/<algo>.samples.csv's samples and rounds to rows, so
 * that edges are judged as compare judges; nothing when there is no such
 * file. */
void lesson_rows_samples(const char *results_dir, const char *algo, sb_rows *rows);
/* What changed from the parent's kernels to the rung's, kernel by kernel
 * (by name): "+tile_pass (64 regs, 8.0 KB, 50 %); tile_sat: regs 40 -> 56",
 * "same", or "" (no census).  A root: its kernels. */
void lesson_census_text(const lesson_edge *e, char *out, size_t size);

/* The rung's main line: is it on the path from its root to the rung its
 * tree declares its top (SB_LADDER_TOP)?  Else a branch.  A tree that
 * declares none: the path to its fastest rung at `stage` (kernel time,
 * summary image). */
int lesson_on_main_line(const sb_variant *rung, const sb_rows *rows, const char *stage);

/* The tree as indented text lines ("└─ cuda-pdl  0.0244 ms  1.18x  idea"),
 * markdown-safe when md is set (as a code block's content). */
void lesson_tree_print(FILE *fp, const char *algo, const sb_rows *rows, const char *results_dir, const char *stage);

/* The source file as this process can open it: from the working directory,
 * else from the repository above the binary (build/segbench); 0 if neither. */
int lesson_source_path(const char *file, char *out, size_t size);

/* The headers a rung's file lends the rungs after it (for dir/N_name.cu:
 * dir/N_name.cuh and dir/N_name_*.cuh), sorted by name, at most max, into
 * paths; returns how many. */
int lesson_own_headers(const char *rung_path, char (*paths)[PATH_MAX], int max);

#endif
