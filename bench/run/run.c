/* run.c - a bench or check run from start to end (run.h), each step in
 * the order its data flows: the images and the machine, the results
 * folder, the plan, the files and the first lines, every algorithm, the
 * closing account, then (--report) the report. */
#define _GNU_SOURCE            /* CPU_SETSIZE */
#include "run/state.h"
#include "segbench/atomic_file.h"

#include "base/args.h"
#include "base/patterns.h"
#include "compare/noise.h"
#include "machine/energy.h"
#include "machine/host_noise.h"
#include "io/catalogue.h"
#include "pages/report.h"

#include "segbench/clock.h"
#include "segbench/device.h"
#include "segbench/placement.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The run's images and this machine's fingerprint; the commit each row
 * will carry and the options that shape its timings. */
static sb_status run_begin(bench_run *r, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    sb_status st = sb_image_choice_load(&o->images, "default", &r->ds, err);
    if (st)
        return st;
    run_record_machine(r);
    sb_placement_enable(o->pin);
    /* each CPU's best speed in each team of the thread counts, the bound
     * its rows are held to (host_noise.h) */
    int cpus[CPU_SETSIZE];                 /* 4 KB: the stack (a static would be shared by every caller) */
    for (int t = 0; t < o->nthreads && r->pipe->times; t++) {
        int ncpus = sb_rounds_cpus(o->threads[t], cpus, CPU_SETSIZE);
        for (int i = 0; i < 3 && ncpus > 0; i++)
            sb_host_slowdown(r->probes, cpus, ncpus);
    }
    r->timing = o->timing;
    r->timing.probes = r->pipe->times ? r->probes : NULL;   /* check times nothing: nothing to flag */
    r->timing.pairing = r->pipe->times && r->pairing.on ? &r->pairing : NULL;
    r->timing.rounds = o->rounds;          /* a device row's rounds, as the host rows' interleaving */
    snprintf(r->timing.gpu_uuid, sizeof r->timing.gpu_uuid, "%s", r->env.device.uuid);
    snprintf(r->row_commit, sizeof r->row_commit, "%s%s", r->env.commit, r->env.dirty == 1 ? "-dirty" : "");
    return SB_OK;
}

/* The gallery and catalogue, then env.json marked unfinished (rows written
 * as the run goes describe this machine and build, and a stopped run says
 * so), then the run's first lines.  present: rows measured before. */
static sb_status run_announce(bench_run *r, int present, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    sb_status st;
    if ((st = sb_reporters_run_begin(&r->out, o->algos, err)))
        return st;
    run_record_algos(r);
    if ((st = run_record_planned(r, present, err)))
        return st;
    fprintf(stderr, "machine %s; dataset %s (%d images); run %s: %d rows to measure%s; results to %s/\n",
            r->env.machine_id, r->ds.name, r->ds.count, r->env.run_id, r->total,
            present ? " (the rest measured before)" : "", r->results_dir);
    if (r->env.device_copy_gbps > 0)
        fprintf(stderr, "device copy %.0f GB/s (read + write); ", r->env.device_copy_gbps);
    if (r->env.bus.to_device > 0)
        fprintf(stderr, "bus %.1f GB/s to the device, %.1f to the host, %.1f both at once; ", r->env.bus.to_device,
                r->env.bus.to_host, r->env.bus.both);
    fprintf(stderr, "host memcpy %.1f GB/s at 1 thread, %.1f GB/s at %d\n", sb_env_host_peak(&r->env, 1),
            sb_env_host_peak(&r->env, 1 << 30), o->threads[o->nthreads - 1]);
    return SB_OK;
}

/* The end of the rows: env.json finished with the time account, and what
 * the run skipped, flagged and failed, each in one line. */
