/* algo.h - what the harness needs to know about one algorithm.
 *
 * The harness is generic: it loads images, times variants and writes rows.
 * Everything specific to an algorithm -- its stages, parameters, output
 * parts and how each is checked, byte count and pictures -- is reached
 * through one sb_algo record (bench/algos/algo_<name>.c), listed in registry.c.
 */
#ifndef SEGBENCH_ALGO_H
#define SEGBENCH_ALGO_H

#include <stdio.h>

#include "segbench/image_io.h"
#include "segbench/variant.h"

typedef struct sb_agreement {
    int ok;                 /* the contract held */
    char verdict[16];       /* "exact", "within" (a stated bound), or "FAIL" */
    char metric[240];       /* what was compared and what was found */
} sb_agreement;

/* Quality of an output against ground truth: named numbers. */
enum { SB_QUALITY_MAX = 8 };
typedef struct sb_quality {
    int count;
    const char *name[SB_QUALITY_MAX];   /* static strings: "boundary_recall" */
    double value[SB_QUALITY_MAX];
} sb_quality;

/* An output struct's parts (outputs.h): planes are pointer members the
 * harness allocates; fields are results held in the struct itself.  Each
 * part says what its elements are and how the agreement check compares
 * it with the reference's (agreement.h). */
enum { SB_OUT_PARTS = 8 };
typedef enum sb_elem {
    SB_ELEM_INT,        /* signed integers of `size` bytes */
    SB_ELEM_UINT,       /* unsigned integers */
    SB_ELEM_FLOAT,      /* doubles (size 8) */
    SB_ELEM_RECORD      /* structs of `size` bytes, compared as bytes */
} sb_elem;
typedef enum sb_part_check {
    SB_CHECK_EXACT,     /* every element equal to the bit */
    SB_CHECK_PARTITION, /* int32 labels: the same partition, whatever the numbers */
    SB_CHECK_REPORT     /* not compared (it may differ by design): shown, when one element */
} sb_part_check;
enum {
    SB_PART_INT32_RANGE = 1 << 0   /* a variant flagged SB_INT32 fails where the reference
                                      is above INT32_MAX, even with equal bits */
};
typedef struct sb_out_part {
    size_t at;                   /* offsetof the member */
    size_t size, count;          /* element size and count: the elements compared */
    size_t span;                 /* the bytes made and poisoned (a field's whole member) */
    sb_elem elem;
    const char *name;            /* "labels", "centres", "the pass count" */
    sb_part_check check;
    int width;                   /* a plane over the image: its row length, so a difference is
                                    named (x,y); 0: named by index */
    unsigned flags;              /* SB_PART_* */
    const char *work;            /* a field that counts the run's work (a pass count, a solver's
                                    rounds), not only its result: its short name ("passes");
                                    NULL: not a work count (outputs.h, sb_output_work) */
} sb_out_part;
typedef struct sb_out_layout {
    int planes, fields;
    sb_out_part plane[SB_OUT_PARTS], field[SB_OUT_PARTS];
    sb_out_part *last;           /* the part added last (sb_out_check_*) */
} sb_out_layout;

/* Fill an output struct's own fields and declare its parts (outputs.h). */
typedef sb_status sb_layout_fn(void *out, const sb_image *in, const void *params, sb_out_layout *l,
                               sb_error *err);

struct sb_gallery_album;          /* algos/pictures.h */

