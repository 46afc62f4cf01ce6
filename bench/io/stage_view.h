/* report_view.h - one stage's rows as the report reads them: the
 * variants (registry order), the images grouped by size, and queries for
 * the best row, the serial and best-CPU baselines and speedups. */
#ifndef SEGBENCH_REPORT_VIEW_H
#define SEGBENCH_REPORT_VIEW_H

#include "variants/registry.h"
#include "io/rows.h"

enum { MAX_GROUPS = 16, MAX_VARIANTS = 32, MAX_IMAGES = 64 };

typedef struct stage_view {
    const sb_rows *rows;
    const char *stage;
    int nvar;
    const sb_variant *var[MAX_VARIANTS];  /* registry order */
    int nimg;
    char img[MAX_IMAGES][128];
    double img_px[MAX_IMAGES];
    char img_gname[MAX_IMAGES][32];       /* "WxH" for synthetic images, "photos" */
    int img_group[MAX_IMAGES];
    int ngroup;
    char group[MAX_GROUPS][32];
    double group_px[MAX_GROUPS];
    int largest;                          /* image index */
    int sweep;                            /* image with the most thread counts (where bench swept) */
    int memory_bound;                     /* the stage has a byte floor: GB/s mean something */
} stage_view;

int view_is_synthetic(const char *image);
void view_build(stage_view *sv, const sb_rows *rows, const char *algo, const char *stage);
/* How many distinct thread counts the stage's threaded rows have at image i. */
int view_thread_counts_at(const stage_view *sv, int i);
/* Does row r belong to this stage, variant and image (NULL: any)? */
int view_row_is(const sb_row *r, const char *stage, const char *variant, const char *image);
/* The first row of (variant, image) at `threads` (0: any count), or NULL. */
const sb_row *view_find_row(const stage_view *sv, const char *variant, const char *image, int threads);
/* The row of (variant, image) with the smallest kernel median among its
 * thread counts; *failed when every such row broke its contract. */
const sb_row *view_best_row(const stage_view *sv, const char *variant, const char *image, int *failed);
int view_is_cpu_backend(const char *backend);
/* Has any of rows run on a GPU?  Without one, no CUDA rung was measured:
 * no lessons page, no limit table. */
int view_rows_have_gpu(const sb_rows *rows);
/* Kernel time of the serial reference (best_cpu 0), or of the best CPU variant. */
double view_baseline_ms(const stage_view *sv, const char *image, int best_cpu);
/* Is a row behind a group's time (best_cpu -1) or speed-up (best_cpu 0
 * over the serial reference, 1 over the best CPU) unstable (the § mark)? */
int view_group_unstable(const stage_view *sv, const char *variant, int group, int best_cpu);
/* Was every CPU variant the stage has rows of measured at this image?  A
 * run with --host-limit leaves out the slow threaded rows: the serial
 * reference alone is then not the best CPU. */
int view_cpu_complete(const stage_view *sv, const char *image);
/* The row behind view_baseline_ms (NULL: none, or best_cpu and not every
 * CPU variant measured at the image). */
const sb_row *view_baseline_row(const stage_view *sv, const char *image, int best_cpu);
/* Geometric mean speedup of a variant over the images of one group. */
double view_group_speedup(const stage_view *sv, const char *variant, int group, int best_cpu, int *failed);
/* A variant's kernel median over a size group (geometric mean over its
 * images, best thread count), 0 when it has none there. */
double view_group_ms(const stage_view *sv, const char *variant, int group, int *failed);
/* A speed-of-light row (SB_FLOOR): a copy over the same bytes, not a competitor. */
int view_is_floor(const sb_variant *v);

/* The fastest agreeing row at `image` among the variants `pick` accepts,
 * by kernel time or (by_frame) by per-frame time; NULL when none. */
const sb_row *view_fastest(const stage_view *sv, const char *image, int (*pick)(const sb_variant *), int by_frame);
/* A CUDA rung of a ladder: a GPU variant, neither a floor nor a library. */
int view_is_gpu_rung(const sb_variant *v);

#endif
