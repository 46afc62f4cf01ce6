/* pictures.c - what a run shows besides times: the gallery of the
 * reference's pictures, and the quality of its output against the
 * image's ground truth (<algo>.quality.csv). */
#include "run/state.h"

#include "algos/quality.h"

#include "segbench/image_io.h"

#include <stdlib.h>
#include <string.h>

/* The gallery: the reference's pictures for images marked for it. */
sb_status run_gallery(bench_run *r, const sb_algo *algo, const sb_dataset_image *im, const sb_case *c,
                      sb_error *err)
{
    char dir[SB_PATH_MAX], prefix[256];
    sb_status st = sb_path(dir, err, "%s/gallery", r->results_dir);
    if (st)
        return st;
    snprintf(prefix, sizeof prefix, "%s-%s", algo->name, im->name);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    st = algo->gallery(dir, prefix, c->input, c->params, c->reference, mem, err);
    fclose(mem);
    FILE *index = st ? NULL : sb_gallery_index_redo(&r->gallery, algo->name, im->name);
    for (char *line = buf, *next; index && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        fprintf(index, "%s\t%s\t%s\n", algo->name, im->name, line);
    }
    free(buf);
    return st;
}

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

/* The quality of the reference's output on this image and stage, appended
 * to <algo>.quality.csv (once: a resumed run does not repeat it). */
sb_status run_quality(bench_run *r, const sb_algo *algo, const sb_dataset_image *im, const sb_case *c,
                      sb_error *err)
{
    char key[300];
    snprintf(key, sizeof key, "\n%s,%s,%s,", algo->name, algo->stages[c->stage], im->name);
    if (r->quality_text && strstr(r->quality_text, key))
        return SB_OK;
    sb_labels truth = { 0 };
    int have;
    sb_status st = load_truth(im, algo->truth_is_mask, &truth, &have, err);
    sb_quality measures;
    if (!st)
        st = algo->quality(c->input, c->params, c->reference, have ? &truth : NULL, &measures, err);
    if (!st) {
        sb_quality_put(r->quality_log.fp, algo->name, algo->stages[c->stage], im->name, c->input->width,
                       c->input->height, &measures);
        st = sb_csv_log_flush(&r->quality_log, err);
    }
    if (have)
        sb_labels_free(&truth);
    return st;
}
