/* rounds.c - a case's CPU rows take turns (bench/run/rounds.c): all are
 * checked first, then round after round each takes its share, the order
 * reversed every other round, so that no row always follows the same one
 * and a burst of noise lands on a round of each. */
#include "test_groups.h"

#include "run/state.h"

#include "cases/cases.h"
#include "variants/registry.h"

#include <string.h>

static char turns[256];
static int nturns;

/* Variants A, B, C: each run() notes its letter. */
static sb_status letter_prepare(void **state, const sb_image *in, const void *params, void *out, const sb_exec *e,
                                sb_error *err)
{
    (void)in, (void)params, (void)out, (void)err;
    *state = (void *)e->who;          /* "integral/A" */
    return SB_OK;
}
static sb_status letter_run(void *state, sb_error *err)
{
    (void)err;
    const char *who = state;
    char letter = who[strlen(who) - 1];
    if (nturns < (int)sizeof turns - 1 && (nturns == 0 || turns[nturns - 1] != letter))
        turns[nturns++] = letter;    /* one letter per turn, however many runs it took */
    return SB_OK;
}

static const sb_variant_ops LETTER_OPS = { letter_prepare, NULL, letter_run, test_fetch_nothing,
                                           test_release_nothing };

static void test_rows_take_turns(void)
{
    static const sb_variant v[3] = {
        { "integral", "A", "cpu", "NONE", 0, 1u, &LETTER_OPS, "", "integral/A", __FILE__, NULL, "", NULL },
        { "integral", "B", "cpu", "NONE", 0, 1u, &LETTER_OPS, "", "integral/B", __FILE__, NULL, "", NULL },
        { "integral", "C", "cpu", "NONE", 0, 1u, &LETTER_OPS, "", "integral/C", __FILE__, NULL, "", NULL },
    };
    planned_row plan[3] = { { &v[0], 1 }, { &v[1], 1 }, { &v[2], 1 } };
    sb_bench_opts o;
    memset(&o, 0, sizeof o);
    o.rounds = 3;
    o.quiet = 1;
    static bench_run r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.pipe = run_pipeline_for(&o);
    sb_timing_defaults(&r.timing);
    r.timing.budget_ms = 6;
    r.timing.warmup_ms = 1;
    r.timing.min_reps = 3;

    sb_image img;
    sb_case_data cd;
    test_integral_case(&cd, &img);
    sb_dataset_image im;
    memset(&im, 0, sizeof im);
    snprintf(im.name, sizeof im.name, "tiny");
    host_result res[3];
    memset(res, 0, sizeof res);
    nturns = 0;
    CHECK(run_host_measure(&r, &im, &cd.c, plan, 3, res) == SB_OK);
    turns[nturns] = '\0';
    /* the checks A B C, then A B C, C B A, A B C (a letter that follows
     * itself is one turn; a row's close checks again without running) */
    CHECKF(strcmp(turns, "ABCABCBABC") == 0, "turns %s", turns);
    for (int k = 0; k < 3; k++) {
        CHECKF(res[k].st == SB_OK && res[k].m.rounds == 3 && res[k].m.kernel.n >= 3, "row %c: %d rounds, %d samples",
               'A' + k, res[k].m.rounds, res[k].m.kernel.n);
        sb_measurement_free(&res[k].m);
    }
    sb_case_close(&cd);
    sb_image_free(&img);
}

const sb_test tests_run_rounds[] = {
    { "run: a case's CPU rows are checked, then take turns in rounds (A B C, C B A, A B C)", test_rows_take_turns },
};
const int tests_run_rounds_count = sizeof tests_run_rounds / sizeof tests_run_rounds[0];
