/* case.c - one algorithm of a run: its logs opened, then image by image
 * and stage by stage a case -- the image loaded once, the stage's serial
 * reference computed once (harness/cases.h), the gallery and quality
 * pictures -- and every planned row measured against it. */
#include "run/state.h"

#include "report/report.h"

#include "segbench/clock.h"
#include "segbench/image_io.h"

#include <stdio.h>
#include <stdlib.h>

/* One stage of one image: its case opened (the reference computed), its
 * pictures, its rows.  A stage that cannot take the image is skipped,
 * saying why; the run goes on. */
static sb_status run_stage(bench_run *r, const sb_algo *algo, int stage, const sb_dataset_image *im,
                           sb_image *loaded, sb_rows *rows, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    static planned_row plan[RUN_MAX_CASE_ROWS];
    int nplan = run_plan_case(r, algo, stage, im, plan);
    if (nplan == 0)
        return SB_OK;                 /* nothing selected, or all measured before (--resume) */
    void *params = NULL;
    int usable;
    char why[200];
    sb_status st = sb_case_params(algo, stage, im->rect, &params, &usable, why, sizeof why, err);
    if (st)
        return st;
    if (!usable) {
        if (!o->quiet) {
            printf("%-9s skipped on %s: %s\n", algo->name, im->name, why);
            fflush(stdout);            /* in order with the rows, before the run's account on stderr */
        }
        free(params);
        return SB_OK;
    }
    if (!loaded->data && (st = sb_image_load(im->path, algo->load_mode, loaded, err))) {
        free(params);
        return st;
    }
    sb_case_data cd;
    sb_error why_not = { SB_OK, "" };
    double t0 = sb_clock_ms();
    sb_status opened = sb_case_open(&cd, algo, stage, params, loaded, &why_not);
    r->spent.references += sb_clock_ms() - t0;
    free(params);
    if (opened == SB_ERR_USAGE || opened == SB_ERR_LIMIT || opened == SB_ERR_NOMEM) {
        /* this stage cannot take this image (1000 superpixels of a 1x1
         * image, a rectangle outside it, too little memory): its rows
         * are skipped, saying why, and the run goes on */
        printf("%-9s %-6s skipped on %s (%dx%d): %s\n", algo->name, algo->stages[stage], im->name, loaded->width,
               loaded->height, why_not.msg);
        fflush(stdout);
        r->pairs_skipped++;
        return SB_OK;
    }
    if (opened)
        return sb_fail(err, opened, "%s", why_not.msg);
    cd.c.image = im->name;
    run_note_reference(r, stage, im, cd.c.ref_times.run_ms);
    run_limit_host_rows(r, algo, stage, im, cd.c.ref_times.run_ms, rows, plan, &nplan);
    t0 = sb_clock_ms();
    if (stage == 0 && im->gallery && r->have_gallery && algo->gallery)
        st = run_gallery(r, algo, im, &cd.c, err);
    if (!st && algo->quality && !o->check_only)
        st = run_quality(r, algo, im, &cd.c, err);
    r->spent.pictures += sb_clock_ms() - t0;
    /* host rows in interleaved rounds (rounds.c), then the device rows one
     * by one (their times repeat within 1 % as they are) */
    static planned_row host[RUN_MAX_CASE_ROWS];
    int nhost = 0;
    for (int k = 0; k < nplan; k++)
        if (!(plan[k].v->flags & SB_DEVICE) && !o->check_only && o->rounds > 1)
            host[nhost++] = plan[k];
    if (!st && nhost > 0)
        st = run_host_rows(r, rows, im, &cd.c, host, nhost, err);
    for (int k = 0; k < nplan && !st; k++)
        if (nhost == 0 || (plan[k].v->flags & SB_DEVICE))
            st = run_row(r, rows, im, &cd.c, &plan[k], err);
    sb_case_close(&cd);
    return st;
}

/* Every stage of one image: the image loaded once, at its first use. */
static sb_status run_image(bench_run *r, const sb_algo *algo, const sb_dataset_image *im, sb_rows *rows,
                           sb_error *err)
{
    sb_image loaded = { 0 };
    sb_status st = SB_OK;
    for (int stage = 0; stage < algo->stage_count && !st; stage++)
        st = run_stage(r, algo, stage, im, &loaded, rows, err);
    if (loaded.data)
        sb_image_free(&loaded);
    return st;
}

sb_status run_algo(bench_run *r, const sb_algo *algo, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    sb_rows rows = { 0 };
    r->nref_runs = 0;
    sb_status st = o->check_only ? SB_OK : run_open_logs(r, algo, err);
    for (int i = 0; i < r->ds.count && !st; i++) {
        const sb_dataset_image *im = &r->ds.images[i];
        char why[300];
        if (sb_image_skip_reason(algo, im, run_size_caps(o), why, sizeof why)) {
            if (!o->quiet) {
                printf("%-9s skipped on %s (%dx%d): %s\n", algo->name, im->name, im->width, im->height, why);
                fflush(stdout);
            }
            continue;
        }
        st = run_image(r, algo, im, &rows, err);
        if (!st && r->have_gallery)
            st = sb_gallery_index_write(&r->gallery, err);
    }
    if (!st && !o->check_only && rows.count > 0 && !o->quiet) {
        printf("\n");
        sb_report_speedup_tables(&rows, algo, stdout);
    }
    sb_rows_free(&rows);
    if (!o->check_only)
        run_close_logs(r);
    if (!st && o->json)
        st = run_write_json(r, algo, err);
    return st;
}
