/* files.c - the files of a run: env.json (rewritten after every row), each
 * algorithm's append logs (rows, samples, quality, kernel census; kept
 * by --resume, started afresh otherwise) and --json's <algo>.json. */
#include "run/state.h"


#include "segbench/clock.h"

#include <stdlib.h>
#include <string.h>

/* env.json: rewritten as the run starts, after every row (so rows_measured
 * is true whatever stops the run) and as it ends. */
sb_status run_write_env(bench_run *r, sb_error *err)
{
    char path[SB_PATH_MAX];
    r->env.run_seconds = r->seconds_before + (sb_clock_ms() - r->begun_ms) / 1000.0;
    sb_status st = sb_path(path, err, "%s/env.json", r->results_dir);
    return st ? st : sb_env_write_json(&r->env, path, err);
}

/* Do all rows of the algorithm's CSV belong to this run (or is it empty)? */
int run_csv_is_this_run(const char *path, const char *run_id, sb_rows *rows)
{
    sb_error ignored;
    if (sb_rows_read_csv(path, rows, &ignored) != SB_OK)
        return 0;
    for (int i = 0; i < rows->count; i++)
        if (strcmp(rows->row[i].run_id, run_id) != 0) {
            sb_rows_free(rows);
            return 0;
        }
    return 1;
}

/* Begin the algorithm's outputs.  A resumed run keeps what this run
 * already wrote (what a kill or a full disk left half-done dropped, to be
 * measured again); otherwise the algorithm's files start afresh.  The
 * console alone in a check. */
sb_status run_open_logs(bench_run *r, const sb_algo *algo, sb_error *err)
{
    if (!r->pipe->keeps)
        return sb_reporters_begin(&r->out, algo, 0, err);
    char path[SB_PATH_MAX];
    char samples[SB_PATH_MAX];
    sb_status st;
    if ((st = sb_path(path, err, "%s/%s.csv", r->results_dir, algo->name)) ||
        (st = sb_path(samples, err, "%s/%s.samples.csv", r->results_dir, algo->name)))
        return st;
    int keep = r->o->resume && run_csv_is_this_run(path, r->env.run_id, &r->done_rows);
    if (keep) {
        sb_repair fixed;
        sb_rows_free(&r->done_rows);
        if ((st = sb_results_repair(path, samples, r->env.run_id, &r->done_rows, &fixed, err)))
            return st;
        if (fixed.rows_dropped || fixed.lines_dropped)
            fprintf(stderr, "%s: %d row(s) without all their samples and %d sample line(s) of no row dropped; "
                            "they are measured again\n", algo->name, fixed.rows_dropped, fixed.lines_dropped);
    }
    if (!keep && r->have_gallery)
        sb_gallery_index_drop_algo(&r->gallery, algo->name);
    return sb_reporters_begin(&r->out, algo, keep, err);
}

/* End the algorithm's outputs (algo NULL: the run stopped between
 * algorithms, or in one: nothing finished). */
sb_status run_close_logs(bench_run *r, const sb_algo *algo, int finished, sb_error *err)
{
    sb_error ignored;
    sb_status st = sb_reporters_end(&r->out, algo, finished && algo, err ? err : &ignored);
    sb_rows_free(&r->done_rows);
    return st;
}
