/* report_parts.h - the pieces `segbench report` assembles into
 * report/<machine>/: tables (report_tables.c), plots (report_plots.c),
 * the first screen and the ladders (report_summary.c), and the style the
 * plots share (report_style.c). */
#ifndef SEGBENCH_REPORT_PARTS_H
#define SEGBENCH_REPORT_PARTS_H

#include "io/catalogue.h"
#include "io/stage_view.h"
#include "profile/limits.h"

#include "segbench/error.h"

#include <stddef.h>
#include <stdio.h>

/* ---- tables ---- */
void report_largest_table(FILE *fp, const stage_view *sv);
void report_speedup_table(FILE *fp, const stage_view *sv, int best_cpu);
void report_time_table(FILE *fp, const stage_view *sv);
void report_thread_table(FILE *fp, const stage_view *sv);

/* ---- plots ---- */
typedef struct plot_ctx {
    const char *dir;          /* report/<machine>/plots */
    int gnuplot;              /* gnuplot found */
    int made, missing, kept;  /* drawn; not drawn and absent; not drawn, an older PNG kept */
    char missing_list[2048];  /* whole names only: "... and N more" past the end */
    double device_peak;       /* the run's measured device copy, GB/s (0: none) */
    double host_peak;         /* its host memcpy at the most threads measured, GB/s */
    int host_threads;         /* ... at this many threads */
    int sm_count;             /* the GPU's multiprocessors (the roofline's issue roof) */
    FILE *batch;              /* plots/.batch.gp: the scripts waiting for report_plots_draw */
    int pending;              /* how many */
} plot_ctx;

extern const char *const REPORT_PLOT_HEAD;
/* Write plots/<name>.gp and queue it for gnuplot (or note it as missing). */
/* Draw the plots?  gnuplot is on PATH and SB_PLOTS is not "scripts"
 * (then the scripts and data are written and nothing is drawn: the test
 * suite's many small reports); where gnuplot is missing, said once. */
int report_gnuplot(void);
sb_status report_plot_run(plot_ctx *pc, const char *name, const char *script, sb_error *err);
/* Draw every queued plot: one gnuplot for all of them (a gnuplot costs
 * ~70 ms to start, and a report draws hundreds), and each alone, to find
 * which, only if that one fails.  Call it before reading pc->made. */
void report_plots_draw(plot_ctx *pc);
sb_status report_plot_data_open(const plot_ctx *pc, const char *name, FILE **fp, sb_error *err);
sb_status report_plots_for_stage(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err);
sb_status report_sweep(plot_ctx *pc, const sb_rows *rows, const sb_algo *algo, FILE *md, sb_error *err);

/* ---- text from the results, made safe for where it goes ----
 * Names in results are data (a file called "a|b'c.png" is legal): in a
 * Markdown table cell '|' is escaped and line ends become spaces; in a
 * gnuplot single-quoted string a quote is doubled (so a name can never
 * end the string and run a gnuplot command) and control characters become
 * spaces.  Each returns one of 16 rotating buffers (so several can sit in
 * one printf), truncated at 511 bytes. */
enum { REPORT_TEXT_MAX = 1024 };
/* A buffer of REPORT_TEXT_MAX for report_md and report_gp, fresh at each
 * use: a compound literal, it lives to the end of the enclosing block, so
 * any number of them can stand in one printf:
 *     fprintf(md, "| %s | %s |", report_md(REPORT_TEXT, a), report_md(REPORT_TEXT, b)); */
#define REPORT_TEXT ((char[REPORT_TEXT_MAX]){ 0 })
/* s made safe into out (REPORT_TEXT_MAX bytes), which it returns; text
 * that does not fit ends in "..." rather than being cut without a word. */
const char *report_md(char *out, const char *s);
const char *report_gp(char *out, const char *s);

/* gnuplot lines that start a log-scale bar plot at the decade below its
 * shortest bar (least; 1 when none), into out (REPORT_TEXT_MAX bytes):
 * "base = 0.01" and the y range from it, for boxxyerror bars drawn from
 * base -- gnuplot's boxes start at 1 on a log axis, so bars under 1 ms
 * hung down from the top. */
const char *report_log_base(double least, char *out);

/* ---- style and sources ---- */
#define REPORT_FLOOR_COLOUR "#000000"
/* "#rrggbb": one colour per variant name in every plot; CPU variants in
 * greys and blues, GPU variants in warm colours and greens. */
