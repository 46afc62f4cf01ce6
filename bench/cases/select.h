/* select.h - which images and stages a command takes: the one parser of
 * the image-selection options (--set, --image, --rect, --max-pixels,
 * --max-memory) that bench, check, compare, grade and profile share, and
 * the rules that say whether bench times an algorithm on an image and
 * which image the report's summary shows. */
#ifndef SEGBENCH_SELECT_H
#define SEGBENCH_SELECT_H

#include "variants/algo.h"
#include "cases/dataset.h"
#include "variants/registry.h"

#include <stddef.h>

#include "segbench/error.h"

enum { SB_IMAGE_FILES_MAX = 256 };

/* The image-selection options, as given. */
typedef struct sb_image_choice {
    const char *set;                          /* --set NAME; NULL: the command's default */
    char *files[SB_IMAGE_FILES_MAX];          /* --image FILE, in order */
    int nfiles;
    int rect[4], has_rect;                    /* --rect X,Y,W,H, for the files */
} sb_image_choice;

/* Which option a value belongs to (a command maps its own enum to these). */
typedef enum sb_image_option {
    SB_IMAGE_OPT_SET, SB_IMAGE_OPT_IMAGE, SB_IMAGE_OPT_RECT, SB_IMAGE_OPT_MAX_PIXELS, SB_IMAGE_OPT_MAX_MEMORY
} sb_image_option;

/* Take one selection option's value; an error names the option. */
sb_status sb_image_choice_take(sb_image_choice *c, sb_image_option which, const char *value, sb_error *err);

/* Where a command's option table holds the image options: each one's
 * index there, -1 where the command does not take it. */
typedef struct sb_image_options {
    int set, image, rect, max_pixels, max_memory;
} sb_image_options;
/* Is option `opt` of the command one of them?  Then 1, and its value is
 * taken (*st: the outcome); else 0. */
int sb_image_choice_option(sb_image_choice *c, const sb_image_options *where, int opt, const char *value,
                           sb_status *st, sb_error *err);
/* The images chosen: the files when there are any (with --rect), else the
 * set (default_set when none was named).  --rect without files is refused. */
sb_status sb_image_choice_load(const sb_image_choice *c, const char *default_set, sb_dataset *ds, sb_error *err);

/* --set NAME or the given files; files win when both are given.  rect: the
 * --rect for the files (NULL: each file's default rectangle); with a set it
 * is refused (a set's rectangles are in its manifest). */
sb_status sb_select_images(const char *set, char *const *files, int nfiles, const int *rect, sb_dataset *ds,
                           sb_error *err);
/* Why bench does not run the algorithm on the image at all -- above its
 * bench size (when size_caps: a time budget, so `check` and
 * --no-size-caps ignore it) or above the memory budget -- or NULL. */
const char *sb_image_skip_reason(const sb_algo *algo, const sb_dataset_image *im, int size_caps, char *why,
                                 size_t size);
/* Is variant v chosen by the --variant and --stage patterns (NULL: all)
 * at this stage of algo?  A student's rung only by name (names.h). */
int sb_stage_variant_chosen(const char *variants, const char *stages, const sb_variant *v, const sb_algo *algo,
                            int stage);
/* Does bench time the algorithm on this image: usable by it, within its
 * bench size (unless size_caps is 0) and the memory budget? */
int sb_bench_takes_image(const sb_algo *algo, const sb_dataset_image *im, int size_caps);
/* The image the report's summary shows the algorithm at: the largest one
 * bench times, synthetic images first (NULL: none). */
const sb_dataset_image *sb_summary_image(const sb_dataset *ds, const sb_algo *algo, int size_caps);

/* The limits every command that loads images takes (run, bench, check,
 * compare): --max-pixels (the decoding limit, segbench/image_io.h) and
 * --max-memory (the host memory a case may need, cases/cases.h). */
#define SB_OPTION_MAX_PIXELS                                                                                  \
    { "max-pixels", "N", "178956970", "refuse images of more pixels before decoding them (at most 268435456)" }
#define SB_OPTION_MAX_MEMORY                                                                                  \
    { "max-memory", "SIZE", "3/4 of the RAM",                                                                 \
      "refuse (run) or skip (bench, check, compare) an image whose estimated need is larger (8G, 500M)" }
sb_status sb_option_max_pixels(const char *value, sb_error *err);
sb_status sb_option_max_memory(const char *value, sb_error *err);

/* --rect X,Y,W,H */
sb_status sb_parse_rect(const char *value, int rect[4], sb_error *err);

/* 1, 2, 4, ... up to the usable core count, and that count itself. */
int sb_default_threads(int *threads, int max);
/* One warning line when `threads` is above the usable core count: times
 * of an oversubscribed variant measure the scheduler as much as the code. */
void sb_warn_oversubscribed(const char *what, int threads);

#endif
