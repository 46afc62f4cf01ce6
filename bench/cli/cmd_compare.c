/* cmd_compare.c - `segbench compare`: its options.  The comparison itself
 * is bench/compare/ (compare.h). */
#include "cli/commands.h"
#include "cases/select.h"

#include "base/files.h"

#include "base/args.h"
#include "compare/compare.h"
#include "measure/evidence.h"

#include <string.h>

enum {
    OPT_SET, OPT_IMAGE, OPT_RECT, OPT_ALGO, OPT_VARIANT, OPT_STAGE, OPT_ROUNDS, OPT_SAMPLES, OPT_MIN_DIFF, OPT_FDR,
    OPT_FLOOR, OPT_NO_FLUSH, OPT_MAX_PIXELS, OPT_MAX_MEMORY, OPT_BASELINE, OPT_CURRENT, OPT_FAIL_ON_SLOWER, OPT_STRICT,
    OPT_EXPORT_JSON, OPT_EXPORT_CSV, OPT_RUNS_FLOOR, OPT_RESULTS_ROOT, OPT_COUNT
};

static const sb_option COMPARE_OPTIONS[OPT_COUNT] = {
    [OPT_SET] = { "set", "NAME", "default", "A B: the image set" },
    [OPT_IMAGE] = { "image", "FILE", NULL, "A B: an image file instead of a set (repeat for more)" },
    [OPT_RECT] = { "rect", "X,Y,W,H", "inset by a tenth of each side", "A B: GrabCut's rectangle on the --image files" },
    [OPT_ALGO] = { "algo", "PATTERNS", "all", "--baseline: the algorithms to compare" },
    [OPT_VARIANT] = { "variant", "PATTERNS", "all", "--baseline: the variants to compare" },
    [OPT_STAGE] = { "stage", "PATTERNS", "A B: the first stage; --baseline: all", "the stages to compare" },
    [OPT_ROUNDS] = { "rounds", "N", SB_STR(COMPARE_ROUNDS), "A B: interleaved rounds a side, each opening both afresh (2 to 100)" },
    [OPT_SAMPLES] = { "samples", "N", SB_STR(COMPARE_SAMPLES), "A B: timed runs a round (their median is the round's)" },
    [OPT_MIN_DIFF] = { "min-diff", "F", "the noise floor", "the smallest ratio change that matters: a floor below it is raised to it (0.05: 5 %)" },
    [OPT_FDR] = { "fdr", "Q", "0.05", "the false-discovery rate the calls of one comparison are held to" },
    [OPT_FLOOR] = { "floor", "FILE", "the current set's noise.csv, else results/<machine>/noise.csv, else the defaults",
                    "the noise floors to judge by (segbench noise writes them)" },
    [OPT_NO_FLUSH] = { "no-flush", NULL, NULL, "A B: keep the GPU's L2 warm between device runs" },
    [OPT_MAX_PIXELS] = SB_OPTION_MAX_PIXELS,
    [OPT_MAX_MEMORY] = SB_OPTION_MAX_MEMORY,
    [OPT_BASELINE] = { "baseline", "DIR", NULL, "a saved result set (results/<machine>/ or a run's directory)" },
    [OPT_CURRENT] = { "current", "DIR", NULL, "the result set to judge against the baseline" },
    [OPT_FAIL_ON_SLOWER] = { "fail-on-slower", NULL, NULL, "exit 3 when B is slower on any row" },
    [OPT_STRICT] = { "strict", NULL, NULL, "the old name of --fail-on-slower" },
    [OPT_EXPORT_JSON] = { "export-json", "FILE", NULL, "every row with its samples, ratio, interval, p, verdict" },
    [OPT_EXPORT_CSV] = { "export-csv", "FILE", NULL, "the same as CSV (samples space-separated)" },
    [OPT_RUNS_FLOOR] = { "runs-floor", "auto|off", "auto",
                         "--baseline: a row of two runs is also held to what the same code moved by between this "
                         "machine's committed runs (segbench history's own floors, by class and decade of time); off: "
                         "the A/A's floors alone, for two sets of one session" },
    [OPT_RESULTS_ROOT] = { "results-root", "DIR", "results", "--baseline: where the machine's runs are committed (git)" },
};

