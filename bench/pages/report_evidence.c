/* report_evidence.c - what the report says about two rows' times, judged
 * as `compare` judges them (measure/evidence.h): from their rounds, never
 * from samples of one round against another's (issue 76). */
#include "pages/report_parts.h"

#include "measure/evidence.h"

#include <math.h>

/* fast against slow from their rounds, with no floor: the interval alone */
static int judge(const sb_row *slow, const sb_row *fast, sb_effect *e)
{
    if (!slow || !fast || slow == fast || !slow->round_ms || !fast->round_ms || slow->nround < 2 || fast->nround < 2)
        return 0;
    sb_effect_judge(slow->round_ms, slow->nround, fast->round_ms, fast->nround, 0.0, e);
    return e->hi > e->lo;
}

double report_speedup_spread(const sb_row *slow, const sb_row *fast)
{
    sb_effect e;
    return judge(slow, fast, &e) ? sb_effect_half_width(&e) : 0.0;
}

int report_ties_best(const sb_row *best, const sb_row *r)
{
    sb_effect e;
    if (judge(best, r, &e))
        return e.lo <= 1.0;       /* r / best may be 1: the rounds cannot put r behind */
    return best && r && r->kernel.median == best->kernel.median;
}

void report_speedup_text(double slow_ms, double fast_ms, double spread, const char *mark, char *out, size_t size)
{
    if (!(slow_ms > 0) || !(fast_ms > 0)) {
        snprintf(out, size, "-");
        return;
    }
    double g = slow_ms / fast_ms;
    int n = snprintf(out, size, "%.*fx%s", g < 10 ? 2 : g < 100 ? 1 : 0, g, mark);
    if (spread > 0 && n > 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, " \xc2\xb1%.*f %%", spread < 0.01 ? 1 : 0, 100.0 * spread);
}
