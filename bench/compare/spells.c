/* spells.c - host rounds in spells, left out (spells.h). */
#include "compare/spells.h"

#include "segbench/stats.h"

#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sb_spell_quiet(double *probes, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(probes, (size_t)n, sizeof *probes, by_value);
    return sb_quantile_sorted(probes, n, SB_SPELL_QUIET_QUANTILE);
}

int sb_spell_in(double probe, double quiet)
{
    return probe > 0 && quiet > 0 && probe > quiet * (1.0 + SB_SPELL_MARGIN);
}

int sb_spell_keep(double *ms, double *probe, int n, double quiet)
{
    int kept = 0;
    for (int r = 0; r < n; r++) {
        if (sb_spell_in(probe[r], quiet))
            continue;
        ms[kept] = ms[r];
        probe[kept++] = probe[r];
    }
    return kept;
}
