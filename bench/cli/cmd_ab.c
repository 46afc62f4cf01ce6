/* cmd_ab.c - `segbench ab` and `segbench noise`: their options.  The work
 * is bench/compare/ab.c: two builds (or one, twice) round by round, each
 * round a fresh process of `segbench bench`, given the options below that
 * choose and time the rows. */
#include "cli/commands.h"

#include "base/args.h"
#include "base/files.h"
#include "compare/ab.h"
#include "measure/evidence.h"

#include <stdio.h>
#include <string.h>

enum {
    /* ab's and noise's own */
    OPT_BASELINE_BUILD, OPT_ROUNDS, OPT_WORK, OPT_FLOOR, OPT_OUT, OPT_MIN_DIFF, OPT_FDR, OPT_FAIL_ON_SLOWER,
    OPT_EXPORT_CSV, OPT_EXPORT_JSON, OPT_QUIET, OPT_RESUME, OPT_SPELL_ROUNDS, OPT_KEEP_SPELLS, OPT_PAIRED,
    OPT_PAIRED_SAMPLES,
    /* given to every bench as they are */
    OPT_SET, OPT_IMAGE, OPT_RECT, OPT_ALGO, OPT_VARIANT, OPT_STAGE, OPT_THREADS, OPT_SWEEP, OPT_BUDGET,
    OPT_MIN_REPS, OPT_MAX_REPS, OPT_NO_FLUSH, OPT_PIN, OPT_HOST_LIMIT, OPT_NO_SIZE_CAPS, OPT_MAX_MEMORY,
    OPT_COUNT
};
enum { FIRST_BENCH_OPTION = OPT_SET };

#define BENCH_OPTIONS                                                                                          \
    [OPT_SET] = { "set", "NAME", "default", "the image set (bench's --set)" },                                  \
    [OPT_IMAGE] = { "image", "FILE", NULL, "an image file instead of a set (repeat for more)" },               \
    [OPT_RECT] = { "rect", "X,Y,W,H", NULL, "GrabCut's rectangle on the --image files" },                      \
    [OPT_ALGO] = { "algo", "PATTERNS", "all", "the algorithms" },                                              \
    [OPT_VARIANT] = { "variant", "PATTERNS", "all", "the variants" },                                          \
    [OPT_STAGE] = { "stage", "PATTERNS", "all", "the stages" },                                                \
    [OPT_THREADS] = { "threads", "LIST", "bench's", "thread counts of threaded variants" },                    \
    [OPT_SWEEP] = { "sweep", "marked|all", "marked", "where threads are swept" },                              \
    [OPT_BUDGET] = { "budget", "MS", "100", "time to measure each row, in each round" },                       \
    [OPT_MIN_REPS] = { "min-reps", "N", "10", "samples per row at least" },                                    \
    [OPT_MAX_REPS] = { "max-reps", "N", "2000", "samples per row at most" },                                   \
    [OPT_NO_FLUSH] = { "no-flush", NULL, NULL, "keep the GPU's L2 warm between device runs" },                 \
    [OPT_PIN] = { "pin", "on|off", "on", "host threads on fixed CPUs" },                                       \
    [OPT_HOST_LIMIT] = { "host-limit", "S", "none", "leave out CPU rows predicted over S seconds a run" },      \
    [OPT_NO_SIZE_CAPS] = { "no-size-caps", NULL, NULL, "also time images above an algorithm's bench size" },   \
    [OPT_MAX_MEMORY] = { "max-memory", "SIZE", "3/4 of the RAM", "skip an image whose estimated need is larger" }

#define SPELL_OPTION                                                                                           \
    [OPT_SPELL_ROUNDS] = { "spell-rounds", "N", "--rounds",                                                   \
                           "more rounds a side at most, while a CPU row has fewer than --rounds outside "     \
                           "a busy host's spells (its cache probe slow; 0: none)" },                        \
    [OPT_KEEP_SPELLS] = { "keep-spells", NULL, NULL, "every round is evidence, a CPU row's in a spell too" },  \
    [OPT_PAIRED] = { "paired", NULL, NULL,                                                                \
                       "both sides at once, a sample each in turns: a CPU row judged by its pairs of "       \
                       "samples (floors: noise --paired)" },                                              \
    [OPT_PAIRED_SAMPLES] = { "paired-samples", "N", SB_STR(SB_AB_PAIRED_SAMPLES),                      \
                               "paired, a CPU row's samples a round (2 to 2000)" }

