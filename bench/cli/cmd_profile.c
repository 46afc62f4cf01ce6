/* cmd_profile.c - `segbench profile`: its options.  The profiled runs and
 * the import are bench/profile/ (profile.h). */
#include "cli/commands.h"
#include "cases/select.h"

#include "base/files.h"

#include "base/args.h"
#include "profile/profile.h"
#include "profile/profile_edge.h"
#include "variants/names.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_SET, OPT_IMAGE, OPT_RECT, OPT_STAGE, OPT_THREADS, OPT_WARMUP, OPT_REGIONS, OPT_ALL_IMAGES,
       OPT_NO_SIZE_CAPS, OPT_TOP, OPT_GRAPH_LOOPS, OPT_IMPORT, OPT_RESULTS, OPT_EDGE, OPT_COUNT };

static const sb_option PROFILE_OPTIONS[OPT_COUNT] = {
    [OPT_SET] = { "set", "NAME", "default", "the image set (datasets/sets/NAME.set)" },
    [OPT_IMAGE] = { "image", "FILE", NULL, "profile on this image instead (repeatable)" },
    [OPT_RECT] = { "rect", "X,Y,W,H", "inset by a tenth", "GrabCut's rectangle on --image files" },
    [OPT_STAGE] = { "stage", "PATTERNS", "all", "the stages to profile" },
    [OPT_THREADS] = { "threads", "N", "the core count", "threads, for a threaded variant" },
    [OPT_WARMUP] = { "warmup", "N", "3", "untraced runs before the profiled one" },
    [OPT_REGIONS] = { "regions", "FILE", NULL, "write the profiled regions, in order, as TSV (for --import)" },
    [OPT_ALL_IMAGES] = { "all-images", NULL, NULL, "every image of the set, not only the summary's (the largest)" },
    [OPT_NO_SIZE_CAPS] = { "no-size-caps", NULL, NULL, "the summary image may be above the algorithm's bench size" },
    [OPT_TOP] = { "top", NULL, NULL,
                  "of the variants chosen, only each stage's fastest GPU rung in --results and its parent" },
    [OPT_GRAPH_LOOPS] = { "graph-loops", "all|only|none", "all",
                          "of the variants chosen, those that launch from conditional graph nodes (only), the others "
                          "(none), or both: ncu needs --graph-profiling graph for the first and times the others "
                          "wrongly with it" },
    [OPT_IMPORT] = { "import", "NCU_CSV", NULL,
                     "instead: read ncu's --csv --page raw output of a profile run (with --regions and --results)" },
    [OPT_RESULTS] = { "results", "DIR", NULL,
                      "--top: the result set that names the fastest; --import: the one whose <algo>.profile.csv it writes" },
    [OPT_EDGE] = { "edge", "ALGO/RUNG", NULL,
                   "instead: the rung and its parent side by side from --results' profile (make profile ALGO= RUNG=)" },
};

const sb_command sb_cmd_profile = {
    "profile", "ALGO/VARIANT... [options]",
    "One checked run of each variant between cudaProfilerStart/Stop, for ncu or nsys.",
    "VARIANT may be a pattern (slic/cuda-*); a threaded variant takes @N.  By default each\n"
    "stage on the image the report's summary shows (the set's largest that bench times).\n"
    "  ncu --profile-from-start off ./build/segbench profile slic/cuda-registers --stage s16\n"
    "  nsys profile --capture-range=cudaProfilerApi ./build/segbench profile slic/cuda-registers\n"
    "make profile runs ncu over every CUDA rung and writes results/<machine>/<algo>.profile.csv\n"
    "(bench/profile/README.md).\n",
    PROFILE_OPTIONS, OPT_COUNT, 0, SB_EXIT_AGREEMENT, cmd_profile,
};

/* Where the image options stand in the table above. */
static const sb_image_options IMAGE_OPTIONS = { OPT_SET, OPT_IMAGE, OPT_RECT, -1, -1 };

static sb_status profile_parse(int argc, char **argv, profile_opts *o, sb_error *err)
{
    memset(o, 0, sizeof *o);
    o->warmup = 3;
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_profile, argc, argv, err);
    for (int opt; !p.status && (opt = sb_optparse_next(&p)) != SB_OPT_END;) {
        const char *v = p.value;
        sb_status st = SB_OK;
        switch (opt) {
        case OPT_STAGE: o->stages = v; break;
        case OPT_THREADS: st = sb_parse_int(v, 1, 1024, "--threads", &o->threads, err); break;
        case OPT_WARMUP: st = sb_parse_int(v, 0, 1000, "--warmup", &o->warmup, err); break;
        case OPT_REGIONS: o->regions = v; break;
        case OPT_ALL_IMAGES: o->all_images = 1; break;
        case OPT_NO_SIZE_CAPS: o->no_size_caps = 1; break;
        case OPT_TOP: o->top = 1; break;
        case OPT_GRAPH_LOOPS:
            if (!strcmp(v, "all") || !strcmp(v, "only") || !strcmp(v, "none"))
                o->graph_loops = v[0] == 'o' ? PROFILE_GRAPH_LOOPS_ONLY : v[0] == 'n' ? PROFILE_GRAPH_LOOPS_NONE : 0;
            else
                st = sb_fail(err, SB_ERR_USAGE, "--graph-loops: '%s' is not all, only or none", v);
            break;
        case OPT_IMPORT: o->import = v; break;
        case OPT_RESULTS: st = sb_dir_arg(v, "--results", err), o->results = v; break;
        case OPT_EDGE: o->edge = v; break;
        case SB_OPT_ARG:
            if (o->nspec == PROFILE_MAX_SPECS)
                st = sb_fail(err, SB_ERR_USAGE, "at most %d ALGO/VARIANT arguments", PROFILE_MAX_SPECS);
            else
                st = profile_parse_spec(v, &o->spec[o->nspec++], err);
            break;
        default:
            if (!sb_image_choice_option(&o->images, &IMAGE_OPTIONS, opt, v, &st, err))
                return sb_optparse_unexpected(&p);
            break;
        }
        if (st)
            return st;
    }
    if (p.status)
        return p.status;
    if (o->edge)
        return o->results && !o->nspec && !o->import
                   ? SB_OK
                   : sb_fail(err, SB_ERR_USAGE, "usage: segbench profile --edge ALGO/RUNG --results DIR");
    if (o->import)
        return o->regions && o->results && !o->nspec
                   ? SB_OK
                   : sb_fail(err, SB_ERR_USAGE, "usage: segbench profile --import NCU_CSV --regions FILE --results DIR");
    if (!o->nspec)
        return sb_fail(err, SB_ERR_USAGE, "usage: segbench profile ALGO/VARIANT... (segbench profile --help)");
    if (o->top && !o->results)
        return sb_fail(err, SB_ERR_USAGE, "--top needs --results DIR (the timings that say which rung is fastest)");
    return SB_OK;
}

sb_status cmd_profile(int argc, char **argv, sb_error *err)
{
    profile_opts *o = calloc(1, sizeof *o);      /* large (its lists): on the heap, the command's own */
    if (!o)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory reading the options");
    sb_status st = profile_parse(argc, argv, o, err);
    if (!st && o->edge) {
        const sb_variant *v;
        int threads;
        if (!(st = sb_parse_variant_spec(o->edge, &v, &threads, err)))
            st = profile_edge_print(o->results, v, stdout, err);
    } else if (!st) {
        st = sb_profile_run(o, err);
    }
    free(o);
    return st;
}
