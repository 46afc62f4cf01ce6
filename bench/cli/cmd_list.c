/* cmd_list.c - `segbench list`: its options.  The listing is
 * bench/variants/listing.c. */
#include "cli/commands.h"

#include "variants/listing.h"

enum { OPT_ALGO, OPT_VARIANT, OPT_JSON, OPT_COUNT };

static const sb_option LIST_OPTIONS[OPT_COUNT] = {
    [OPT_ALGO] = { "algo", "PATTERNS", "all", "algorithms: comma list of shell patterns" },
    [OPT_VARIANT] = { "variant", "PATTERNS", "all", "variants: comma list of shell patterns" },
    [OPT_JSON] = { "json", NULL, NULL, "print JSON: the GPU, then each algorithm with its variants" },
};

const sb_command sb_cmd_list = {
    "list", "[options]", "List the algorithms and their variants, and whether each can run here.", NULL,
    LIST_OPTIONS, OPT_COUNT, 0, NULL, cmd_list,
};

sb_status cmd_list(int argc, char **argv, sb_error *err)
{
    const char *algos = NULL, *variants = NULL;
    int json = 0;
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_list, argc, argv, err);
    for (int opt; (opt = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (opt) {
        case OPT_ALGO: algos = p.value; break;
        case OPT_VARIANT: variants = p.value; break;
        case OPT_JSON: json = 1; break;
        default: return sb_optparse_unexpected(&p);
        }
    if (p.status)
        return p.status;
    return sb_list_print(algos, variants, json, err);
}