static const sb_option AB_OPTIONS[OPT_COUNT] = {
    [OPT_BASELINE_BUILD] = { "baseline-build", "DIR", NULL,
                             "the build to compare with: a checkout holding build/segbench, or a segbench binary" },
    [OPT_ROUNDS] = { "rounds", "N", SB_STR(SB_AB_ROUNDS), "rounds a side, each a fresh process (2 to 100)" },
    [OPT_WORK] = { "work", "DIR", "results/ab", "where each round's result set and log go (emptied of an earlier ab's)" },
    [OPT_FLOOR] = { "floor", "FILE", "results/<machine>/noise.csv, else the defaults", "the noise floors to judge by" },
    [OPT_MIN_DIFF] = { "min-diff", "F", "the noise floor", "the smallest ratio change that matters (0.05: 5 %)" },
    [OPT_FDR] = { "fdr", "Q", "0.05", "the false-discovery rate the calls are held to" },
    [OPT_FAIL_ON_SLOWER] = { "fail-on-slower", NULL, NULL, "exit 3 when this build is slower on any row" },
    [OPT_EXPORT_CSV] = { "export-csv", "FILE", NULL, "every row with its rounds, ratio, interval, floor, call" },
    [OPT_EXPORT_JSON] = { "export-json", "FILE", NULL, "the same as JSON" },
    [OPT_QUIET] = { "quiet", NULL, NULL, "no progress line" },
    [OPT_RESUME] = { "resume", NULL, NULL, "keep --work's finished rounds (begun with these options) and run the rest" },
    SPELL_OPTION,
    BENCH_OPTIONS,
};

static const sb_option NOISE_OPTIONS[OPT_COUNT] = {
    [OPT_ROUNDS] = { "rounds", "N", SB_STR(SB_AB_ROUNDS), "rounds a side, each a fresh process (2 to 100)" },
    [OPT_WORK] = { "work", "DIR", "results/aa", "where each round's result set and log go (emptied of an earlier one's)" },
    [OPT_OUT] = { "out", "FILE", "results/<machine>/noise.csv (noise-paired.csv)", "where the floors go" },
    [OPT_QUIET] = { "quiet", NULL, NULL, "no progress line" },
    [OPT_RESUME] = { "resume", NULL, NULL, "keep --work's finished rounds (begun with these options) and run the rest" },
    SPELL_OPTION,
    BENCH_OPTIONS,
};

const sb_command sb_cmd_ab = {
    "ab", "--baseline-build DIR [options]",
    "Is this build faster than another?  Both bench the same rows in turns, each round a fresh process.",
    "Round by round, A B then B A, each `segbench bench --rounds 1` in a process of its own;\n"
    "each row's medians over the rounds are its evidence, judged as compare judges them\n"
    "(faster, slower, same or undetermined, against this machine's noise floor).  Build\n"
    "the baseline first: git worktree add ../main main && make -C ../main.\n"
    "  segbench ab --baseline-build ../main --algo kmeans --variant 'cuda-*' --rounds 10\n",
    AB_OPTIONS, OPT_COUNT, 0,
    "0 success; 1 a variant broke its agreement contract; 2 usage or input error; 3 this build slower on some row\n"
    "             (with --fail-on-slower); 130 interrupted",
    cmd_ab,
};

const sb_command sb_cmd_noise = {
    "noise", "[options]",
    "This machine's noise floor: an A/A of this build against itself, round by round, into noise.csv.",
    "Each class of rows (GPU rows; CPU rows at each thread count) gets the 99th percentile of\n"
    "|log B/A| between the rounds of two sides that run the same code: a change smaller than\n"
    "that is not one compare or ab can tell from the machine.  Choose the rows you compare.\n"
    "  segbench noise --set smoke --rounds 10\n",
    NOISE_OPTIONS, OPT_COUNT, 0, NULL, cmd_noise,
};

