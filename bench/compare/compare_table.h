/* compare_table.h - the lines `segbench compare` and `segbench ab` print,
 * kept for the verdict line and for --export-json / --export-csv
 * (hyperfine's option names): each side's rounds, the ratio, its
 * interval, the floor it had to clear, p and the call (measure/evidence.h).
 * Lines are printed as they are judged; the false-discovery control runs
 * once every line is in (sb_compare_table_finish), which may turn a call
 * into "undetermined" and says so. */
#ifndef SEGBENCH_COMPARE_TABLE_H
#define SEGBENCH_COMPARE_TABLE_H

#include "segbench/atomic_file.h"
#include "segbench/error.h"
#include "segbench/stats.h"
#include "measure/evidence.h"

#include <stdio.h>

typedef enum sb_line_kind {
    SB_LINE_JUDGED,          /* both sides timed: a verdict */
    SB_LINE_FAILED,          /* a side broke its agreement contract */
    SB_LINE_SKIPPED,         /* nothing to compare (no samples, unusable image) */
    SB_LINE_ONLY_BASELINE,   /* a row the current set lacks */
    SB_LINE_ONLY_CURRENT     /* a row the baseline lacks */
} sb_line_kind;

typedef struct sb_compare_line {
    char algo[32], stage[32], label[300];
    sb_line_kind kind;
    sb_summary a, b;          /* of each side's rounds (median: the row's time) */
    double *a_ms, *b_ms;      /* each side's round medians (owned), JUDGED only */
    sb_effect eff;            /* B against A, and the call */
    sb_call first_call;       /* the call as printed, before the false-discovery control */
    int noise_a, noise_b;     /* noise.h flags of each side */
    int kind_of_row;          /* --baseline: SB_ROW_CPU or SB_ROW_GPU; -1: two variants */
    int unstable_a, unstable_b;   /* --baseline: the baseline's row, the current set's row is
                                     flagged unstable */
    int other_code;           /* --baseline: the two rows' code identities are known and differ
                                 (io/code_ids.h): the variant changed between the sets */
    char note[300];
} sb_compare_line;

enum { SB_ROW_CPU, SB_ROW_GPU };

/* How well two result sets of one machine agree (an A/A test), by kind of
 * row: judged rows, within SB_AA_WITHIN, beyond it but flagged unstable,
 * and beyond SB_AA_FAR without the flag; how many rows each set flagged
 * (issue 47's cap: at most a tenth of a kind's rows); and the rows left
 * out because their code changed between the sets (two commits). */
#define SB_AA_WITHIN 0.10
#define SB_AA_FAR 1.25
typedef struct sb_aa_tally {
    int rows, within, flagged_out, far_unflagged;
    int flagged_a, flagged_b;     /* rows flagged unstable in the baseline, in the current set */
    int other_code;               /* rows left out: their variant's code changed (not a repeat) */
} sb_aa_tally;

typedef struct sb_compare_tally {
    int faster, slower, same, undetermined, failed, skipped, only_baseline, only_current;
    int work_differs;         /* rows whose two sides did different work: no call on time */
    int demoted;              /* calls the false-discovery control made undetermined */
    double expected_false;    /* false calls to expect among those kept */
    double log_ratio_sum;
    int ratios;
    sb_aa_tally aa[2];        /* SB_ROW_CPU, SB_ROW_GPU */
} sb_compare_tally;

enum { SB_COMPARE_MAX_WARNINGS = 32 };

typedef struct sb_compare_table {
    sb_compare_line *line;
    int count, cap;
    sb_compare_tally tally;
    const char *mode, *a, *b;
    double fdr;               /* the false-discovery rate of the calls */
    char floor_source[600];   /* where the floors came from (io/noise_floor.h) */
    char machine[96], date[40], commit[56];   /* where the comparison was made: this machine, when,
                                                  and the commit of the binary that made it */
    char warning[SB_COMPARE_MAX_WARNINGS][400];
    int nwarnings;
    sb_atomic_file json, csv;
    int have_json, have_csv;
    const sb_compare_line *printed;   /* the last line printed (for its algo/stage heading) */
} sb_compare_table;

/* Open the table; the export files (either may be NULL) are created now as
 * temporary files, so a bad path fails before any work. */
sb_status sb_compare_table_open(sb_compare_table *t, const char *mode, const char *a, const char *b, double fdr,
                                const char *json_path, const char *csv_path, sb_error *err);
/* Write the exports and rename them into place when st is SB_OK, else
 * remove them; free the table.  Returns st, or the export's error. */
sb_status sb_compare_table_close(sb_compare_table *t, sb_status st, sb_error *err);

/* A new line (kind JUDGED until the caller says otherwise), or NULL when out of memory. */
sb_compare_line *sb_compare_table_add(sb_compare_table *t, const char *algo, const char *stage, const char *label);
/* Judge a line from the two sides' round medians (copied) against the
 * floor (a ratio's distance from 1) and the user's smallest change that
 * matters (sb_effect_judge_min). */
sb_status sb_compare_line_judge(sb_compare_line *line, const double *a, int na, const double *b, int nb,
                                double floor, double min_diff, sb_error *err);
/* The same from paired rounds (ab --paired): a and b each round's
 * median a side, log_ratio each round's median log(B/A) over its pairs of
 * samples, the evidence (evidence.h, sb_effect_judge_paired). */
sb_status sb_compare_line_judge_paired(sb_compare_line *line, const double *a, const double *b, const double *log_ratio,
                                       int n, double floor, double min_diff, sb_error *err);

/* After judging: where both sides counted their work (io/rows.h's work)
 * and the counts differ, or varied between one side's rounds, the two
 * times are not of the same work: the call becomes "work differs" and the
 * note says how (issue 76: a row whose work differs says so instead of
 * "faster").  A side that counted none (an older file) is taken as is. */
void sb_compare_line_work(sb_compare_line *line, const char *work_a, int varies_a, const char *work_b, int varies_b);

void sb_compare_table_warn(sb_compare_table *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sb_compare_table_print_warnings(const sb_compare_table *t, FILE *fp);
void sb_compare_table_print_header(sb_compare_table *t, FILE *fp);
/* One line of the table (and its algo/stage heading when that changes). */
void sb_compare_table_print_line(sb_compare_table *t, sb_compare_line *line, FILE *fp);
/* Every line in: the false-discovery control over the calls (each call it
 * turns undetermined listed on fp), then the tally. */
void sb_compare_table_finish(sb_compare_table *t, FILE *fp);
/* One warning per noisy side (noise.h), after the table. */
void sb_compare_table_print_noise(const sb_compare_table *t, FILE *fp);
/* "B against A: faster on N, slower on N, same on N, undetermined on N
 * ...", the false calls to expect and the floors used. */
void sb_compare_table_print_verdict(const sb_compare_table *t, FILE *fp);
/* --baseline: the A/A lines, "CPU rows: N of M within 10 % ...". */
void sb_compare_table_print_aa(const sb_compare_table *t, FILE *fp);

#endif
