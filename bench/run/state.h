/* state.h - what the steps of a run (run.h) share: the run's state and
 * each step's functions.  Private to bench/run/. */
#ifndef SEGBENCH_RUN_STATE_H
#define SEGBENCH_RUN_STATE_H

#include "run/run.h"

#include "base/files.h"
#include "cases/cases.h"
#include "cases/dataset.h"
#include "cases/frames.h"
#include "io/dir_lock.h"
#include "machine/env.h"
#include "measure/paired.h"
#include "io/gallery_index.h"
#include "io/rows.h"
#include "reporters/reporters.h"

#include <pthread.h>
#include <stdio.h>

enum { RUN_MAX_CASE_ROWS = 256, RUN_FAILURES_KEPT = 32, RUN_REF_RUNS = 64 };

/* One row to measure: a variant at a thread count. */
typedef struct planned_row {
    const sb_variant *v;
    int threads;
} planned_row;

/* What the run will measure, built once from the options, the registry,
 * the images and (--resume) the rows measured before (plan.c), and read
 * only after: what the run finds as it goes (a row --host-limit leaves
 * out, a case that cannot open) is the state's, not the plan's. */
typedef struct plan_case {
    const sb_algo *algo;
    int image, stage;             /* the image's index in the run's dataset */
    const planned_row *rows;      /* the case's rows, in the order measured */
    int first, nrows;             /* rows: the plan's rows[first .. first + nrows) */
} plan_case;

typedef struct run_plan {
    plan_case *cases;             /* by algorithm (registry order), image, stage */
    int ncases;
    planned_row *rows;
    int nrows;
    int present;                  /* rows of a resumed run measured before, not planned again */
    double weight;                /* their rough cost, for the ETA (run_row_weight) */
} run_plan;

/* Where this invocation's time goes (ms, host clock): the serial
 * references and pipeline inputs each case computes before its rows, the
 * kernel census, gallery and quality pictures, each step of the rows'
 * protocol, and the rows by kind -- the serial reference, CPU threads, the
 * GPU -- with the thread sweep's rows below the largest count apart -- and
 * the repeatability re-measure at the end.
 * Printed at the end and kept in env.json (invocation_time_s). */
enum { RUN_ACCOUNT_ALGOS = 16 };

/* One algorithm's share of a run: its cases (references, rows, pictures)
 * and its stream rows. */
typedef struct algo_time {
    const char *name;
    double rows, streams;
} algo_time;

typedef struct time_account {
    double references, census, pictures, repeat, streams;
    double references_beside;            /* references computed while GPU rows ran (ahead.c): no wall time */
    double step[SB_STEPS];
    double serial, threaded, gpu, sweep;
    int stopped[SB_STOP_SLOW + 1];       /* rows by why their samples stopped (measure.h) */
    algo_time algo[RUN_ACCOUNT_ALGOS];   /* in the order measured */
    int nalgos;
} time_account;

/* What a pipeline does with the steps every run shares (run.c: bench
 * and check are two pipelines over them): a step asks the pipeline, not
 * which command runs it. */
typedef struct run_pipeline {
    const char *name;             /* "bench", "check" */
    int times;                    /* rows are timed (bench), or only checked */
    int keeps;                    /* a results folder: the reporters' files, env.json, the gallery,
                                     quality, stream rows, the re-measure */
} run_pipeline;

/* run.c: the pipeline the options ask for (segbench check's or bench's). */
const run_pipeline *run_pipeline_for(const sb_bench_opts *o);

