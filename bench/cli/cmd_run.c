/* cmd_run.c - `segbench run ALGO IN OUT`: its options.  The run itself is
 * bench/run/single.c: one variant on one image, the output written as a
 * picture (atomically), the time on stderr. */
#include "cli/commands.h"

#include "base/args.h"
#include "cases/select.h"
#include "run/single.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_VARIANT, OPT_THREADS, OPT_STAGE, OPT_LABELS, OPT_MAX_PIXELS, OPT_MAX_MEMORY, OPT_COUNT };

static const sb_option RUN_OPTIONS[OPT_COUNT] = {
    [OPT_VARIANT] = { "variant", "PATTERN", "the serial reference", "the variant (a pattern must match one)" },
    [OPT_THREADS] = { "threads", "N", "1", "threads, for a threaded variant" },
    [OPT_STAGE] = { "stage", "PATTERN", "the first", "the stage of a pipeline algorithm" },
    [OPT_LABELS] = { "labels", "FILE", NULL, "also write the label image (.png, .pgm), where the algorithm has one" },
    [OPT_MAX_PIXELS] = SB_OPTION_MAX_PIXELS,
    [OPT_MAX_MEMORY] = SB_OPTION_MAX_MEMORY,
};

const sb_command sb_cmd_run = {
    "run", "ALGO IN OUT [options] [algorithm options]",
    "Run one variant on one image, check it against the reference, write its output picture.",
    "IN and OUT are .png, .ppm or .pgm.  Outputs are written only when the variant agrees\n"
    "with the reference, all of them or none.  Algorithm options (--k 16, --radius 8, ...)\n"
    "are listed per algorithm by 'segbench list'.\n",
    RUN_OPTIONS, OPT_COUNT, 1, SB_EXIT_AGREEMENT, cmd_run,
};

static sb_status run_parse(int argc, char **argv, sb_single_request *q, sb_error *err)
{
    int npos = 0;
    q->threads = 1;
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_run, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;) {
        switch (opt) {
        case OPT_VARIANT: q->variant_name = p.value; break;
        case OPT_STAGE: q->stage_name = p.value; break;
        case OPT_LABELS: q->labels_path = p.value; break;
        case OPT_MAX_PIXELS: st = sb_option_max_pixels(p.value, err); break;
        case OPT_MAX_MEMORY: st = sb_option_max_memory(p.value, err); break;
        case OPT_THREADS:
            q->threads_given = 1;
            st = sb_parse_int(p.value, 1, 1024, "--threads", &q->threads, err);
            break;
        case SB_OPT_ARG:
            if (npos == 3)
                return sb_fail(err, SB_ERR_USAGE, "too many arguments (usage: segbench run ALGO IN OUT)");
            q->pos[npos++] = p.value;
            break;
        case SB_OPT_OTHER:
            if (q->nkeys == SB_SINGLE_ALGO_OPTIONS)
                return sb_fail(err, SB_ERR_USAGE, "at most 16 algorithm options (--%s is the 17th)", p.key);
            snprintf(q->keys[q->nkeys], sizeof q->keys[0], "%s", p.key);
            q->values[q->nkeys++] = p.value;
            break;
        default: return sb_optparse_unexpected(&p);
        }
    }
    if (p.status || st)
        return p.status ? p.status : st;
    if (npos != 3)
        return sb_fail(err, SB_ERR_USAGE, "usage: segbench run ALGO IN OUT [options] (see 'segbench run --help')");
    return SB_OK;
}

sb_status cmd_run(int argc, char **argv, sb_error *err)
{
    sb_single_request *q = calloc(1, sizeof *q);  /* large (its lists): on the heap, the command's own */
    if (!q)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory reading the options");
    q->own_options = RUN_OPTIONS;
    q->own_count = OPT_COUNT;
    sb_status st = run_parse(argc, argv, q, err);
    if (!st)
        st = sb_run_single(q, err);
    free(q);
    return st;
}
