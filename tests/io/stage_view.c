/* stage_view.c - the best CPU of an image is known only where every CPU
 * variant of the stage was measured there (bench/io/stage_view.c): a run
 * with --host-limit leaves out the slow threaded rows, and the serial
 * reference alone must not then read as the best CPU (a GPU's speed-up
 * over it would be overstated). */
#include "test_groups.h"

#include "io/stage_view.h"

#include <string.h>

static void add_row(sb_rows *rows, const sb_variant *v, int threads, const char *image, double ms)
{
    sb_row *row = sb_rows_add(rows);
    CHECK(row != NULL);
    if (!row)
        return;
    snprintf(row->algo, sizeof row->algo, "integral");
    snprintf(row->stage, sizeof row->stage, "sum");
    snprintf(row->variant, sizeof row->variant, "%s", v->name);
    snprintf(row->backend, sizeof row->backend, "%s", v->backend);
    snprintf(row->image, sizeof row->image, "%s", image);
    snprintf(row->agreement, sizeof row->agreement, "exact");
    row->threads = threads;
    row->width = strcmp(image, "synth-64x48") ? 128 : 64;
    row->height = strcmp(image, "synth-64x48") ? 96 : 48;
    row->kernel.n = 3;
    row->kernel.median = ms;
}

static void test_best_cpu_needs_every_cpu_variant(void)
{
    const sb_variant *ref = NULL, *threaded = NULL;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, "integral"))
            continue;
        if (!ref && !strcmp(v->backend, "cpu"))
            ref = v;
        if (!threaded && (v->flags & SB_THREADED))
            threaded = v;
    }
    CHECK(ref && threaded);
    if (!ref || !threaded)
        return;
    sb_rows rows = { 0 };
    add_row(&rows, ref, 1, "synth-64x48", 4.0);
    add_row(&rows, threaded, 2, "synth-64x48", 2.5);
    add_row(&rows, ref, 1, "synth-128x96", 16.0);   /* the threaded row left out at the larger image */
    stage_view sv;
    view_build(&sv, &rows, "integral", "sum");
    CHECK(view_cpu_complete(&sv, "synth-64x48"));
    CHECK(!view_cpu_complete(&sv, "synth-128x96"));
    const sb_row *best = view_baseline_row(&sv, "synth-64x48", 1);
    CHECK(best && best->kernel.median == 2.5);
    CHECK(view_baseline_row(&sv, "synth-128x96", 1) == NULL);       /* not known */
    const sb_row *serial = view_baseline_row(&sv, "synth-128x96", 0);
    CHECK(serial && serial->kernel.median == 16.0);                 /* the serial one still is */
    sb_rows_free(&rows);
}

const sb_test tests_io_stage_view[] = {
    { "report: the best CPU of an image is known only where every CPU variant was measured there "
      "(--host-limit leaves some out)", test_best_cpu_needs_every_cpu_variant },
};
const int tests_io_stage_view_count = sizeof tests_io_stage_view / sizeof tests_io_stage_view[0];
