/* cmd_bench.c - `segbench bench` and `segbench check`: their options.
 * The run itself is bench/run/ (run.h): every selected variant on every
 * selected image, checked against the reference and (for bench) timed,
 * each row appended to results/<machine-id>/<algo>.csv as it is measured. */
#include "cli/commands.h"
#include "machine/energy.h"
#include "cases/select.h"
#include "machine/env.h"

#include "base/files.h"

#include "base/args.h"
#include "base/patterns.h"
#include "variants/names.h"
#include "run/run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- options ---------------------------------------------------------------------------- */

enum {
    OPT_SET, OPT_IMAGE, OPT_RECT, OPT_ALGO, OPT_VARIANT, OPT_STAGE, OPT_THREADS, OPT_SWEEP, OPT_MAX_PIXELS,
    OPT_MAX_MEMORY, OPT_BUDGET, OPT_MIN_REPS, OPT_MAX_REPS, OPT_NO_SIZE_CAPS, OPT_NO_FLUSH, OPT_RESUME, OPT_RESULTS,
    OPT_OVERWRITE, OPT_WAIT, OPT_REPORT, OPT_JSON, OPT_QUIET, OPT_ROUNDS, OPT_PIN, OPT_REPEAT, OPT_STREAM, OPT_STREAM_SECONDS, OPT_HOST_LIMIT,
    OPT_AHEAD,
    OPT_COUNT
};

#define BENCH_BUDGET_MS 100
#define SELECTION_OPTIONS                                                                                       \
    [OPT_SET] = { "set", "NAME", "default", "the image set datasets/sets/NAME.set" },                             \
    [OPT_IMAGE] = { "image", "FILE", NULL, "an image file instead of a set (repeat for more)" },                  \
    [OPT_RECT] = { "rect", "X,Y,W,H", "inset by a tenth of each side",                                          \
                   "GrabCut's rectangle on the --image files" },                                               \
    [OPT_ALGO] = { "algo", "PATTERNS", "all", "algorithms: comma list of shell patterns, e.g. kmeans,mean*" },        \
    [OPT_VARIANT] = { "variant", "PATTERNS", "all", "variants: comma list of shell patterns, e.g. 'cuda-*',cpu (students' rungs only by name: 'student-*')" },    \
    [OPT_STAGE] = { "stage", "PATTERNS", "all", "stages: comma list of shell patterns, e.g. filter,merge" },          \
    [OPT_THREADS] = { "threads", "LIST", "1,2,4,... and the core count", "thread counts of threaded variants" },   \
    [OPT_SWEEP] = { "sweep", "marked|all", "marked",                                                            \
                    "where threads are swept: the set's sweep image and first stage, or everywhere" },          \
    [OPT_MAX_PIXELS] = SB_OPTION_MAX_PIXELS,                                                                    \
    [OPT_MAX_MEMORY] = SB_OPTION_MAX_MEMORY,                                                                    \
    [OPT_QUIET] = { "quiet", NULL, NULL, "no progress line and no summary table" }

