/* stream.h - stream rows from the command line and from bench: which
 * sequence, which frames in flight, one row measured (measure/stream.h)
 * and made into a line of <algo>.stream.csv (io/stream_rows.h) or into
 * the lines `segbench stream` prints.
 *
 *   segbench stream ALGO/VARIANT[@THREADS] [--frames N|GLOB] [--in-flight K[,K...]] [--from-colour]
 *
 * cli/cmd_stream.c parses the command line into sb_stream_request;
 * streams.c is bench's stream rows. */
#ifndef SEGBENCH_RUN_STREAM_H
#define SEGBENCH_RUN_STREAM_H

#include "cases/dataset.h"
#include "cases/frames.h"
#include "measure/stream.h"
#include "io/stream_rows.h"

#include "segbench/error.h"

enum { SB_STREAM_KS = 8 };

typedef struct sb_stream_request {
    const char *spec;            /* ALGO/VARIANT[@THREADS] */
    const char *frames;          /* a count, or a glob of the frame files; NULL: the set's scene */
    const char *set;             /* the set whose scene streams (NULL: default) */
    const char *size;            /* WIDTHxHEIGHT: the scene of that size (NULL: 1920x1080, else the first) */
    const char *stage;           /* NULL: the algorithm's stream stage */
    int in_flight[SB_STREAM_KS], nk;   /* 0 given: 3 on the GPU, every CPU on the host */
    double seconds;              /* the timed pass at least (0: the default) */
    int rect[4], has_rect;       /* the object's rectangle in every frame (a glob's frames) */
    int runs_in_turn;            /* GPU: each frame's run after the one before it (measure/stream.h) */
    int colour_frames;           /* the frames in colour, the host making a grey variant's grey */
    int quiet;                   /* no progress lines */
    int warm;                    /* each K's row again with warm frames (frames.h, sb_frames_open_warm) */
    const char *write_frames;    /* a folder or a .y4m: each distinct frame's result written there, or NULL */
} sb_stream_request;

sb_status sb_run_stream(const sb_stream_request *q, sb_error *err);

/* A measured stream as a row of <algo>.stream.csv; idle: the machine at
 * rest (energy.h's sb_energy_idle). */
void sb_stream_row_fill(sb_stream_row *row, const sb_algo *algo, int stage, const sb_variant *v,
                        const sb_sequence *seq, const sb_stream_result *res, const sb_energy *idle);
/* The row in the few lines `segbench stream` and bench's progress print. */
void sb_stream_row_print(FILE *fp, const sb_stream_row *row);

/* --write-frames (stream_frames.c): a folder, or a file whose name ends
 * in .y4m in a folder that exists, else one line; then each distinct
 * frame of fr through a fresh session of v, checked against its
 * reference, its picture (the algorithm's, as `segbench run` writes it)
 * written as dir/<name>-fNNNN.png, or appended to the y4m (4:4:4 or mono,
 * full range, 30 frames/s) -- every frame's or, where one fails, none. */
int sb_stream_frames_to_y4m(const char *target);
sb_status sb_stream_frames_dir_ok(const char *target, sb_error *err);
sb_status sb_stream_write_frames(const sb_frames *fr, const sb_variant *v, int threads, const char *dir,
                                 const char *name, sb_error *err);

#endif