static sb_status run_finish(bench_run *r, sb_error *err)
{
    sb_status st = SB_OK;
    if (r->pipe->keeps) {
        char line[1600];
        st = run_record_finished(r, line, sizeof line, err);
        if (!st)
            fprintf(stderr, "wrote %s/ (env.json, <algo>.csv, <algo>.samples.csv%s, gallery/) in %.0f s\n%s\n",
                    r->results_dir, sb_reporters_stream_files(&r->out) ? ", <algo>.stream.csv" : "",
                    (sb_clock_ms() - r->started_ms) / 1000.0, line);
    }
    if (st)
        return st;
    if (r->skipped)
        fprintf(stderr, "%d row(s) skipped: too little free GPU memory\n", r->skipped);
    if (r->host_left_out)
        fprintf(stderr, "%d CPU row(s) left to the run of record: one run of each predicted over --host-limit %g s "
                        "(make bench RECORD=1 measures them)\n", r->host_left_out, r->o->host_limit_s);
    if (r->pairs_skipped)
        fprintf(stderr, "%d (image, stage) pair(s) skipped: the stage cannot take the image (the lines above say "
                        "why)\n", r->pairs_skipped);
    if (r->noisy)
        fprintf(stderr, "%d row(s) flagged noisy (the warnings above; the CSV's flags column says which)\n",
                r->noisy);
    if (r->failures) {
        fprintf(stderr, "%d row(s) broke their agreement contract%s:\n", r->failures,
                r->errors ? " or failed to run" : "");
        for (int i = 0; i < r->failures && i < RUN_FAILURES_KEPT; i++)
            fprintf(stderr, "  %s\n", r->failed[i]);
        st = sb_fail(err, SB_ERR_AGREEMENT, "%d row(s) marked FAIL", r->failures);
    }
    return st;
}

/* Everything the run holds, let go; then (--report) the report on it,
 * FAIL rows included. */
static sb_status run_close(bench_run *r, sb_status st, sb_error *err)
{
    run_close_logs(r, NULL, NULL, 0, NULL);     /* a run stopped in an algorithm: its outputs closed */
    sb_reporters_run_end(&r->out);
    sb_device_stream_destroy(r->stream);
    run_plan_free(r);
    sb_dataset_free(&r->ds);
    run_release_folder(r);
    if (r->o->report && r->pipe->keeps && (st == SB_OK || st == SB_ERR_AGREEMENT)) {
        sb_error report_err = { SB_OK, "" };
        double t0 = sb_clock_ms();
        sb_status rst = sb_report_result_set(r->results_dir, NULL, NULL, &report_err);
        if (!rst)
            fprintf(stderr, "the report took %.0f s\n", (sb_clock_ms() - t0) / 1e3);
        if (rst && !st) {
            st = rst;
            *err = report_err;
        } else if (rst) {
            fprintf(stderr, "segbench report: %s\n", report_err.msg);
        }
    }
    return st;
}

/* The run's rows go to the console and, in a bench, to the files
 * (reporters/). */
static void run_reporters(bench_run *r)
{
    const sb_bench_opts *o = r->o;
    sb_reporters_config out = { .files = r->pipe->keeps,
                                .census = r->env.device.present && r->env.device.has_image,
                                .json = o->json,
                                .quiet = o->quiet };
    sb_reporters_init(&r->out, &out, r->results_dir);
}

/* bench --stream only: the stream rows alone, into <algo>.stream.csv; no
 * other file of the results folder is touched (its rows, env.json and
 * report stay the run's that made them). */
static sb_status run_streams_only(bench_run *r, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    sb_status st = run_start(r, err);
    if (st)
        return st;
    run_reporters(r);
    fprintf(stderr, "machine %s; dataset %s (%d scenes); run %s: stream rows only, to %s/<algo>.stream.csv\n",
            r->env.machine_id, r->ds.name, r->ds.nsequences, r->env.run_id, r->results_dir);
    if (r->ds.nsequences == 0)
        fprintf(stderr, "dataset %s has no scene: no stream rows (a 'scene WxH' line in its .set file)\n",
                r->ds.name);
    r->started_ms = sb_clock_ms();
    sb_energy_open(r->env.device.present && r->env.device.has_image ? r->env.device.uuid : NULL);
    for (int i = 0; i < sb_algo_count() && !st; i++)
        if (sb_pattern_match(o->algos, sb_algo_at(i)->name))
            st = run_streams(r, sb_algo_at(i), err);
    if (!st && r->failures)
        st = sb_fail(err, SB_ERR_AGREEMENT, "%d stream row(s) marked FAIL", r->failures);
    sb_dataset_free(&r->ds);
    run_release_folder(r);
    return st;
}

/* Every chosen algorithm through the pipeline's steps: its rows, then
 * (bench) its stream rows. */
