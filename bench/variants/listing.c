/* listing.c - `segbench list` (listing.h): every algorithm and variant,
 * and whether each can run on this machine; as text, or as JSON. */
#include "variants/listing.h"

#include "base/json_out.h"
#include "base/patterns.h"
#include "machine/device_status.h"
#include "variants/names.h"

#include <stdio.h>
#include <string.h>

static const char *status_word(sb_availability av)
{
    return av == SB_AVAILABLE ? "available" : av == SB_NOT_BUILT ? "not built" : "skipped";
}

/* "key": "value", or "key": null where there is none. */
static void key_str_or_null(const char *key, const char *value)
{
    if (value)
        sb_json_key_str(stdout, key, value);
    else
        printf("\"%s\": null", key);
}

static void list_json(const char *algos, const char *variants, const sb_device_info *dev, int gpu_ok,
                      const char *gpu_why)
{
    printf("{\n  \"gpu\": {\"built\": %s, \"present\": %s, \"usable\": %s, \"name\": ",
           sb_device_built() ? "true" : "false", dev->present ? "true" : "false", gpu_ok ? "true" : "false");
    sb_json_str(stdout, dev->present ? dev->name : "");
    printf(", \"compute_capability\": \"%d.%d\", \"reason\": ", dev->cc_major, dev->cc_minor);
    sb_json_str(stdout, gpu_ok ? "" : gpu_why);
    printf("},\n  \"algorithms\": [");
    int first_algo = 1;
    for (int i = 0; i < sb_algo_count(); i++) {
        const sb_algo *algo = sb_algo_at(i);
        if (!sb_pattern_match(algos, algo->name))
            continue;
        printf("%s\n    {", first_algo ? "" : ",");
        first_algo = 0;
        sb_json_key_str(stdout, "name", algo->name);
        printf(", ");
        sb_json_key_str(stdout, "summary", algo->summary);
        printf(", ");
        sb_json_key_str(stdout, "contract", algo->contract);
        printf(", ");
        sb_json_key_str(stdout, "options", algo->options_help);
        printf(",\n     \"stages\": [");
        for (int s = 0; s < algo->stage_count; s++) {
            printf("%s", s ? ", " : "");
            sb_json_str(stdout, algo->stages[s]);
        }
        printf("],\n     \"variants\": [");
        int first = 1;
        for (int v = 0; v < sb_variant_count(); v++) {
            const sb_variant *var = sb_variant_at(v);
            if (strcmp(var->algo, algo->name) != 0 || !sb_variant_match(variants, var->algo, var->name))
                continue;
            char why[300];
            sb_availability av = sb_variant_availability(var, why, sizeof why);
            printf("%s\n       {", first ? "" : ",");
            first = 0;
            const char *const keys[] = { "name", "backend", "status", "reason" };
            const char *const values[] = { var->name, var->backend, status_word(av), av == SB_AVAILABLE ? "" : why };
            for (int k = 0; k < 4; k++) {
                sb_json_key_str(stdout, keys[k], values[k]);
                printf(", ");
            }
            printf("\"threaded\": %s, \"device\": %s, \"floor\": %s, \"graph_loop\": %s, ",
                   (var->flags & SB_THREADED) ? "true" : "false", (var->flags & SB_DEVICE) ? "true" : "false",
                   (var->flags & SB_FLOOR) ? "true" : "false", (var->flags & SB_GRAPH_LOOP) ? "true" : "false");
            /* a warm start taken on the device (segbench/warm_chain.h: stream --warm --runs in-turn) */
            printf("\"warm_chain\": %s, ", sb_variant_warm_chain(var) ? "true" : "false");
            sb_json_key_str(stdout, "summary", var->summary);
            /* the ladder: the rung it grows from (null: a root), its source file, the edge's idea */
            printf(", ");
            key_str_or_null("parent", var->parent);
            printf(", ");
            sb_json_key_str(stdout, "source", var->file);
            printf(", ");
            sb_json_key_str(stdout, "code_id", sb_variant_code_id(var));   /* base/code_id.h */
            printf(", ");
            sb_json_key_str(stdout, "idea", var->idea);
            printf(", ");
            key_str_or_null("formerly", var->formerly);
            printf("}");
        }
        printf("]}");
    }
    printf("\n  ]\n}\n");
}

sb_status sb_list_print(const char *algos, const char *variants, int json, sb_error *err)
{
    const char *names[256];
    int n = sb_algo_names(names, 256);
    sb_status st = sb_pattern_check(algos, names, n, "--algo", err);
    if (!st) {
        n = sb_variant_names(algos, names, 256);
        st = sb_pattern_check(variants, names, n, "--variant", err);
    }
    if (st)
        return st;

    /* The GPU's state once, at the top: it is the same for every CUDA variant. */
    sb_device_info dev;
    sb_device_status(&dev);
    char gpu_why[300];
    int gpu_ok = sb_device_usable(gpu_why, sizeof gpu_why);
    if (json) {
        list_json(algos, variants, &dev, gpu_ok, gpu_why);
        return SB_OK;
    }
    if (!sb_device_built())
        printf("GPU: CUDA support not built (%s)\n\n", sb_device_missing_why());
    else if (!dev.present)
        printf("GPU: %s; CUDA variants are skipped\n\n", gpu_why);
    else
        printf("GPU: %s (sm_%d%d)%s%s\n\n", dev.name, dev.cc_major, dev.cc_minor, gpu_ok ? "" : ": ",
               gpu_ok ? "" : gpu_why);

    for (int i = 0; i < sb_algo_count(); i++) {
        const sb_algo *algo = sb_algo_at(i);
        if (!sb_pattern_match(algos, algo->name))
            continue;
        printf("%s: %s\n  stages:", algo->name, algo->summary);
        for (int s = 0; s < algo->stage_count; s++)
            printf(" %s", algo->stages[s]);
        printf("\n  contract: %s\n", algo->contract);
        if (algo->options_help[0])
            printf("  options (segbench run): %s\n", algo->options_help);
        printf("  %-16s %-14s %-10s %s\n", "variant", "backend", "status", "what it is");
        for (int v = 0; v < sb_variant_count(); v++) {
            const sb_variant *var = sb_variant_at(v);
            if (strcmp(var->algo, algo->name) != 0 || !sb_variant_match(variants, var->algo, var->name))
                continue;
            char why[300];
            sb_availability av = sb_variant_availability(var, why, sizeof why);
            printf("  %-16s %-14s %-10s %s%s\n", var->name, var->backend, status_word(av), var->summary,
                   (var->flags & SB_THREADED) ? " [threads swept]" : "");
            /* a missing GPU was said once above; anything else is said here */
            if (av == SB_NOT_BUILT || (av == SB_SKIPPED && dev.present))
                printf("  %-16s %-14s %-10s (%s)\n", "", "", "", why);
        }
        printf("\n");
    }
    return SB_OK;
}