static const sb_option BENCH_OPTIONS[OPT_COUNT] = {
    SELECTION_OPTIONS,
    [OPT_BUDGET] = { "budget", "MS", SB_STR(BENCH_BUDGET_MS), "time to spend measuring each row (a budget under 50 ms also shortens the 20 ms warm-up to 2/5 of it)" },
    [OPT_MIN_REPS] = { "min-reps", "N", "10", "samples per row at least; a row slower than the budget takes 1" },
    [OPT_MAX_REPS] = { "max-reps", "N", "2000", "samples per row at most" },
    [OPT_ROUNDS] = { "rounds", "N", "3",
                     "host rows of one image and stage take turns in N rounds, each a share of the budget (1: one row at a time)" },
    [OPT_PIN] = { "pin", "on|off", "on", "host threads on fixed CPUs, one per core first (docs/measuring.md)" },
    [OPT_REPEAT] = { "repeat", "auto|on|off", "auto",
                     "at the end, measure the summary image's rows again and report how many repeat within 10 % "
                     "(auto: the rows that fit in 5 % of the run's time, the costliest left out first)" },
    [OPT_STREAM] = { "stream", "on|off|only", "on",
                     "stream rows: each algorithm's scenes through its top GPU rung (1-3 frames in flight; also a "
                     "branch off it that narrows its output or takes colour frames, beside the top from colour) and "
                     "the serial reference (a frame per core), to <algo>.stream.csv; only: those alone, no other file "
                     "touched" },
    [OPT_STREAM_SECONDS] = { "stream-seconds", "S", "1",
                             "each stream row's timed pass (make bench: 0.5; below 1 s the energy counters are not "
                             "read: their window)" },
    [OPT_HOST_LIMIT] = { "host-limit", "S", "none",
                         "leave out a CPU row (pthread, OpenMP; a CPU stream row) one run of which is predicted to "
                         "take over S seconds, from the serial reference's run on the image (make bench: 0.5; the "
                         "run of record: none)" },
    [OPT_AHEAD] = { "ahead", "auto|on|off", "auto",
                    "compute the next images' serial references on a spare core while the GPU rows are timed "
                    "(auto: on with a GPU and 4 cores or more; docs/measuring.md)" },
    [OPT_NO_SIZE_CAPS] = { "no-size-caps", NULL, NULL,
                           "also time images above an algorithm's bench size (mean-shift, GrabCut: 1920x1080)" },
    [OPT_NO_FLUSH] = { "no-flush", NULL, NULL, "keep the GPU's L2 warm between device runs (default: flushed)" },
    [OPT_RESUME] = { "resume", NULL, NULL, "finish the run in the results directory (same commit and options)" },
    [OPT_RESULTS] = { "results", "DIR", "results/<machine-id>",
                      "where the results go (a published set, results/published.txt: <machine-id>-local)" },
    [OPT_OVERWRITE] = { "overwrite", NULL, NULL, "write into a published result set, replacing its run (whole algorithms: no row of one left out)" },
    [OPT_REPORT] = { "report", NULL, NULL, "then write this run's report and report/MACHINES.md (what make bench does)" },
    [OPT_JSON] = { "json", NULL, NULL, "also write <algo>.json (rows with their samples) beside each CSV" },
    [OPT_WAIT] = { "wait", NULL, NULL, "when another bench is writing to the results folder, wait for it (default: exit 2)" },
};

static const sb_option CHECK_OPTIONS[OPT_COUNT] = { SELECTION_OPTIONS };

const sb_command sb_cmd_bench = {
    "bench", "[options]", "Check every selected variant against the serial reference, then time it; "
                          "write results/<machine-id>/.",
    "Rows go to <algo>.csv and their samples to <algo>.samples.csv as they are measured, so a\n"
    "stopped run keeps them and --resume finishes it.  A row whose spread or bandwidth looks\n"
    "wrong gets a warning line and a flag in the CSV's flags column.\n",
    BENCH_OPTIONS, OPT_COUNT, 0, SB_EXIT_AGREEMENT, cmd_bench,
};

const sb_command sb_cmd_check = {
    "check", "[options]", "Check every selected variant against the serial reference on every image; "
                          "time nothing, write nothing.",
    NULL, CHECK_OPTIONS, OPT_COUNT, 0, SB_EXIT_AGREEMENT, cmd_check,
};

/* Where the image options stand in the table above. */
static const sb_image_options IMAGE_OPTIONS = { OPT_SET, OPT_IMAGE, OPT_RECT, OPT_MAX_PIXELS, OPT_MAX_MEMORY };