static sb_status ab_parse(const sb_command *cmd, int argc, char **argv, ab_opts *o, sb_error *err)
{
    sb_optparse p;
    sb_optparse_begin(&p, cmd, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;) {
        const char *v = p.value;
        if (opt >= FIRST_BENCH_OPTION && opt < OPT_COUNT) {      /* bench's own: it checks them */
            if (o->nbench_args + 2 > SB_AB_ARGS_MAX)
                return sb_fail(err, SB_ERR_USAGE, "too many options for each bench (at most %d)", SB_AB_ARGS_MAX / 2);
            char *flag = o->flag_text[o->nbench_args];
            snprintf(flag, sizeof o->flag_text[0], "--%s", cmd->options[opt].name);
            o->bench_args[o->nbench_args++] = flag;
            if (cmd->options[opt].value)
                o->bench_args[o->nbench_args++] = v;
            continue;
        }
        switch (opt) {
        case OPT_BASELINE_BUILD: o->baseline_build = v; break;
        case OPT_ROUNDS: st = sb_parse_int(v, 2, 100, "--rounds", &o->rounds, err); break;
        case OPT_WORK: st = sb_dir_arg(v, "--work", err), o->work = v; break;
        case OPT_FLOOR: o->floor_file = v; break;
        case OPT_OUT: o->floor_out = v; break;
        case OPT_MIN_DIFF: st = sb_parse_double(v, 0.0, 10.0, "--min-diff", &o->min_diff, err); break;
        case OPT_FDR: st = sb_parse_double(v, 1e-6, 0.5, "--fdr", &o->fdr, err); break;
        case OPT_FAIL_ON_SLOWER: o->fail_on_slower = 1; break;
        case OPT_EXPORT_CSV: o->export_csv = v; break;
        case OPT_EXPORT_JSON: o->export_json = v; break;
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_RESUME: o->resume = 1; break;
        case OPT_KEEP_SPELLS: o->keep_spells = 1; break;
        case OPT_PAIRED: o->paired = 1; break;
        case OPT_PAIRED_SAMPLES:
            st = sb_parse_int(v, 2, 2000, "--paired-samples", &o->paired_samples, err);
            break;
        case OPT_SPELL_ROUNDS: st = sb_parse_int(v, 0, SB_AB_ROUNDS_MAX, "--spell-rounds", &o->spell_rounds, err); break;
        case SB_OPT_ARG: return sb_fail(err, SB_ERR_USAGE, "%s takes no arguments, only options ('%s')", cmd->name, v);
        default: return sb_optparse_unexpected(&p);
        }
    }
    return p.status ? p.status : st;
}

static void ab_defaults(ab_opts *o)
{
    memset(o, 0, sizeof *o);
    o->rounds = SB_AB_ROUNDS;
    o->spell_rounds = -1;
    o->paired_samples = SB_AB_PAIRED_SAMPLES;
    o->fdr = SB_EVIDENCE_FDR;
}

sb_status cmd_ab(int argc, char **argv, sb_error *err)
{
    ab_opts o;
    ab_defaults(&o);
    o.work = "results/ab";
    sb_status st = ab_parse(&sb_cmd_ab, argc, argv, &o, err);
    if (!st && !o.baseline_build)
        st = sb_fail(err, SB_ERR_USAGE, "usage: segbench ab --baseline-build DIR [options] (the build to compare with)");
    return st ? st : sb_ab_run(&o, err);
}

sb_status cmd_noise(int argc, char **argv, sb_error *err)
{
    ab_opts o;
    ab_defaults(&o);
    o.work = "results/aa";
    o.noise = 1;
    sb_status st = ab_parse(&sb_cmd_noise, argc, argv, &o, err);
    return st ? st : sb_ab_run(&o, err);
}
