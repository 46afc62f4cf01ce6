/* dataset.h - the images a run uses: a named set's manifest, or files
 * named on the command line.
 *
 * A manifest (datasets/build/<set>/manifest.tsv, written by sbgen) has one
 * tab-separated line per image:
 *   name  path  kind  width  height  rect_x rect_y rect_w rect_h  labels  mask  gallery
 * with paths relative to the manifest and "-" for absent fields.  A set
 * with scenes also has sequences.tsv beside it (sb_sequence, below).
 */
#ifndef SEGBENCH_DATASET_H
#define SEGBENCH_DATASET_H

#include "segbench/error.h"
#include "segbench/video_io.h"

#include "base/files.h"

typedef struct sb_dataset_image {
    char name[128];
    char path[SB_PATH_MAX];
    char kind[16];            /* "synthetic" or "photo" */
    int width, height;
    int rect[4];              /* foreground rectangle x, y, w, h; w = 0 when none */
    char labels[SB_PATH_MAX];        /* ground-truth region labels, or "" */
    char mask[SB_PATH_MAX];          /* ground-truth foreground mask, or "" */
    int gallery;              /* shown in the report's gallery */
    int sweep;                /* bench sweeps thread counts here (see cmd_bench.c) */
} sb_dataset_image;

/* A sequence of frames of one size (a video), for the stream rows
 * (stream.h): a set's scene (sequences.tsv beside its manifest, written
 * by sbgen: name, frames, width, height, the rectangle holding the object
 * in every frame, and the frames' file pattern) or `--frames GLOB`; the
 * files, or one YUV4MPEG2 file holding them all (segbench/video_io.h). */
typedef struct sb_sequence {
    char name[128];
    int width, height;
    int rect[4];              /* holds the object in every frame; w = 0 when none */
    int count;
    char (*frames)[SB_PATH_MAX];   /* the frame files, in name order; NULL for a video */
    char video[SB_PATH_MAX];  /* the .y4m file holding the frames, or "" */
    sb_y4m y4m;               /* its header and frames' places */
} sb_sequence;

typedef struct sb_dataset {
    char name[64];
    int count;
    sb_dataset_image *images;
    int nsequences;
    sb_sequence *sequences;
} sb_dataset;

/* The files a glob pattern names (glob(3): no shell), in name order, as a
 * sequence named after the pattern's directory and stem; each frame's
 * size read from its header.  One clear line, and no sequence, when the
 * pattern names no file, a file is no image, or two frames differ in size.
 * A pattern naming one YUV4MPEG2 file is that file's frames (a frame cut
 * off at its end is left out: seq->y4m.note says so).
 * rect: the object's rectangle (NULL: sb_dataset_default_rect). */
sb_status sb_sequence_glob(const char *pattern, const int *rect, sb_sequence *seq, sb_error *err);
/* Frame i of the sequence, decoded. */
sb_status sb_sequence_load_frame(const sb_sequence *seq, int i, sb_load_mode mode, sb_image *img, sb_error *err);
void sb_sequence_free(sb_sequence *seq);

/* Load datasets/build/<set>/manifest.tsv under `root` (the repository). */
sb_status sb_dataset_load_set(const char *root, const char *set, sb_dataset *ds, sb_error *err);
sb_status sb_dataset_load_manifest(const char *path, sb_dataset *ds, sb_error *err);
/* A dataset of the given files: sizes read from their headers (a file the
 * decoding limit refuses is refused here, before anything runs), names
 * from their file names without the extension, which must differ (rows
 * are keyed by name).  rect: the foreground rectangle for each (GrabCut),
 * or NULL for the default, sb_dataset_default_rect. */
sb_status sb_dataset_from_files(char *const *paths, int count, const int *rect, sb_dataset *ds, sb_error *err);
/* A rectangle inset from the border by a tenth of each side (at least one
 * pixel inside), for an image that names none. */
void sb_dataset_default_rect(int width, int height, int rect[4]);
void sb_dataset_free(sb_dataset *ds);

#endif
