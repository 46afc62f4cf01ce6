/* regions.c - connected components and connectivity enforcement on the
 * host (regions.h), written as band-parallel phases.
 *
 * Union-find with the smaller root always kept, so a component's root is
 * its smallest pixel index whatever the order of the unions.  Each band
 * first joins its own rows (its trees stay inside the band, so no thread
 * touches another's links); the seams between bands are then joined on
 * the calling thread, one row each.  Sizes and neighbour keys are added
 * into arrays indexed by root, which other bands share: with more than one
 * band those updates are atomic (GCC/Clang __atomic builtins).
 */
#include "segbench/regions.h"
#include "segbench/union_find.h"

#include <stdlib.h>
#include <string.h>


sb_status sb_regions_alloc(sb_regions *r, int width, int height, int bands, sb_error *err)
{
    memset(r, 0, sizeof *r);
    size_t n = (size_t)width * (size_t)height;
    r->width = width;
    r->height = height;
    r->parent = malloc(n * sizeof *r->parent);
    r->comp = malloc(n * sizeof *r->comp);
    r->size = malloc(n * sizeof *r->size);
    r->final = malloc(n * sizeof *r->final);
    r->best = malloc(n * sizeof *r->best);
    r->band_count = malloc((size_t)bands * sizeof *r->band_count);
    if (!r->parent || !r->comp || !r->size || !r->final || !r->best || !r->band_count) {
        sb_regions_free(r);
        return sb_fail(err, SB_ERR_NOMEM, "regions: out of memory for %dx%d", width, height);
    }
    return SB_OK;
}

void sb_regions_free(sb_regions *r)
{
    free(r->parent);
    free(r->comp);
    free(r->size);
    free(r->final);
    free(r->best);
    free(r->band_count);
    memset(r, 0, sizeof *r);
}

/* ---- the phases ------------------------------------------------------------ */

typedef struct regions_job {
    sb_regions *r;
    int32_t *labels;
    int min_piece;
    int atomic;        /* more than one band */
} regions_job;

/* Join each pixel with its left and upper neighbours inside the band. */
static void phase_union(void *ctx, int band, int bands)
{
    regions_job *j = ctx;
    sb_regions *r = j->r;
    int w = r->width, y0, y1;
    sb_band_rows(r->height, band, bands, &y0, &y1);
    const int32_t *L = j->labels;
    for (int y = y0; y < y1; y++) {
        int32_t row = y * w;
        for (int x = 0; x < w; x++) {
            int32_t i = row + x;
            r->parent[i] = i;
            if (x > 0 && L[i] == L[i - 1])
                sb_uf_unite(r->parent, i, i - 1);
            if (y > y0 && L[i] == L[i - w])
                sb_uf_unite(r->parent, i, i - w);
        }
    }
}

/* The seams: the first row of each band with the row above it. */
static void join_seams(regions_job *j, int bands)
{
    sb_regions *r = j->r;
    int w = r->width;
    for (int b = 1; b < bands; b++) {
        int y0, y1;
        sb_band_rows(r->height, b, bands, &y0, &y1);
        if (y0 == 0 || y0 >= r->height || y0 == y1)
            continue;
        for (int x = 0; x < w; x++) {
            int32_t i = y0 * w + x;
            if (j->labels[i] == j->labels[i - w])
                sb_uf_unite(r->parent, i, i - w);
        }
    }
}

/* comp = root of every pixel; clear the per-root arrays. */
static void phase_flatten(void *ctx, int band, int bands)
{
    regions_job *j = ctx;
    sb_regions *r = j->r;
    int y0, y1;
    sb_band_rows(r->height, band, bands, &y0, &y1);
    for (int32_t i = y0 * r->width; i < y1 * r->width; i++) {
        r->comp[i] = sb_uf_find_const(r->parent, i);
        r->size[i] = 0;
        r->best[i] = 0;
    }
}

static void phase_count(void *ctx, int band, int bands)
{
    regions_job *j = ctx;
    sb_regions *r = j->r;
    int y0, y1;
    sb_band_rows(r->height, band, bands, &y0, &y1);
    for (int32_t i = y0 * r->width; i < y1 * r->width; i++) {
        if (j->atomic)
            __atomic_fetch_add(&r->size[r->comp[i]], 1, __ATOMIC_RELAXED);
        else
            r->size[r->comp[i]]++;
    }
}

