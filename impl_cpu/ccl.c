/* ccl.c - connected components from join bits (ccl.h). */
#include "segbench/ccl.h"
#include "segbench/union_find.h"

typedef struct ccl_job {
    int width, height;
    const uint8_t *join;
    int32_t *parent, *comp;
} ccl_job;

/* Unions inside the band only, so no two threads touch one tree. */
static void phase_union(void *ctx, int band, int bands)
{
    ccl_job *j = ctx;
    int w = j->width, y0, y1;
    sb_band_rows(j->height, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++) {
            int32_t i = y * w + x;
            j->parent[i] = i;
            if (x > 0 && (j->join[i] & SB_CCL_LEFT))
                sb_uf_unite(j->parent, i, i - 1);
            if (y > y0 && (j->join[i] & SB_CCL_UP))
                sb_uf_unite(j->parent, i, i - w);
        }
}

static void phase_flatten(void *ctx, int band, int bands)
{
    ccl_job *j = ctx;
    int y0, y1;
    sb_band_rows(j->height, band, bands, &y0, &y1);
    for (int32_t i = y0 * j->width; i < y1 * j->width; i++) {
        j->comp[i] = sb_uf_find_const(j->parent, i);   /* read only: other bands read these links too */
    }
}

void sb_ccl(const sb_band_runner *run, int width, int height, const uint8_t *join, int32_t *parent, int32_t *comp)
{
    ccl_job j = { width, height, join, parent, comp };
    sb_band_run(run, phase_union, &j);
    for (int b = 1; b < run->bands; b++) {      /* the first row of each band with the row above */
        int y0, y1;
        sb_band_rows(height, b, run->bands, &y0, &y1);
        if (y0 == 0 || y0 >= height || y0 == y1)
            continue;
        for (int x = 0; x < width; x++) {
            int32_t i = y0 * width + x;
            if (join[i] & SB_CCL_UP)
                sb_uf_unite(parent, i, i - width);
        }
    }
    sb_band_run(run, phase_flatten, &j);
}
