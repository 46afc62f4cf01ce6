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
