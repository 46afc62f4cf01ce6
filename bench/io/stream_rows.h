/* stream_rows.h - results/<machine>/<algo>.stream.csv: bench's stream rows
 * (measure/stream.h), one per (stage, variant, threads, frames in flight,
 * sequence), written whole at the end of each algorithm's stream rows.
 *
 * Joules are per frame over the timed pass; idle watts are the machine's
 * at rest, measured once per run, so a reader can take energy above idle
 * as j_per_frame - idle_w / fps.  A column with no reading is empty, and
 * energy_note says why ("n/a: this host exposes no RAPL ...").  `runs`
 * says how a GPU row's frames shared the GPU (measure/stream.h): files
 * written before it (35 columns) read as "overlap", which they were.
 * `source` is "colour" where the frames came in colour to an algorithm
 * that takes their grey (measure/stream.h), else empty, as in files
 * written before it (36 columns); host_ms is then the host's part of a
 * frame, making its grey (0 where the GPU makes it).  copies_fps and
 * kernels_fps are a GPU row's engines alone with its K in flight, the
 * bound the lower (measure/stream.h, step 3): 0 in a host row's, and in
 * files written before them (38 columns), whose GPU bound was one frame's
 * slowest part alone -- a bound that kernels running at once beat.
 * start, work_key and work_per_frame: cold or warm frames (stream --warm)
 * and the work each took (k-means' passes), empty in files before them
 * (40 columns). */
#ifndef SEGBENCH_STREAM_ROWS_H
#define SEGBENCH_STREAM_ROWS_H

#include "segbench/error.h"

#include <stdio.h>

typedef struct sb_stream_row {
    char algo[32], stage[32], variant[48], backend[32];
    int threads, in_flight;
    char sequence[128];
    int width, height;
    int frames, distinct, checked;
    double fps, seconds;
    double p50_ms, p99_ms, max_ms;
    double upload_ms, run_ms, fetch_ms;
    double bound_fps, bound_fraction;
    char bound_by[16];
    double gpu_j, gpu_idle_w, cpu_j, cpu_idle_w;   /* per frame; watts; < 0: none */
    char energy_note[200];
    char agreement[16], metric[240];
    char commit[64], date[32], run_id[48];
    double spread;           /* the largest |a third's rate / the whole's - 1| */
    char flags[48];          /* "unstable", "few" (';'-separated), or "" */
    char runs[12];           /* GPU: "overlap" (frames' runs free) or "in-turn"; "" for a host row */
    char source[12];         /* "colour": colour frames to a grey algorithm; "": its own format */
    double host_ms;          /* colour frames: the host's part of a frame alone (its grey) */
    double copies_fps, kernels_fps;   /* a GPU row's engines alone, K in flight; 0: not measured */
    char start[8];           /* "warm": each frame from the result of the frame K before it;
                                "chained": from the frame just before it, taken on the device (runs
                                in turn); "cold" (or "", files before the column): each from the
                                algorithm's init */
    char work_key[16];       /* what work_per_frame counts ("passes"), "" where nothing */
    double work_per_frame;   /* the distinct frames' mean work, from their references */
} sb_stream_row;

/* " from colour" for a row whose frames came in colour, else "". */
const char *sb_stream_source_note(const sb_stream_row *r);

/* ", runs in turn" for a row whose frames' runs took turns, else "": the
 * words a table puts after "K in flight". */
const char *sb_stream_runs_note(const sb_stream_row *r);

/* A row's bound as a table cell: "-" without one, "83 % (kernels)", or,
 * where its rate beat it (the noise of the passes that measured it, or a
 * file from before the bound held), "beaten by 12 % (run)": never a
 * percentage of a bound above 100.  A CPU row's ("cpus") is no bound but
 * perfect scaling, "96 % of perfect scaling": K frames side by side can
 * run faster each than one alone (a core's clock, its caches). */
void sb_stream_bound_cell(const sb_stream_row *r, char *out, size_t size);

extern const char *const SB_STREAM_CSV_HEADER;

void sb_stream_row_put_csv(FILE *fp, const sb_stream_row *r);
/* The rows of one file into *rows (malloc'd, *count of them); a missing
 * file is no rows. */
sb_status sb_stream_rows_read(const char *path, sb_stream_row **rows, int *count, sb_error *err);
/* Write rows[0..n) as the whole file, atomically. */
sb_status sb_stream_rows_write(const char *path, const sb_stream_row *rows, int n, sb_error *err);

#endif
