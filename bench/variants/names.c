/* names.c - the registry's names for selection by pattern, and
 * "algo/variant[@threads]" (see names.h). */
#include "variants/names.h"

#include "base/args.h"
#include "base/patterns.h"
#include "variants/registry.h"
#include "variants/renames.h"

#include <stdio.h>
#include <string.h>

/* Add name to names[] unless it is there. */
static int add_unique(const char **names, int count, int max, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return count;
    if (count < max)
        names[count++] = name;
    return count;
}

int sb_algo_names(const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < sb_algo_count(); i++)
        n = add_unique(names, n, max, sb_algo_at(i)->name);
    return n;
}

int sb_variant_match(const char *patterns, const char *algo, const char *name)
{
    if (sb_pattern_match(patterns, name))
        return 1;
    for (int i = 0; i < sb_rename_count(); i++) {
        const sb_rename *rn = sb_rename_at(i);
        if (strcmp(rn->algo, algo) == 0 && strcmp(rn->now, name) == 0 && sb_pattern_match(patterns, rn->before))
            return 1;
    }
    return 0;
}

int sb_variant_pick(const char *patterns, const char *algo, const char *name)
{
    if (sb_is_student_variant(name) && !(patterns && strstr(patterns, SB_STUDENT_PREFIX)))
        return 0;
    return sb_variant_match(patterns, algo, name);
}

int sb_variant_names(const char *algos, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < sb_variant_count(); i++)
        if (sb_pattern_match(algos, sb_variant_at(i)->algo))
            n = add_unique(names, n, max, sb_variant_at(i)->name);
    for (int i = 0; i < sb_rename_count(); i++)      /* old names, last: still accepted */
        if (sb_pattern_match(algos, sb_rename_at(i)->algo))
            n = add_unique(names, n, max, sb_rename_at(i)->before);
    return n;
}

int sb_stage_names(const char *algos, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < sb_algo_count(); i++)
        if (sb_pattern_match(algos, sb_algo_at(i)->name))
            for (int s = 0; s < sb_algo_at(i)->stage_count; s++)
                n = add_unique(names, n, max, sb_algo_at(i)->stages[s]);
    return n;
}

sb_status sb_parse_variant_spec(const char *spec, const sb_variant **v, int *threads, sb_error *err)
{
    char algo[64], name[64];
    const char *slash = strchr(spec, '/');
    if (!slash || slash == spec || (size_t)(slash - spec) >= sizeof algo)
        return sb_fail(err, SB_ERR_USAGE, "'%s': name a variant as algo/variant[@threads]", spec);
    snprintf(algo, sizeof algo, "%.*s", (int)(slash - spec), spec);
    const char *at = strchr(slash, '@');
    size_t len = at ? (size_t)(at - slash - 1) : strlen(slash + 1);
    if (len == 0 || len >= sizeof name)
        return sb_fail(err, SB_ERR_USAGE, "'%s': name a variant as algo/variant[@threads]", spec);
    snprintf(name, sizeof name, "%.*s", (int)len, slash + 1);
    if (!sb_algo_find(algo))
        return sb_fail(err, SB_ERR_USAGE, "'%s': unknown algorithm '%s' (see 'segbench list')", spec, algo);
    *v = sb_variant_find(algo, name);
    if (!*v)
        return sb_fail(err, SB_ERR_USAGE, "'%s': unknown variant '%s' of %s (see 'segbench list')", spec, name,
                       algo);
    *threads = 1;
    if (at) {
        sb_status st = sb_parse_int(at + 1, 1, 1024, "thread count", threads, err);
        if (st)
            return st;
        if (*threads > 1 && !((*v)->flags & SB_THREADED))
            return sb_fail(err, SB_ERR_USAGE, "'%s': %s/%s does not take a thread count", spec, algo, name);
    }
    return SB_OK;
}
