/* cmd_list.c - `segbench list`: every algorithm and variant, and whether
 * each can run on this machine. */
#include "commands.h"

#include "args.h"
#include "device_status.h"

#include <stdio.h>
#include <string.h>

sb_status cmd_list(int argc, char **argv, sb_error *err)
{
    sb_args a = sb_args_begin(argc, argv, err);
    if (sb_args_next(&a))
        return sb_args_unknown(&a);

    /* The GPU's state once, at the top: it is the same for every CUDA variant. */
    sb_device_info dev;
    sb_device_status(&dev);
    char gpu_why[300];
    int gpu_ok = sb_device_usable(gpu_why, sizeof gpu_why);
    if (!sb_device_built())
        printf("GPU: CUDA support not built (nvcc was not found at build time)\n\n");
    else if (!dev.present)
        printf("GPU: %s; CUDA variants are skipped\n\n", gpu_why);
    else
        printf("GPU: %s (sm_%d%d)%s%s\n\n", dev.name, dev.cc_major, dev.cc_minor, gpu_ok ? "" : ": ",
               gpu_ok ? "" : gpu_why);

    for (int i = 0; i < sb_algo_count(); i++) {
        const sb_algo *algo = sb_algo_at(i);
        printf("%s: %s\n  stages:", algo->name, algo->summary);
        for (int s = 0; s < algo->stage_count; s++)
            printf(" %s", algo->stages[s]);
        printf("\n  contract: %s\n", algo->contract);
        if (algo->options_help[0])
            printf("  options (segbench run): %s\n", algo->options_help);
        printf("  %-16s %-14s %-10s %s\n", "variant", "backend", "status", "what it is");
        for (int v = 0; v < sb_variant_count(); v++) {
            const sb_variant *var = sb_variant_at(v);
            if (strcmp(var->algo, algo->name) != 0)
                continue;
            char why[300];
            sb_availability av = sb_variant_availability(var, why, sizeof why);
            const char *status = av == SB_AVAILABLE ? "available" : av == SB_NOT_BUILT ? "not built" : "skipped";
            printf("  %-16s %-14s %-10s %s%s\n", var->name, var->backend, status, var->summary,
                   (var->flags & SB_THREADED) ? " [threads swept]" : "");
            /* a missing GPU was said once above; anything else is said here */
            if (av == SB_NOT_BUILT || (av == SB_SKIPPED && dev.present))
                printf("  %-16s %-14s %-10s (%s)\n", "", "", "", why);
        }
        printf("\n");
    }
    return SB_OK;
}