typedef struct sb_algo {
    const char *name;            /* "integral" */
    const char *summary;
    const char *contract;        /* the agreement contract, one line */
    int stage_count;
    const char *const *stages;   /* stage names: the parameter presets benchmarked ("s16",
                                    "r16"); params_default takes the index.  (A pipeline's
                                    parts are its steps, each an algorithm of its own.) */
    sb_load_mode load_mode;      /* how images are loaded for it (grey, RGB) */
    /* Its variants take grey, made from the loaded colour image with
     * sb_luma_u8 by the case (cases.c), which keeps the colour image too:
     * an SB_COLOUR_IN variant takes that and makes the grey itself (the
     * integral image; load_mode is then SB_LOAD_RGB). */
    int luma_input;
    size_t params_size;
    const char *options_help;    /* its `segbench run` options, or "" */

    void (*params_default)(void *params, int stage);
    /* One command-line option (--key value); SB_ERR_USAGE names what is wrong. */
    sb_status (*params_option)(void *params, const char *key, const char *value, sb_error *err);

    /* The output struct (outputs.h makes, poisons and frees it): its size,
     * and its layout for this image and these parameters -- fill the
     * struct's own fields (width, height, ...) and add each plane and
     * result field with sb_out_plane / sb_out_field; SB_ERR_USAGE names a
     * bad parameter. */
    size_t output_size;
    sb_layout_fn *output_layout;

    /* The same output in its narrowest types, for SB_NARROW variants (NULL:
     * the algorithm has none): as output_layout, the same parts in the same
     * order, some planes in fewer bytes an element (SLIC's labels in 16
     * bits), so less crosses the bus.  The agreement check compares such a
     * plane with the reference's by value. */
    sb_layout_fn *narrow_layout;

    /* SB_FLOOR variants (a copy over the same bytes) are checked against
     * their own rule, not the reference: write the output the floor must
     * give for this input into `expected` (made from the layout). */
    void (*floor_output)(const sb_image *in, const void *params, void *expected);

    /* The fewest bytes the stage must move: inputs read once, outputs
     * written once.  `ref` is the reference's output on this image (for
     * iterative algorithms, whose work depends on the passes it took). */
    double (*bytes)(const sb_image *in, const void *params, const void *ref);

    /* `segbench run`: what its output picture and label image hold (1 grey,
     * 3 colour), checked against a .pgm or .ppm name before any work. */
    int output_channels, labels_channels;
    /* `segbench run`: the output as a picture. */
    sb_status (*write_output)(const char *path, const sb_image *in, const void *params,
                              const void *out, sb_error *err);
    /* `segbench run --labels FILE`: the label image (NULL: no labels). */
    sb_status (*write_labels)(const char *path, const void *out, sb_error *err);
    /* `segbench run`: a short account of the result on stdout (optional). */
    void (*describe)(FILE *fp, const void *params, const void *out);

    /* Quality of the reference's output on an image (optional; written to
     * <algo>.quality.csv).  `truth` is the image's ground-truth region
     * labels, or NULL when it has none (then only truth-free measures). */
    sb_status (*quality)(const sb_image *in, const void *params, const void *out, const sb_labels *truth,
                         sb_quality *q, sb_error *err);

    /* The report's one-paragraph account of the quality measures (NULL:
     * the region measures' account: boundary recall, undersegmentation). */
    const char *quality_note;

    /* The report's gallery: the reference's pictures drawn into the album
     * (algos/pictures.h: sb_gallery_add, a name and a caption each), which
     * the gallery reporter writes. */
    sb_status (*gallery)(struct sb_gallery_album *album, const sb_image *in, const void *params, const void *out,
                         sb_error *err);

    /* Pipeline steps (optional): the step this one follows, and how its
     * output becomes this step's input.  The harness (cases.c) runs the
     * reference of every step before, first to last, outside any timing,
     * and calls each one's feed() with the output of the step before it
     * (`before_in`: the image that step was run on): feed fills `input`
     * (this step's image, which the harness then owns) and may point
     * params at the output, which the harness keeps alive.  The steps of
     * one pipeline share one parameter struct. */
    const struct sb_algo *after;
    sb_status (*feed)(const sb_image *loaded, const sb_image *before_in, const void *before_out, void *params,
                      sb_image *input, sb_error *err);

    /* Per-image parameters from the dataset manifest (optional): the
     * object's rectangle (w = 0 when the manifest lists none).  Returns 0,
     * with the reason in why, when the image cannot be used: bench and
     * compare then skip it, saying so. */
    int (*image_params)(void *params, const int rect[4], char *why, size_t why_size);
    /* quality() wants the image's ground-truth foreground mask (255 on the
     * object) as `truth`, not its region labels. */
    int truth_is_mask;

    /* `bench` skips larger images (0: none), saying so: for algorithms whose
     * serial reference would take minutes there (--no-size-caps lifts it). */
    long max_bench_pixels;
    /* The host memory one case needs at its peak, per pixel: the input, the
     * reference's output, a variant's output and the steps before it, in
     * `segbench run`.  Measured as the growth of peak RSS from 512x512 to
     * 1024x1024 (2026-11-25, x86-64), rounded up by half again; checked
     * against --max-memory before anything is loaded (cases.h). */
    int host_bytes_per_px;

    /* The stage bench's stream rows run (measure/stream.h): 0, the first,
     * unless a program streaming video would run another (k-means: a
     * fixed number of passes, so a frame's cost does not depend on when
     * its content converges). */
    int stream_stage;

    /* Warm starts (optional; measure/stream.h, `stream --warm`): a video's
     * frame begins from the result of a frame before it, where the
     * algorithm converges from a guess.  warm_size: the bytes of its start
     * record (0: no warm starts); warm_from fills one from an output (NULL:
     * a cold start, the algorithm's own init); warm_attach points params
     * at one (NULL: cold), which the variants read at each frame.
     * warm_stage: the stage a warm stream runs by default, one that stops
     * on its own criterion (a fixed pass count gains nothing from a start). */
    size_t warm_size;
    void (*warm_from)(void *start, const void *out);
    void (*warm_attach)(void *params, const void *start);
    int warm_stage;
    /* What a warm stream's rows, cold and warm alike, run (NULL: the warm
     * stage as it is): the stage's parameters set to stop on the
     * algorithm's own criterion, where the stage itself makes a fixed
     * number of passes (SLIC: converge mode within s16's passes). */
    void (*warm_mode)(void *params);

    /* Stages that sweep one parameter, named by a letter and its value
     * ("r16", "r8", ...): the parameter's name ("radius"), so the report
     * adds a table and a plot of time against it (NULL: none). */
    const char *sweep;
} sb_algo;

/* The algorithms register themselves: each record's file (bench/algos/
 * algo_<name>.c) says SB_ALGO(record, place) after it, a constructor that
 * hands the record to the registry when the program starts, as SB_VARIANT
 * does a variant's ops -- so no lower layer names an algorithm.  place
 * orders them (sb_algo_at, results, reports): integral 10, k-means 20,
 * SLIC 30, mean-shift 40-43 (its steps, then the whole), GrabCut 50-54. */
void sb_algo_register(const sb_algo *algo, int place);
#define SB_ALGO(record, place)                                                                         \
    __attribute__((constructor)) static void sb_algo_register_##record(void) { sb_algo_register(&record, place); }

#endif