typedef struct bench_run {
    const sb_bench_opts *o;
    const run_pipeline *pipe;     /* bench or check */
    sb_timing_opts timing;        /* o->timing, for this machine's GPU (its UUID) */
    sb_env env;
    sb_dataset ds;
    run_plan plan;                /* what to measure (plan.c), read-only once built */
    char results_dir[SB_PATH_MAX];
    char row_commit[56];          /* commit as written on each row ("-dirty" when the tree was) */
    void *stream;                 /* one CUDA stream for every device variant */
    int total, done, skipped;     /* rows, for the progress line */
    double weight_total, weight_done, started_ms;
    int failures, errors;
    int host_left_out;            /* host rows left out by --host-limit (plan.c) */
    int pairs_skipped;            /* (image, stage) pairs the stage cannot take */
    double seconds_before;        /* the run's time before this invocation (--resume) */
    double begun_ms;              /* this invocation's start, for run_seconds */
    int noisy;                    /* rows with a spread or over_peak flag */
    int tty;
    char failed[RUN_FAILURES_KEPT][200];   /* the first failures, repeated at the end */
    sb_dir_lock lock;             /* the results folder, held for the whole run */
    /* the algorithm being measured */
    sb_reporters out;             /* where its rows go: console, CSVs, census, quality, JSON, streams (reporters/) */
    int census_off;               /* launches cannot be observed here: said once */
    double device_row_ended;      /* host clock ms when the last GPU row ended (row.c) */
    sb_case_memo *memo;           /* the pipeline steps' references, kept for every case of the run */
    sb_host_probes *probes;       /* the host's CPU and memory speed bests (host_noise.h), the run's own */
    sb_paired pairing;          /* ab --paired's partner process (measure/paired.h); off: alone */
    time_account spent;
    /* the serial reference's runs of the algorithm being measured, by
     * stage: --host-limit predicts a stream row's frames from them */
    struct ref_run { int stage; double pixels, ms; } ref_runs[RUN_REF_RUNS];
    int nref_runs;
    struct frames_ahead *frames_ahead;   /* its stream frames' references made ahead (frames_ahead.c) */
} bench_run;

/* start.c: the results folder (a published one spared), its lock, the
 * run id or the run resumed, leftovers swept, the bandwidth ceilings. */
sb_status run_start(bench_run *r, sb_error *err);
/* The results folder's lock: none held yet (a run's state begins so), or
 * let go (the run's end). */
void run_hold_no_folder(bench_run *r);
void run_release_folder(bench_run *r);

/* plan.c */
int run_size_caps(const bench_run *r);   /* the size caps hold (bench), or every image is taken (check) */
/* The run's plan built (r->plan; the progress line's row count and
 * weight from it), and freed; a case's part of it (NULL: no rows). */
sb_status run_plan_all(bench_run *r, sb_error *err);
void run_plan_free(bench_run *r);
const plan_case *run_plan_find(const run_plan *p, const sb_algo *algo, int image, int stage);
int run_limit_host_rows(bench_run *r, const sb_algo *algo, int stage, const sb_dataset_image *im, double ref_ms,
                        const sb_rows *measured, planned_row *plan, int *nplan);
void run_note_reference(bench_run *r, int stage, const sb_dataset_image *im, double ref_ms);
void run_forget_references(bench_run *r);
double run_reference_frame_ms(const bench_run *r, int stage, double pixels);
double run_host_predicted_ms(const sb_rows *measured, const char *stage, const char *variant, int threads,
                             double pixels, double ref_ms);
double run_row_weight(const planned_row *p, const sb_dataset_image *im);
void run_report_unavailable(const sb_bench_opts *o);

/* One (image, stage) of an algorithm with rows to measure, and its case
 * once opened (ahead.c). */
typedef struct run_case {
    const sb_dataset_image *im;
    int stage;
    sb_image *loaded;             /* the image, loaded by its first case, shared by its others */
    void *params;                 /* the stage's parameters for the image */
    planned_row *plan;
    int nplan;
    sb_case_data cd;              /* open when opened == SB_OK */
    sb_status opened;             /* sb_case_open's status (why_not says why not) */
    sb_error why_not;
    sb_status load;               /* the image could not be loaded (load_err): the run stops */
    sb_error load_err;
    sb_gallery_album album;       /* its gallery pictures, drawn as it opens (pictures.c) */
    sb_quality quality;           /* its reference's quality, where have_quality */
    int have_quality;
    sb_status pictures;           /* how making them ended (pictures_err) */
    sb_error pictures_err;
    double open_ms;               /* its opening: image, reference, pictures */
    int ready;                    /* opened (or failed to), under the opener's lock */
} run_case;