static sb_status bench_parse(int argc, char **argv, sb_bench_opts *o, sb_error *err)
{
    sb_timing_defaults(&o->timing);
    o->timing.budget_ms = BENCH_BUDGET_MS;
    o->rounds = SB_ROUNDS;
    o->pin = 1;
    o->repeat = SB_REPEAT_AUTO;
    o->stream_seconds = SB_ENERGY_MIN_S;
    sb_optparse p;
    sb_optparse_begin(&p, o->check_only ? &sb_cmd_check : &sb_cmd_bench, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;) {
        const char *v = p.value;
        switch (opt) {
        case OPT_NO_SIZE_CAPS: o->no_size_caps = 1; break;
        case OPT_ALGO: o->algos = v; break;
        case OPT_VARIANT: o->variants = v; break;
        case OPT_STAGE: o->stages = v; break;
        case OPT_THREADS:
            st = sb_parse_int_list(v, 1, 1024, "--threads", o->threads, SB_RUN_THREAD_COUNTS, &o->nthreads, err);
            break;
        case OPT_SWEEP:
            if (strcmp(v, "all") == 0)
                o->sweep_all = 1;
            else if (strcmp(v, "marked") != 0)
                return sb_fail(err, SB_ERR_USAGE, "--sweep: '%s' is not 'marked' or 'all'", v);
            break;
        case OPT_BUDGET: st = sb_parse_double(v, 1.0, 600000.0, "--budget (ms)", &o->timing.budget_ms, err); break;
        case OPT_MIN_REPS: st = sb_parse_int(v, 1, 100000, "--min-reps", &o->timing.min_reps, err); break;
        case OPT_MAX_REPS: st = sb_parse_int(v, 1, 100000, "--max-reps", &o->timing.max_reps, err); break;
        case OPT_NO_FLUSH: o->timing.flush_l2 = 0; break;
        case OPT_ROUNDS: st = sb_parse_int(v, 1, SB_ROUNDS_MAX, "--rounds", &o->rounds, err); break;
        case OPT_PIN: st = sb_parse_choice(v, "--pin", (const char *const[]){ "off", "on", NULL }, &o->pin, err); break;
        case OPT_REPEAT:
            st = sb_parse_choice(v, "--repeat", (const char *const[]){ "auto", "on", "off", NULL }, &o->repeat, err);
            break;
        case OPT_STREAM:
            st = sb_parse_choice(v, "--stream", (const char *const[]){ "on", "off", "only", NULL }, &o->stream, err);
            break;
        case OPT_STREAM_SECONDS:
            st = sb_parse_double(v, 0.1, 600.0, "--stream-seconds", &o->stream_seconds, err);
            break;
        case OPT_AHEAD:
            st = sb_parse_choice(v, "--ahead", (const char *const[]){ "auto", "on", "off", NULL }, &o->ahead, err);
            break;
        case OPT_HOST_LIMIT: st = sb_parse_double(v, 0.0, 86400.0, "--host-limit (s)", &o->host_limit_s, err); break;
        case OPT_RESUME: o->resume = 1; break;
        case OPT_RESULTS: st = sb_dir_arg(v, "--results", err), o->results_dir = v; break;
        case OPT_JSON: o->json = 1; break;
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_WAIT: o->wait = 1; break;
        case OPT_OVERWRITE: o->overwrite = 1; break;
        case OPT_REPORT: o->report = 1; break;
        default:
            if (!sb_image_choice_option(&o->images, &IMAGE_OPTIONS, opt, v, &st, err))
                return sb_optparse_unexpected(&p);
            break;
        }
    }
    if (p.status || st)
        return p.status ? p.status : st;
    /* a row's warm-up is at most 2/5 of its budget: 20 ms from a budget of
     * 50 ms up, less below (a quick look, or a test on tiny images) */
    if (o->timing.warmup_ms > o->timing.budget_ms / 2.5)
        o->timing.warmup_ms = o->timing.budget_ms / 2.5;
    if (o->timing.max_reps < o->timing.min_reps)
        return sb_fail(err, SB_ERR_USAGE, "--max-reps %d is below --min-reps %d", o->timing.max_reps,
                       o->timing.min_reps);
    if (o->nthreads == 0)
        o->nthreads = sb_default_threads(o->threads, SB_RUN_THREAD_COUNTS);
    for (int i = 0, warned = 0; i < o->nthreads && !warned; i++)
        if (o->threads[i] > sb_usable_cores()) {
            sb_warn_oversubscribed("--threads", o->threads[i]);
            warned = 1;
        }
    const char *names[256];
    int n = sb_algo_names(names, 256);
    if ((st = sb_pattern_check(o->algos, names, n, "--algo", err)))
        return st;
    n = sb_variant_names(o->algos, names, 256);
    if ((st = sb_pattern_check(o->variants, names, n, "--variant", err)))
        return st;
    n = sb_stage_names(o->algos, names, 256);
    return sb_pattern_check(o->stages, names, n, "--stage", err);
}

static sb_status bench_main(int argc, char **argv, int check_only, sb_error *err)
{
    sb_bench_opts *o = calloc(1, sizeof *o);   /* large (its lists): on the heap, the command's own */
    if (!o)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory reading the options");
    o->check_only = check_only;
    sb_status st = bench_parse(argc, argv, o, err);
    if (!st)
        st = sb_bench_run(o, err);
    free(o);
    return st;
}

sb_status cmd_bench(int argc, char **argv, sb_error *err) { return bench_main(argc, argv, 0, err); }
sb_status cmd_check(int argc, char **argv, sb_error *err) { return bench_main(argc, argv, 1, err); }