const sb_command sb_cmd_compare = {
    "compare", "A B [options]  |  --baseline DIR --current DIR [options]",
    "Is B faster than A, beyond noise?  Two variants timed interleaved, or two saved result sets row by row.",
    "A and B are algo/variant[@threads]: integral/cuda-shared integral/pthread@8.\n"
    "Each round's median is one piece of evidence.  B is faster or slower only when the\n"
    "whole 95 % interval of B/A (from the rounds) lies beyond this machine's noise floor\n"
    "(segbench noise), the same when it lies inside it, undetermined otherwise (with the\n"
    "rounds a side that would likely settle it); the calls held to a false-discovery rate.\n"
    "Two builds, round by round in fresh processes: segbench ab (docs/measuring.md).\n",
    COMPARE_OPTIONS, OPT_COUNT, 0,
    "0 success; 1 a variant broke its agreement contract; 2 usage or input error; 3 B slower on some row\n"
    "             (with --fail-on-slower); 130 interrupted",
    cmd_compare,
};

/* Where the image options stand in the table above. */
static const sb_image_options IMAGE_OPTIONS = { OPT_SET, OPT_IMAGE, OPT_RECT, OPT_MAX_PIXELS, OPT_MAX_MEMORY };

static sb_status compare_parse(int argc, char **argv, compare_opts *o, sb_error *err)
{
    memset(o, 0, sizeof *o);
    o->rounds = COMPARE_ROUNDS;
    o->samples = COMPARE_SAMPLES;
    o->min_diff = COMPARE_MIN_DIFF;
    o->fdr = SB_EVIDENCE_FDR;
    o->flush_l2 = 1;
    o->runs_floor = 1;
    o->results_root = "results";
    int nspec = 0;
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_compare, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;) {
        const char *v = p.value;
        switch (opt) {
        case OPT_ALGO: o->algos = v; break;
        case OPT_VARIANT: o->variants = v; break;
        case OPT_STAGE: o->stages = v; break;
        case OPT_ROUNDS: st = sb_parse_int(v, 2, 100, "--rounds", &o->rounds, err); break;
        case OPT_SAMPLES: st = sb_parse_int(v, 1, 100000, "--samples", &o->samples, err); break;
        case OPT_MIN_DIFF: st = sb_parse_double(v, 0.0, 10.0, "--min-diff", &o->min_diff, err); break;
        case OPT_FDR: st = sb_parse_double(v, 1e-6, 0.5, "--fdr", &o->fdr, err); break;
        case OPT_FLOOR: o->floor_file = v; break;
        case OPT_NO_FLUSH: o->flush_l2 = 0; break;
        case OPT_BASELINE: st = sb_dir_arg(v, "--baseline", err), o->baseline = v; break;
        case OPT_CURRENT: st = sb_dir_arg(v, "--current", err), o->current = v; break;
        case OPT_FAIL_ON_SLOWER:
        case OPT_STRICT: o->fail_on_slower = 1; break;
        case OPT_EXPORT_JSON: o->export_json = v; break;
        case OPT_EXPORT_CSV: o->export_csv = v; break;
        case OPT_RUNS_FLOOR:
            if (strcmp(v, "auto") && strcmp(v, "off"))
                return sb_fail(err, SB_ERR_USAGE, "--runs-floor takes auto or off, not '%s'", v);
            o->runs_floor = !strcmp(v, "auto");
            break;
        case OPT_RESULTS_ROOT: o->results_root = v; break;
        case SB_OPT_ARG:
            if (nspec == 2)
                return sb_fail(err, SB_ERR_USAGE, "compare takes two variants (A B)");
            o->spec[nspec++] = v;
            break;
        default:
            if (!sb_image_choice_option(&o->images, &IMAGE_OPTIONS, opt, v, &st, err))
                return sb_optparse_unexpected(&p);
            break;
        }
    }
    if (p.status || st)
        return p.status ? p.status : st;
    if (o->baseline || o->current) {
        if (!o->baseline || !o->current || nspec)
            return sb_fail(err, SB_ERR_USAGE, "usage: segbench compare --baseline DIR --current DIR");
        if (o->images.set || o->images.nfiles)
            return sb_fail(err, SB_ERR_USAGE, "--set and --image are for comparing two variants, not result sets");
    } else if (nspec != 2) {
        return sb_fail(err, SB_ERR_USAGE, "usage: segbench compare A B, or --baseline DIR --current DIR "
                                          "(see 'segbench compare --help')");
    } else if (o->algos || o->variants) {
        return sb_fail(err, SB_ERR_USAGE, "--algo and --variant select rows of result sets; A and B name the variants");
    }
    return SB_OK;
}

sb_status cmd_compare(int argc, char **argv, sb_error *err)
{
    compare_opts o;
    sb_status st = compare_parse(argc, argv, &o, err);
    return st ? st : sb_compare_run(&o, err);
}
