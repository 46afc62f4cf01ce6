/* segmetrics.c - boundary recall, undersegmentation error, achievable
 * segmentation accuracy and pieces per label (segmetrics.h). */
#include "algos/segmetrics.h"

#include "segbench/regions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sb_boundary_radius(int width, int height)
{
    double diagonal = sqrt((double)width * width + (double)height * height);
    long r = lround(0.0025 * diagonal);
    return r < 1 ? 1 : (int)r;
}

static int is_boundary(const int32_t *m, int w, int h, int x, int y)
{
    size_t i = (size_t)y * w + x;
    return (x + 1 < w && m[i + 1] != m[i]) || (y + 1 < h && m[i + w] != m[i]);
}

static sb_status check_range(const int32_t *m, size_t n, const char *what, sb_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (m[i] < 0 || (size_t)m[i] >= n)
            return sb_fail(err, SB_ERR_USAGE, "%s label %d at pixel %zu is outside 0..%zu", what, m[i], i, n - 1);
    return SB_OK;
}

sb_status sb_boundary_recall(const int32_t *seg, const int32_t *truth, int w, int h, int radius, double *recall,
                             sb_error *err)
{
    /* A summed-area table of the segmentation's boundary: a box sum tells
     * whether any boundary pixel lies within the radius. */
    size_t W = (size_t)w + 1;
    uint32_t *sat = calloc(W * ((size_t)h + 1), sizeof *sat);
    if (!sat)
        return sb_fail(err, SB_ERR_NOMEM, "boundary recall: out of memory for %dx%d", w, h);
    for (int y = 0; y < h; y++) {
        uint32_t run = 0;
        for (int x = 0; x < w; x++) {
            run += (uint32_t)is_boundary(seg, w, h, x, y);
            sat[(y + 1) * W + x + 1] = sat[y * W + x + 1] + run;
        }
    }
    size_t found = 0, total = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (!is_boundary(truth, w, h, x, y))
                continue;
            total++;
            int x0 = x - radius < 0 ? 0 : x - radius, x1 = x + radius + 1 > w ? w : x + radius + 1;
            int y0 = y - radius < 0 ? 0 : y - radius, y1 = y + radius + 1 > h ? h : y + radius + 1;
            uint32_t box = sat[y1 * W + x1] - sat[y0 * W + x1] - sat[y1 * W + x0] + sat[y0 * W + x0];
            found += box > 0;
        }
    free(sat);
    *recall = total ? (double)found / (double)total : 1.0;
    return SB_OK;
}

/* The overlap table |S and G|: truth labels are few, so they are first
 * renumbered densely; then one row of counts per segment label. */
sb_status sb_overlap_scores(const int32_t *seg, const int32_t *truth, int w, int h, double *under_error,
                            double *accuracy, sb_error *err)
{
    size_t n = (size_t)w * (size_t)h;
    sb_status st = check_range(seg, n, "segmentation", err);
    if (!st)
        st = check_range(truth, n, "truth", err);
    if (st)
        return st;
    int32_t *dense = malloc(n * sizeof *dense);
    if (!dense)
        return sb_fail(err, SB_ERR_NOMEM, "overlap scores: out of memory");
    for (size_t i = 0; i < n; i++)
        dense[i] = -1;
    size_t G = 0, S = 0;
    for (size_t i = 0; i < n; i++) {
        if (dense[truth[i]] < 0)
            dense[truth[i]] = (int32_t)G++;
        if ((size_t)seg[i] + 1 > S)
            S = (size_t)seg[i] + 1;
    }
    if (G > 4096 || S * G > ((size_t)1 << 28)) {
        free(dense);
        return sb_fail(err, SB_ERR_USAGE, "overlap scores: %zu truth regions x %zu segments is too many", G, S);
    }
    uint32_t *table = calloc(S * G, sizeof *table), *seg_size = calloc(S, sizeof *seg_size);
    if (!table || !seg_size) {
        free(dense);
        free(table);
        free(seg_size);
        return sb_fail(err, SB_ERR_NOMEM, "overlap scores: out of memory for %zu x %zu", S, G);
    }
    for (size_t i = 0; i < n; i++) {
        table[(size_t)seg[i] * G + (size_t)dense[truth[i]]]++;
        seg_size[seg[i]]++;
    }
    double under = 0.0, best_total = 0.0;
    for (size_t s = 0; s < S; s++) {
        uint32_t best = 0;
        for (size_t g = 0; g < G; g++) {
            uint32_t in = table[s * G + g], out = seg_size[s] - in;
            if (in)
                under += in < out ? in : out;
            best = in > best ? in : best;
        }
        best_total += best;
    }
    free(dense);
    free(table);
    free(seg_size);
    *under_error = under / (double)n;
    *accuracy = best_total / (double)n;
    return SB_OK;
}

sb_status sb_pieces_per_label(const int32_t *seg, int w, int h, double *pieces, sb_error *err)
{
    size_t n = (size_t)w * (size_t)h;
    sb_status st = check_range(seg, n, "segmentation", err);
    if (st)
        return st;
    uint8_t *seen = calloc(n, 1);
    sb_regions r;
    if (!seen || sb_regions_alloc(&r, w, h, 1, err)) {
        free(seen);
        return sb_fail(err, SB_ERR_NOMEM, "pieces per label: out of memory");
    }
    sb_band_runner serial = sb_band_serial();
    long components = sb_regions_components(&r, &serial, seg);
    size_t labels = 0;
    for (size_t i = 0; i < n; i++)
        if (!seen[seg[i]]) {
            seen[seg[i]] = 1;
            labels++;
        }
    sb_regions_free(&r);
    free(seen);
    *pieces = (double)components / (double)labels;
    return SB_OK;
}