static sb_status run_algos(bench_run *r, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    sb_status st = SB_OK;
    r->started_ms = sb_clock_ms();
    for (int i = 0; i < sb_algo_count() && !st; i++) {
        const sb_algo *algo = sb_algo_at(i);
        if (!sb_pattern_match(o->algos, algo->name))
            continue;
        double t0 = sb_clock_ms();
        if (o->stream != SB_STREAM_ONLY)
            st = run_algo(r, algo, err);
        double t1 = sb_clock_ms();
        if (!st && r->pipe->keeps && o->stream != SB_STREAM_OFF)
            st = run_streams(r, algo, err);
        run_frames_ahead_drop(r);
        run_account_algo(r, algo->name, t1 - t0, sb_clock_ms() - t1);
    }
    return st;
}

/* segbench check: every planned row checked against its case's
 * reference, a line each; no results folder, no timing. */
static sb_status check_pipeline(bench_run *r, sb_error *err)
{
    run_reporters(r);
    sb_status st = run_plan_all(r, err);
    if (st)
        return run_close(r, st, err);
    if (r->env.device.present && r->env.device.has_image && (st = sb_device_stream_create(&r->stream, err)))
        return run_close(r, st, err);
    run_report_unavailable(r->o);
    st = run_algos(r, err);
    if (!st)
        st = run_finish(r, err);
    return run_close(r, st, err);
}

/* segbench bench: the results folder begun (or resumed), every planned
 * row checked and timed, the stream rows, the re-measure of the summary
 * rows, env.json finished. */
static sb_status bench_pipeline(bench_run *r, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    if (o->stream == SB_STREAM_ONLY)
        return run_streams_only(r, err);
    sb_status st = run_start(r, err);
    if (st)
        return run_close(r, st, err);
    run_reporters(r);
    if ((st = run_repair_resumed(r, err)) || (st = run_plan_all(r, err)))
        return run_close(r, st, err);
    int present = r->plan.present;             /* rows measured before (--resume) */
    if (r->env.device.present && r->env.device.has_image && (st = sb_device_stream_create(&r->stream, err)))
        return run_close(r, st, err);
    if ((st = run_announce(r, present, err)))
        return run_close(r, st, err);
    run_report_unavailable(o);
    char governor[64];
    if (sb_noise_governor(governor, sizeof governor))
        fprintf(stderr, "warning: the CPU frequency governor is '%s', not 'performance': CPU rows may run at "
                        "changing clocks and are flagged 'governor' (cpupower frequency-set -g performance)\n",
                governor);
    if (o->stream != SB_STREAM_OFF)
        sb_energy_open(r->env.device.present && r->env.device.has_image ? r->env.device.uuid : NULL);
    st = run_algos(r, err);
    if (!st && o->stream != SB_STREAM_ONLY)
        st = run_repeat(r, err);
    if (!st)
        st = run_finish(r, err);
    return run_close(r, st, err);
}

/* The two pipelines over the same steps: what each does with them. */
static const run_pipeline BENCH_PIPELINE = { .name = "bench", .times = 1, .keeps = 1 };
static const run_pipeline CHECK_PIPELINE = { .name = "check", .times = 0, .keeps = 0 };

const run_pipeline *run_pipeline_for(const sb_bench_opts *o)
{
    return o->check_only ? &CHECK_PIPELINE : &BENCH_PIPELINE;
}

static sb_status bench_run_all(bench_run *r, sb_error *err)
{
    sb_status st = run_begin(r, err);
    if (st)
        return st;
    return r->pipe->keeps ? bench_pipeline(r, err) : check_pipeline(r, err);
}

sb_status sb_bench_run(const sb_bench_opts *o, sb_error *err)
{
    bench_run *r = calloc(1, sizeof *r);     /* large: the heap, not the stack */
    if (!r)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory for the run's state");
    r->o = o;
    r->pipe = run_pipeline_for(o);
    r->tty = isatty(2);
    r->begun_ms = sb_clock_ms();
    run_hold_no_folder(r);                   /* start.c takes the folder's lock */
    /* paired, the second side waits here, doing nothing, for the first's first sample */
    sb_status st = sb_paired_begin(&r->pairing, err);
    if (st) {
        free(r);
        return st;
    }
    r->probes = sb_host_probes_new();
    r->memo = r->probes ? sb_case_memo_new(r->pipe->times ? r->probes : NULL) : NULL;
    st = r->memo ? bench_run_all(r, err) : sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_paired_end(&r->pairing);           /* the partner runs on alone */
    sb_case_memo_free(r->memo);              /* after every case: run_close closed them */
    sb_host_probes_free(r->probes);
    free(r);
    return st;
}

