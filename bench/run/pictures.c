/* pictures.c - what a run shows besides times: the gallery of the
 * reference's pictures, and the quality of its output against the
 * image's ground truth (<algo>.quality.csv).  Both are made as a case
 * opens (ahead.c: on an opener's thread, beside the GPU rows, where the
 * run has them) and recorded in the cases' order in their second pass
 * (case.c), so the gallery's index and the quality file read the same
 * however many threads made them. */
#include "run/state.h"

#include "algos/quality.h"
#include "base/files.h"

#include "segbench/atomic_file.h"
#include "segbench/image_io.h"

#include <stdlib.h>
#include <string.h>

/* The image's ground-truth labels (or foreground mask), when the manifest
 * names them. */
static sb_status load_truth(const sb_dataset_image *im, int mask, sb_labels *truth, int *have, sb_error *err)
{
    *have = 0;
    const char *path = mask ? im->mask : im->labels;
    if (!path[0])
        return SB_OK;
    sb_image grey = { 0 };
    sb_status st = sb_image_load(path, SB_LOAD_GREY, &grey, err);
    if (!st)
        st = sb_labels_alloc(truth, grey.width, grey.height, err);
    if (!st) {
        for (int y = 0; y < grey.height; y++)
            for (int x = 0; x < grey.width; x++)
                truth->data[(size_t)y * grey.width + x] = sb_image_row(&grey, y)[x];
        *have = 1;
    }
    if (grey.data)
        sb_image_free(&grey);
    return st;
}

/* The gallery's pictures of the case drawn and encoded into its album,
 * which the gallery reporter writes in the cases' order. */
static sb_status make_gallery(const sb_algo *algo, run_case *k, sb_error *err)
{
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s-%s", algo->name, k->im->name);
    sb_gallery_album_begin(&k->album, prefix);
    const sb_case *c = &k->cd.c;
    return algo->gallery(&k->album, c->input, c->params, c->reference, err);
}

/* The quality of the reference's output, unless the quality file has it
 * already (a resumed run does not repeat it). */
static sb_status make_quality(const bench_run *r, const sb_algo *algo, run_case *k, sb_error *err)
{
    if (sb_reporters_quality_known(&r->out, algo, algo->stages[k->stage], k->im->name))
        return SB_OK;                          /* a resumed run measured it before */
    sb_labels truth = { 0 };
    int have;
    sb_status st = load_truth(k->im, algo->truth_is_mask, &truth, &have, err);
    const sb_case *c = &k->cd.c;
    if (!st)
        st = algo->quality(c->input, c->params, c->reference, have ? &truth : NULL, &k->quality, err);
    k->have_quality = st == SB_OK;
    if (have)
        sb_labels_free(&truth);
    return st;
}

void run_case_pictures(const bench_run *r, const sb_algo *algo, run_case *k)
{
    k->pictures = SB_OK;
    if (k->stage == 0 && k->im->gallery && r->pipe->keeps && algo->gallery)
        k->pictures = make_gallery(algo, k, &k->pictures_err);
    if (!k->pictures && algo->quality && r->pipe->keeps)
        k->pictures = make_quality(r, algo, k, &k->pictures_err);
}

sb_status run_case_pictures_record(bench_run *r, const sb_algo *algo, run_case *k, sb_error *err)
{
    if (k->pictures)
        return sb_fail(err, k->pictures, "%s", k->pictures_err.msg);
    sb_status st = SB_OK;
    if (k->album.count) {
        sb_gallery_report gr = { .algo = algo, .image = k->im->name, .album = &k->album };
        st = sb_reporters_gallery(&r->out, &gr, err);
    }
    sb_gallery_album_free(&k->album);
    if (st)
        return st;
    if (!k->have_quality)
        return SB_OK;
    k->have_quality = 0;
    const sb_image *in = k->cd.c.input;
    sb_quality_report qr = { .algo = algo, .stage = algo->stages[k->stage], .image = k->im->name,
                             .width = in->width, .height = in->height, .quality = &k->quality };
    return sb_reporters_quality(&r->out, &qr, err);
}
