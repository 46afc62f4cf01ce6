/* noise_floor.h - a machine's noise floor on disk: noise.csv in its
 * result set, written by `segbench noise` (an A/A: one build against
 * itself, round by round, each round a fresh process) and read by
 * `compare`, `ab` and the report.  One line a class of rows -- the GPU
 * rows, the host-bound GPU rows, the CPU rows at each thread count
 * (sb_floor_kind) -- with the 99th percentile of
 * |log B/A| between the A/A's rounds (measure/evidence.h), how many rows
 * and round pairs it rests on, and where it came from (machine, commit,
 * date, the A/A's folder); then one line a row the A/A measured (its
 * class, then its key), with its own floor (the largest |log B/A| of its pairs): rows of one class differ
 * by orders of magnitude in their noise -- on a 2-core cloud machine a
 * two-thread integral of 0.006 ms ran in 0.9 ms in one process of six, a
 * wait for the other core, while a one-thread k-means moved 2 % -- and a
 * row is held to its own floor where the A/A measured it.
 *
 * Where no A/A was run, the defaults stand (SB_FLOOR_DEFAULT_*), named as
 * such wherever a verdict uses them. */
#ifndef SEGBENCH_NOISE_FLOOR_H
#define SEGBENCH_NOISE_FLOOR_H

#include "io/rows.h"

#include "segbench/error.h"

#include <stddef.h>

/* The floors a machine has before its own A/A: the larger of what the
 * reference machine's A/A and a 2-core cloud machine's gave (docs/
 * measuring.md, "The noise floor"), so that a fresh machine errs towards
 * "undetermined". */
#define SB_FLOOR_DEFAULT_GPU 0.05
#define SB_FLOOR_DEFAULT_CPU 0.15
#define SB_FLOOR_QUANTILE 0.99

enum { SB_FLOOR_CLASSES = 24 };

typedef struct sb_floor_class {
    char name[24];                /* "gpu", "cpu@1", "cpu@16" */
    int rows, pairs;              /* what it rests on */
    double floor;                 /* a ratio's distance from 1: 0.04 is 4 % */
} sb_floor_class;

typedef struct sb_floor_row {
    sb_row key;                   /* algo, stage, variant, threads, image (no samples) */
    char cls[24];                 /* its class ("gpu", "cpu@2"): the file's class column */
    int pairs;
    double floor;
} sb_floor_row;

typedef struct sb_noise_floor {
    sb_floor_class cls[SB_FLOOR_CLASSES];
    int n;
    sb_floor_row *row;            /* owned: sb_floor_free */
    int nrows, rows_cap;
    int measured;                 /* read from an A/A (0: the defaults) */
    char source[512];             /* the file read, or "defaults" */
    char machine[96], commit[72], date[32], aa_dir[256];
} sb_noise_floor;

/* The defaults: no A/A on this machine. */
void sb_floor_defaults(sb_noise_floor *f);
void sb_floor_free(sb_noise_floor *f);
/* A row's own floor added, of class cls (NULL: out of memory). */
sb_floor_row *sb_floor_add_row(sb_noise_floor *f, const sb_row *key, const char *cls);
/* Read path; SB_ERR_IO when it is not there, SB_ERR_FORMAT when it is not
 * a noise.csv (f then holds the defaults). */
sb_status sb_floor_read(const char *path, sb_noise_floor *f, sb_error *err);
/* Write it whole or not at all. */
sb_status sb_floor_write(const char *path, const sb_noise_floor *f, sb_error *err);

/* What moves a row's time between processes, and so its class: the host
 * (a CPU row), the GPU, or both -- a device row whose every pass waits on
 * the host's computing (SB_HOST_BOUND: k-means' cuda-seed, -copyonce and
 * -devsums), which moves with the host's noise as a CPU row does (on the
 * H200 host its rows' own floors were 15-59 % where the other GPU rows'
 * median was 2.6 %, and set the whole GPU class's). */
typedef enum sb_floor_kind { SB_FLOOR_CPU, SB_FLOOR_GPU, SB_FLOOR_GPU_HOST } sb_floor_kind;
/* A variant's kind, from its flags. */
struct sb_variant;
sb_floor_kind sb_floor_kind_of_variant(const struct sb_variant *v);
/* A row's kind, from its variant in this build's registry (a variant it
 * does not know: by the backend alone). */
sb_floor_kind sb_floor_kind_of(const sb_row *r);
/* The class of a row: "gpu", "gpu-host" (SB_FLOOR_GPU_HOST), or
 * "cpu@<threads>". */
void sb_floor_class_name(sb_floor_kind kind, int threads, char *out, size_t size);
/* The floor for a row of that class: its class's; else for a CPU row the
 * largest CPU class's (more threads than the A/A measured: the noisiest
 * it saw), for a host-bound GPU row the GPU class's (a noise.csv from
 * before the class), else the default. */
double sb_floor_for(const sb_noise_floor *f, sb_floor_kind kind, int threads);
/* The floor for this row: its own where the A/A measured it, else its
 * class's (sb_floor_for). */
double sb_floor_for_row(const sb_noise_floor *f, const sb_row *key);
/* The q-quantile (0..1) of the rows' own floors, of the device rows
 * (device 1: "gpu" and "gpu-host") or the CPU rows (0): "two processes
 * of one build agree within this on a share q of such rows"; -1 when the
 * A/A measured none.
 * *rows gets how many it measured. */
double sb_floor_rows_quantile(const sb_noise_floor *f, int device, double q, int *rows);
/* The same of the rows of one class ("cpu@16"), or with prefix, of every
 * class that begins so ("gpu": gpu and gpu-host). */
double sb_floor_class_quantile(const sb_noise_floor *f, const char *cls, int prefix, double q, int *rows);
/* One line for a reader: "the A/A of 2026-11-29 on h200 (commit abc1234,
 * runs in results/h200/aa)" or "defaults (no A/A on this machine: segbench
 * noise)". */
void sb_floor_describe(const sb_noise_floor *f, char *out, size_t size);

#endif