/* ahead.c: the cases of a batch opened in order, ahead of the rows by
 * threads of their own (run_cases_openers: how many), or each by
 * run_case_ready.  With a GPU, one opener for every 4 cores, at most 3. */
enum { SB_AHEAD_CORES_EACH = 4, RUN_OPENERS_MAX = 3 };
typedef struct case_opener {
    const bench_run *r;
    const sb_algo *algo;
    run_case *cases;
    int n;
    pthread_t thread[RUN_OPENERS_MAX];
    int nthreads;                 /* 0: the caller opens each case at its turn */
    pthread_mutex_t lock;         /* next, stop, busy_ms and the cases' ready */
    pthread_mutex_t loading;      /* one image loaded at a time */
    pthread_cond_t ready;
    int next;                     /* the next case to take */
    int stop;
    double busy_ms, waited_ms;    /* the openers' time, and the caller's waiting for them */
} case_opener;
int run_cases_openers(const bench_run *r);
void run_cases_begin(case_opener *op, const bench_run *r, const sb_algo *algo, run_case *cases, int n,
                     int openers);
/* Case k, opened (or failed to): waited for, or opened now. */
run_case *run_case_ready(bench_run *r, case_opener *op, int k);
/* The openers stopped and joined: no case is opened after this. */
void run_cases_end(bench_run *r, case_opener *op);

/* case.c: every image of one algorithm, every stage of an image. */
sb_status run_algo(bench_run *r, const sb_algo *algo, sb_error *err);

/* row.c: measure (or check) one planned row against the case; append it.
 * run_row_record appends a row measured elsewhere (st, err: how its
 * measurement ended), taking m's samples. */
sb_status run_row(bench_run *r, sb_rows *rows, const sb_dataset_image *im, const sb_case *c, const planned_row *p,
                  sb_error *fatal);
sb_status run_row_record(bench_run *r, sb_rows *rows, const sb_dataset_image *im, const sb_case *c,
                         const planned_row *p, sb_measurement *m, sb_status st, const sb_error *err,
                         sb_error *fatal);
/* The timing options of a row measured now (a GPU row right after
 * another warms up less: its clocks are up), and the end of a GPU row
 * marked. */
sb_timing_opts run_row_timing(const bench_run *r, const sb_variant *v);
void run_device_row_done(bench_run *r);
/* "integral sum pthread t2 fruits": a row in progress lines and warnings. */
void run_row_label(const sb_case *c, const planned_row *p, const sb_dataset_image *im, char *out, size_t size);

/* rounds.c: the case's n host rows in interleaved rounds, then appended;
 * run_host_measure measures them alone, into out[0..n) (each row's
 * measurement, and how it ended). */
typedef struct host_result {
    sb_measurement m;
    sb_status st;
    sb_error err;
} host_result;
sb_status run_host_measure(bench_run *r, const sb_dataset_image *im, const sb_case *c, const planned_row *plan,
                           int n, host_result *out);
sb_status run_host_rows(bench_run *r, sb_rows *rows, const sb_dataset_image *im, const sb_case *c,
                        const planned_row *plan, int n, sb_error *fatal);

/* files.c: env.json; an algorithm's outputs begun (a resumed run's
 * rows found and repaired, the reporters begun to append to them) and
 * ended (finished: every row reached them). */
sb_status run_write_env(bench_run *r, sb_error *err);
int run_csv_is_this_run(const char *path, const char *run_id, sb_rows *rows);
sb_status run_repair_resumed(bench_run *r, sb_error *err);
sb_status run_open_logs(bench_run *r, const sb_algo *algo, sb_error *err);
/* env.json is written here alone: the machine and its ceilings, who the
 * run is and its algorithms, the rows planned (present: measured before),
 * a row measured, the repeatability line, the run finished (its time
 * account into line). */