static void raise_key(uint64_t *slot, uint64_t key, int atomic)
{
    if (!atomic) {
        if (key > *slot)
            *slot = key;
        return;
    }
    uint64_t old = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (key > old && !__atomic_compare_exchange_n(slot, &old, key, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* Every pair of different components that touch (right and down
 * neighbours): the small ones note their largest neighbour. */
static void phase_best(void *ctx, int band, int bands)
{
    regions_job *j = ctx;
    sb_regions *r = j->r;
    int w = r->width, h = r->height, y0, y1;
    sb_band_rows(h, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++) {
            int32_t i = y * w + x, ci = r->comp[i];
            for (int d = 0; d < 2; d++) {
                if (d == 0 ? x + 1 >= w : y + 1 >= h)
                    continue;
                int32_t cj = r->comp[d == 0 ? i + 1 : i + w];
                if (ci == cj)
                    continue;
                if (r->size[ci] < j->min_piece)
                    raise_key(&r->best[ci], sb_regions_key((uint32_t)r->size[cj], (uint32_t)cj), j->atomic);
                if (r->size[cj] < j->min_piece)
                    raise_key(&r->best[cj], sb_regions_key((uint32_t)r->size[ci], (uint32_t)ci), j->atomic);
            }
        }
}

/* Step 2's pointers, into parent (no longer needed as links). */
static void phase_link(void *ctx, int band, int bands)
{
    regions_job *j = ctx;
    sb_regions *r = j->r;
    int y0, y1;
    sb_band_rows(r->height, band, bands, &y0, &y1);
    for (int32_t i = y0 * r->width; i < y1 * r->width; i++) {
        if (r->comp[i] != i)
            continue;
        uint64_t own = sb_regions_key((uint32_t)r->size[i], (uint32_t)i);
        r->parent[i] = r->size[i] < j->min_piece && r->best[i] > own ? (int32_t)sb_regions_key_root(r->best[i]) : i;
    }
}

/* Step 3: follow the pointers; count the kept roots of the band. */
static void phase_final(void *ctx, int band, int bands)
{
    regions_job *j = ctx;
    sb_regions *r = j->r;
    int y0, y1, kept = 0;
    sb_band_rows(r->height, band, bands, &y0, &y1);
    for (int32_t i = y0 * r->width; i < y1 * r->width; i++) {
        if (r->comp[i] != i)
            continue;
        int32_t f = i;
        while (r->parent[f] != f)
            f = r->parent[f];
        r->final[i] = f;
        kept += f == i;
    }
    r->band_count[band] = kept;
}

/* Step 4: number the kept roots in order (bands start at their prefix,
 * left in band_count by the calling thread). */
static void phase_number(void *ctx, int band, int bands)
{
    regions_job *j = ctx;
    sb_regions *r = j->r;
    int y0, y1, next = r->band_count[band];
    sb_band_rows(r->height, band, bands, &y0, &y1);
    for (int32_t i = y0 * r->width; i < y1 * r->width; i++)
        if (r->comp[i] == i && r->final[i] == i)
            r->size[i] = next++;
}

static void phase_label(void *ctx, int band, int bands)
{
    regions_job *j = ctx;
    sb_regions *r = j->r;
    int y0, y1;
    sb_band_rows(r->height, band, bands, &y0, &y1);
    for (int32_t i = y0 * r->width; i < y1 * r->width; i++)
        j->labels[i] = r->size[r->final[r->comp[i]]];
}

static void components(regions_job *j, const sb_band_runner *run)
{
    sb_band_run(run, phase_union, j);
    join_seams(j, run->bands);
    sb_band_run(run, phase_flatten, j);
}

long sb_regions_components(sb_regions *r, const sb_band_runner *run, const int32_t *labels)
{
    regions_job j = { r, (int32_t *)labels, 0, run->bands > 1 };
    components(&j, run);
    long count = 0;
    for (size_t i = 0, n = (size_t)r->width * (size_t)r->height; i < n; i++)
        count += r->comp[i] == (int32_t)i;
    return count;
}

int sb_regions_enforce(sb_regions *r, const sb_band_runner *run, int32_t *labels, int min_piece)
{
    regions_job j = { r, labels, min_piece, run->bands > 1 };
    components(&j, run);
    sb_band_run(run, phase_count, &j);
    sb_band_run(run, phase_best, &j);
    sb_band_run(run, phase_link, &j);
    sb_band_run(run, phase_final, &j);
    int total = 0;
    for (int b = 0; b < run->bands; b++) {      /* exclusive prefix of the kept counts */
        int c = r->band_count[b];
        r->band_count[b] = total;
        total += c;
    }
    sb_band_run(run, phase_number, &j);
    sb_band_run(run, phase_label, &j);
    return total;
}
