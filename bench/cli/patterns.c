/* patterns.c - selection by shell-style patterns (see patterns.h). */
#include "cli/patterns.h"

#include "cli/args.h"
#include "harness/registry.h"
#include "io/renames.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

int sb_pattern_match(const char *patterns, const char *name)
{
    if (!patterns)
        return 1;
    char item[128];
    for (const char *p = patterns; sb_list_next(&p, item, sizeof item);)
        if (fnmatch(item, name, 0) == 0)
            return 1;
    return 0;
}

sb_status sb_pattern_check(const char *patterns, const char *const *names, int count, const char *what,
                           sb_error *err)
{
    if (patterns && !*patterns)
        return sb_fail(err, SB_ERR_USAGE, "%s: empty list", what);
    char item[128];
    for (const char *p = patterns; sb_list_next(&p, item, sizeof item);) {
        int hit = 0;
        for (int i = 0; i < count && !hit; i++)
            hit = fnmatch(item, names[i], 0) == 0;
        if (hit)
            continue;
        char known[400] = "";
        size_t n = 0;
        for (int i = 0; i < count && n < sizeof known; i++)
            n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "", names[i]);
        return sb_fail(err, SB_ERR_USAGE, "%s: '%s' matches nothing (there are: %s)", what, item, known);
    }
    return SB_OK;
}

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