void run_record_machine(bench_run *r);
void run_record_ceilings(bench_run *r);
void run_record_identity(bench_run *r, const char *run_id, const char *algos);
void run_record_algos(bench_run *r);
sb_status run_record_planned(bench_run *r, int present, sb_error *err);
sb_status run_record_row(bench_run *r, sb_error *err);
void run_record_repeatability(bench_run *r, const char *line, const int cpu[2], const int gpu[2]);
sb_status run_record_finished(bench_run *r, char *line, size_t line_size, sb_error *err);
int run_done_rows_load(const bench_run *r, const sb_algo *algo, sb_rows *done);
sb_status run_close_logs(bench_run *r, const sb_algo *algo, const sb_rows *measured, int finished, sb_error *err);

/* pictures.c: the case's gallery pictures written and its quality
 * measured, as it opens (how that ended kept in the case); then, in
 * the cases' order, the gallery's index lines and the quality's row. */
void run_case_pictures(const bench_run *r, const sb_algo *algo, run_case *k);
sb_status run_case_pictures_record(bench_run *r, const sb_algo *algo, run_case *k, sb_error *err);


/* streams.c: the algorithm's stream rows, into <algo>.stream.csv.
 * run_streams_ahead: the scenes whose frames' references will time no
 * row (each streams with GPU rows while --host-limit leaves out its host
 * row, as predicted from the references noted so far) have them made
 * ahead (frames_ahead.c). */
sb_status run_streams(bench_run *r, const sb_algo *algo, sb_error *err);
void run_streams_ahead(bench_run *r, const sb_algo *algo);

/* frames_ahead.c: those scenes' frames' references made on threads of
 * their own beside the GPU rows of the algorithm's last batch (case.c):
 * begun once a reference is noted to predict from, joined before the
 * batch's host rows, taken by run_streams (1: taken, *st how their making
 * ended), the rest dropped when the algorithm is done. */
enum { RUN_AHEAD_SCENES_MAX = 8 };
void run_frames_ahead_begin(bench_run *r, const sb_algo *algo, const sb_sequence *const *scenes, int n);
void run_frames_ahead_join(bench_run *r);
int run_frames_ahead_take(bench_run *r, const sb_sequence *seq, sb_frames *fr, sb_status *st, sb_error *err);
void run_frames_ahead_drop(bench_run *r);

/* repeat.c: the summary image's rows measured again, tallied into env. */
sb_status run_repeat(bench_run *r, sb_error *err);

/* account.c */
void run_progress(bench_run *r, const char *what);
void run_progress_clear(bench_run *r);
void run_note_failure(bench_run *r, const char *row, const char *metric);
/* The run's tallies, counted here alone: a row that could not run, a
 * noisy row, host rows left to the run of record. */
void run_note_error(bench_run *r);
void run_note_noisy(bench_run *r);
void run_note_left_out(bench_run *r, int rows);
void run_account_row(bench_run *r, const sb_variant *v, int threads, const sb_measurement *m);
void run_account_text(const bench_run *r, char *line, size_t line_size, char *json, size_t json_size);
/* Time spent on the run's other work, counted here alone (ms). */
typedef enum run_spent_kind {
    RUN_SPENT_REFERENCES,         /* the serial references and pipeline inputs, waited for */
    RUN_SPENT_REFERENCES_BESIDE,  /* made beside the GPU rows (--ahead): no wall time */
    RUN_SPENT_PICTURES,
    RUN_SPENT_CENSUS,
    RUN_SPENT_REPEAT,
    RUN_SPENT_STREAMS
} run_spent_kind;
void run_spend(bench_run *r, run_spent_kind kind, double ms);
double run_spent_references(const bench_run *r);
/* An algorithm's share, once it is done: ms of its cases and of its stream rows. */
void run_account_algo(bench_run *r, const char *algo, double rows_ms, double streams_ms);

#endif
