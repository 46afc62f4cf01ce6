/* cases.h - turning a dataset image into an sb_case: load it in the
 * algorithm's format, copy it to pinned memory, compute the reference. */
#ifndef SEGBENCH_CASES_H
#define SEGBENCH_CASES_H

#include "cases/dataset.h"
#include "measure/measure.h"

enum { SB_STEPS_MAX = 8 };

/* The pipeline memo: the reference outputs of the steps a pipeline starts
 * from, kept for the cases opened through it (cases.c says why).  Whoever
 * opens many cases owns one (bench: its run) and frees it once no case
 * holds an entry; a case opened with none gets its own, freed with it.
 * Safe to share between threads.  probes: the owner's host probes
 * (host_noise.h), with which a reference run of SB_MEMORY_PROBE_MIN_MS or
 * more is followed by a read of the host's memory speed (its
 * ref_times.mem_slowdown); NULL: not read. */
typedef struct sb_case_memo sb_case_memo;
sb_case_memo *sb_case_memo_new(sb_host_probes *probes);   /* NULL: out of memory */
void sb_case_memo_free(sb_case_memo *memo);
/* How many reference runs were made through the memo: of the steps
 * before a pipeline step, and of the cases of the algorithms a pipeline
 * starts from (each step, parameters and image once, while held or kept). */
long sb_case_memo_steps_run(sb_case_memo *memo);

typedef struct sb_case_data {
    sb_case c;
    sb_image input;               /* pinned copy (data from sb_host_alloc) */
    sb_image colour;              /* algo->luma_input: the colour image (pinned), input its luma */
    void *params;
    void *reference;
    struct sb_step_memo *reference_memo;   /* holds the reference when a pipeline starts from it */
    int steps;                    /* pipeline steps before this one (algo->after) */
    struct sb_step_memo *step[SB_STEPS_MAX];   /* their reference outputs, held */
    sb_case_memo *memo;           /* where they are held */
    int own_memo;                 /* opened with none: this one is the case's own */
} sb_case_data;

/* `loaded` is the image as sb_image_load gave it in algo->load_mode; memo
 * where the case's pipeline steps are kept (NULL: its own, see above).
 * params: NULL for the stage's defaults.  For an algorithm whose variants
 * take grey made from colour (algo->luma_input), `loaded` may be colour
 * (3 channels: the input is its luma, sb_case_luma) or grey (the colour
 * image then repeats it, whose luma is the grey again). */
sb_status sb_case_open(sb_case_data *cd, sb_case_memo *memo, const sb_algo *algo, int stage, const void *params,
                       const sb_image *loaded, sb_error *err);
void sb_case_close(sb_case_data *cd);

/* Does a case of this stage go through the pipeline memo (a pipeline step,
 * or the first step of one)?  Such cases are opened one at a time; the
 * others share nothing and may be opened side by side (frames.h). */
int sb_case_uses_memo(const sb_algo *algo, int stage);

/* The stage's parameters for a dataset image: its defaults, then what the
 * manifest says about the image (algo->image_params; rect is the object's
 * rectangle, w = 0 when none).  *params is malloc'd; *usable is 0, with
 * the reason in why, when the algorithm cannot use the image. */
sb_status sb_case_params(const sb_algo *algo, int stage, const int rect[4], void **params, int *usable, char *why,
                         size_t why_size, sb_error *err);

/* One stage's case of a dataset image already loaded in algo->load_mode:
 * its parameters (sb_case_params), then sb_case_open, the case named after
 * the image.  *usable = 0, with the reason in why, when the stage cannot
 * take the image (its parameters refuse it, or the case does: a size it
 * cannot cut, a rectangle outside it, too little memory); then there is no
 * case to close.  Other failures are returned. */
sb_status sb_case_open_image(sb_case_data *cd, sb_case_memo *memo, const sb_algo *algo, int stage,
                             const sb_dataset_image *im, const sb_image *loaded, int *usable, char *why,
                             size_t why_size, sb_error *err);

/* ---- the memory budget ----
 * A case's host memory at its peak is estimated from its size before
 * anything is loaded (algo->host_bytes_per_px, plus what the process
 * needs anyway) and held against the budget: --max-memory, by default
 * three quarters of physical memory.  (Device memory is checked where it
 * is allocated: a row the GPU cannot hold is skipped, saying so.  The
 * pipeline memo keeps, beside the case, the reference outputs of the
 * steps pipelines start from, up to 64 images' worth: a few hundred MB
 * for the default set.) */
void sb_set_memory_budget(size_t bytes);
size_t sb_memory_budget(void);
size_t sb_case_peak_bytes(const sb_algo *algo, int width, int height);
/* 1 when the case fits; else 0, with a one-line reason naming the sizes
 * and the option in why. */
int sb_case_fits(const sb_algo *algo, int width, int height, char *why, size_t why_size);

#endif
