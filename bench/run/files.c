/* files.c - the run's record (env.json's content, which the record
 * reporter writes after every change) and each algorithm's outputs begun
 * (a resumed run's files repaired as it starts) and ended. */
#include "run/state.h"

#include "base/args.h"
#include "base/patterns.h"

#include "segbench/clock.h"

#include <stdlib.h>
#include <string.h>

/* The options that shape every timing; a resumed run must share them. */
static void run_timing_options(const sb_bench_opts *o, const char *set, char *out, size_t size)
{
    char threads[128] = "";
    for (int i = 0, n = 0; i < o->nthreads; i++)
        n += snprintf(threads + n, sizeof threads - (size_t)n, "%s%d", i ? "," : "", o->threads[i]);
    snprintf(out, size, "set=%s budget=%g min_reps=%d max_reps=%d threads=%s sweep=%s l2_flush=%d rounds=%d pin=%s "
             "stream_s=%g host_limit=%g ahead=%s",
             set, o->timing.budget_ms, o->timing.min_reps, o->timing.max_reps, threads, o->sweep_all ? "all" : "marked",
             o->timing.flush_l2, o->rounds, o->pin ? "on" : "off", o->stream_seconds, o->host_limit_s,
             (const char *const[]){ "auto", "on", "off" }[o->ahead]);
}

/* The run record changed: its time so far, then to the reporters
 * (reporters/record.c writes env.json). */
sb_status run_write_env(bench_run *r, sb_error *err)
{
    r->env.run_seconds = r->seconds_before + (sb_clock_ms() - r->begun_ms) / 1000.0;
    return sb_reporters_record(&r->out, &r->env, err);
}

/* The machine and build this run is on (env.json's first part) and the
 * options that shape its timings. */
void run_record_machine(bench_run *r)
{
    const sb_bench_opts *o = r->o;
    sb_env_collect(&r->env, 0, o->threads, o->nthreads);
    snprintf(r->env.set, sizeof r->env.set, "%s", r->ds.name);
    r->env.l2_flush = o->timing.flush_l2;
    run_timing_options(o, r->ds.name, r->env.run_options, sizeof r->env.run_options);
}

/* Its bandwidth ceilings, once the results folder is the run's. */
void run_record_ceilings(bench_run *r)
{
    sb_env_measure(&r->env, r->o->threads, r->o->nthreads);
}

/* Who the run is: a new run id, or the resumed run's id and algorithms. */
void run_record_identity(bench_run *r, const char *run_id, const char *algos)
{
    snprintf(r->env.run_id, sizeof r->env.run_id, "%s", run_id);
    if (algos)
        snprintf(r->env.run_algos, sizeof r->env.run_algos, "%s", algos);
}

/* The algorithms with rows in this invocation, added to run_algos. */
void run_record_algos(bench_run *r)
{
    for (int i = 0; i < sb_algo_count(); i++) {
        const char *name = sb_algo_at(i)->name;
        if (!sb_pattern_match(r->o->algos, name) || sb_in_list(r->env.run_algos[0] ? r->env.run_algos : "", name))
            continue;
        size_t n = strlen(r->env.run_algos);
        snprintf(r->env.run_algos + n, sizeof r->env.run_algos - n, "%s%s", n ? "," : "", name);
    }
}

/* The run record's changes (env.json's run part), each rewriting it. */
sb_status run_record_planned(bench_run *r, int present, sb_error *err)
{
    r->env.rows_planned = present + r->total;
    r->env.rows_done = present;
    return run_write_env(r, err);
}

sb_status run_record_row(bench_run *r, sb_error *err)
{
    r->env.rows_done++;
    return run_write_env(r, err);
}

void run_record_repeatability(bench_run *r, const char *line, const int cpu[2], const int gpu[2])
{
    snprintf(r->env.repeatability, sizeof r->env.repeatability, "%s", line);
    memcpy(r->env.repeat_cpu, cpu, sizeof r->env.repeat_cpu);
    memcpy(r->env.repeat_gpu, gpu, sizeof r->env.repeat_gpu);
}

sb_status run_record_finished(bench_run *r, char *line, size_t line_size, sb_error *err)
{
    run_account_text(r, line, line_size, r->env.time_spent, sizeof r->env.time_spent);
    r->env.run_finished = 1;
    return run_write_env(r, err);
}

/* The rows this run measured before (--resume) of an algorithm, into
 * done (empty when there are none); their count. */
int run_done_rows_load(const bench_run *r, const sb_algo *algo, sb_rows *done)
{
    char path[SB_PATH_MAX];
    sb_error too_long;            /* the run's own paths were checked as it started */
    memset(done, 0, sizeof *done);
    if (!r->o->resume || sb_path(path, &too_long, "%s/%s.csv", r->results_dir, algo->name) != SB_OK ||
        !run_csv_is_this_run(path, r->env.run_id, done))
        return 0;
    return done->count;
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

/* A resumed run's files, as it starts: each chosen algorithm's rows and
 * samples of this run kept, what a kill or a full disk left half-done
 * dropped, to be measured again -- before the plan is made from them. */
sb_status run_repair_resumed(bench_run *r, sb_error *err)
{
    sb_status st = SB_OK;
    for (int i = 0; i < sb_algo_count() && !st && r->o->resume && r->pipe->keeps; i++) {
        const sb_algo *algo = sb_algo_at(i);
        char path[SB_PATH_MAX], samples[SB_PATH_MAX];
        if (!sb_pattern_match(r->o->algos, algo->name))
            continue;
        if ((st = sb_path(path, err, "%s/%s.csv", r->results_dir, algo->name)) ||
            (st = sb_path(samples, err, "%s/%s.samples.csv", r->results_dir, algo->name)))
            break;
        sb_rows rows;
        if (!run_csv_is_this_run(path, r->env.run_id, &rows))
            continue;
        sb_rows_free(&rows);
        sb_repair fixed;
        if ((st = sb_results_repair(path, samples, r->env.run_id, &rows, &fixed, err)))
            break;
        sb_rows_free(&rows);
        if (fixed.rows_dropped || fixed.lines_dropped)
            fprintf(stderr, "%s: %d row(s) without all their samples and %d sample line(s) of no row dropped; "
                            "they are measured again\n", algo->name, fixed.rows_dropped, fixed.lines_dropped);
    }
    return st;
}

/* Begin the algorithm's outputs.  A resumed run keeps what this run
 * already wrote (repaired as it started: run_repair_resumed); otherwise
 * the algorithm's files start afresh.  The console alone in a check. */
sb_status run_open_logs(bench_run *r, const sb_algo *algo, sb_error *err)
{
    if (!r->pipe->keeps)
        return sb_reporters_begin(&r->out, algo, 0, err);
    char path[SB_PATH_MAX];
    sb_status st;
    if ((st = sb_path(path, err, "%s/%s.csv", r->results_dir, algo->name)))
        return st;
    sb_rows rows;
    int keep = r->o->resume && run_csv_is_this_run(path, r->env.run_id, &rows);
    if (keep)
        sb_rows_free(&rows);
    return sb_reporters_begin(&r->out, algo, keep, err);
}

/* End the algorithm's outputs (algo NULL: the run stopped between
 * algorithms, or in one: nothing finished). */
sb_status run_close_logs(bench_run *r, const sb_algo *algo, const sb_rows *measured, int finished, sb_error *err)
{
    sb_error ignored;
    return sb_reporters_end(&r->out, algo, measured, finished && algo, err ? err : &ignored);
}