const char *report_colour(const sb_catalogue *cat, const sb_variant *v);
/* The variant's source file and its algorithm's NOTES.md, relative to the
 * repository root, when they exist ("" otherwise). */
void report_variant_source(const sb_variant *v, char *out, size_t size);
void report_notes_path(const char *algo, char *out, size_t size);

/* ---- two rows' times, judged from their rounds (report_evidence.c) ---- */
/* The half-width of the 95 % interval of slow/fast from the two rows'
 * rounds, as a fraction (0.02: +-2 %); 0 where a row has fewer than 2
 * rounds (no interval). */
double report_speedup_spread(const sb_row *slow, const sb_row *fast);
/* Can the rounds not tell r from the fastest row?  True when the 95 %
 * interval of r/best reaches 1 (each with 2 rounds or more), or, with no
 * rounds, when the medians are equal. */
int report_ties_best(const sb_row *best, const sb_row *r);

/* ---- repeatability (report_repeat.c) ---- */
/* "**Repeatability on this machine:** ..." from results_dir/repeat.csv:
 * the share within 10 %, of which algorithms and runs; 0 (nothing
 * written) when there is no such file or it holds no line. */
int report_repeat_csv(FILE *md, const char *results_dir);

/* ---- the first screen ---- */
void report_summary_header(FILE *fp);
/* What the summary's columns and marks mean, below it. */
void report_summary_legend(FILE *fp);
/* The ladder of one stage: variants in teaching order (the registry's: the files' order), each
 * rung's time, its speed-up over the rung before, what it changes, its
 * source; and a step plot. */
sb_status report_ladder(plot_ctx *pc, const stage_view *sv, const char *algo, FILE *md, sb_error *err);
/* One line: the ladder of an algorithm's first stage, for REPORT.md. */
void report_ladder_line(FILE *fp, const sb_rows *rows, const sb_algo *algo);
/* Pipelines as stacked bars: the stages' times of each variant. */
sb_status report_pipeline_bars(plot_ctx *pc, const char *results_dir, const sb_algo *pipeline, FILE *md,
                               sb_error *err);

/* ---- the stream rows (report_streams.c) ---- */
typedef struct stream_set {
    struct sb_stream_row *row;
    int count;
} stream_set;
/* results_dir/<algo>.stream.csv, or no rows. */
void stream_set_read(const char *results_dir, const char *algo, stream_set *ss);
void stream_set_free(stream_set *ss);
/* The first screen's streaming table: each algorithm's scenes, the best
 * GPU and CPU stream, latency, energy, the share of the overlap bound. */
void report_streams_table(FILE *md, const stream_set *sets, const struct sb_algo *const *algos, int nalgo);
/* The summary's "streaming" pick for a stage from its stream rows at the
 * largest scene ("cuda-fused, 3 in flight"); 0 when none was streamed. */
int report_stream_use(const stream_set *ss, const char *stage, char *out, size_t size);
/* The lessons page's frames-in-flight table (nothing without stream rows). */
void report_streams_in_flight(FILE *md, const stream_set *ss);

/* ---- the lessons ---- */
/* lessons-<algo>.md: the CUDA ladder as a tree, each edge's idea, gain and
 * census change, the steps that lost (report_lessons.c); nothing when the
 * algorithm has no rungs. */
sb_status report_lessons_page(const char *results_dir, const char *out_dir, const sb_algo *algo, const sb_rows *rows,
                              double copy_gbps, const profile_set *p, const stream_set *streams, sb_error *err);

/* ---- the kernel census ---- */
/* The stage's kernels from results_dir/<algo>.kernels.csv, when there is one (report_kernels.c). */
void report_kernels(FILE *md, const char *results_dir, const char *algo, const char *stage);

/* ---- quality ---- */
/* The quality tables of one algorithm, from results_dir/<algo>.quality.csv,
 * when there is one (report_quality.c). */
void report_quality(FILE *md, const char *results_dir, const sb_algo *algo);

/* ---- peers ---- */
/* The peers table from results_dir/peers.csv, when there is one (report_peers.c). */
void report_peers(FILE *md, const char *results_dir, const sb_rows *rows, const sb_algo *const *algos, int nalgo);

#endif
