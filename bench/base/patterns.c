/* patterns.c - selection by shell-style patterns (see patterns.h). */
#include "base/patterns.h"

#include "base/args.h"
#include "base/options.h"

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
        /* As many names as the one-line message has room for (sb_error
         * holds SB_ERROR_MSG_MAX bytes), then how many more there are. */
        char known[SB_ERROR_MSG_MAX] = "";
        size_t used = strlen(what) + 2 * strlen(item) + 120;   /* the rest of the message, at most */
        size_t room = used < sizeof known / 2 ? sizeof known - used : sizeof known / 2, n = 0;
        int shown = 0;
        for (; shown < count && n + strlen(names[shown]) + 2 < room; shown++)
            n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", shown ? ", " : "", names[shown]);
        if (shown < count)
            snprintf(known + n, sizeof known - n, " and %d more (segbench list)", count - shown);
        const char *near = sb_nearest_name(item, names, count);
        if (near)
            return sb_fail(err, SB_ERR_USAGE, "%s: '%s' matches nothing (did you mean '%s'? there are: %s)", what,
                           item, near, known);
        return sb_fail(err, SB_ERR_USAGE, "%s: '%s' matches nothing (there are: %s)", what, item, known);
    }
    return SB_OK;
}
