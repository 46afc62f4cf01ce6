/* meanshift_regions.c - flood and merge on the host (meanshift.h), as
 * band-parallel phases over rows.  Per-region arrays are indexed by the
 * region's label (a pixel index), so bands share them: with more than one
 * band, additions and minima are atomic (GCC/Clang __atomic builtins).
 */
#include "meanshift_host.h"

#include "segbench/ccl.h"

#include <stdlib.h>
#include <string.h>

sb_status sb_ms_scratch_alloc(sb_ms_scratch *s, int width, int height, int bands, sb_error *err)
{
    memset(s, 0, sizeof *s);
    size_t n = (size_t)width * (size_t)height;
    s->width = width;
    s->height = height;
    s->join = malloc(n);
    s->parent = malloc(n * sizeof *s->parent);
    s->comp = malloc(n * sizeof *s->comp);
    s->count = malloc(n * sizeof *s->count);
    s->sum = malloc(3 * n * sizeof *s->sum);
    s->mean = malloc(n * sizeof *s->mean);
    s->best = malloc(n * sizeof *s->best);
    s->target = malloc(n * sizeof *s->target);
    s->end = malloc(n * sizeof *s->end);
    s->first = malloc(n * sizeof *s->first);
    s->band_count = malloc((size_t)bands * sizeof *s->band_count);
    if (!s->join || !s->parent || !s->comp || !s->count || !s->sum || !s->mean || !s->best || !s->target ||
        !s->end || !s->first || !s->band_count) {
        sb_ms_scratch_free(s);
        return sb_fail(err, SB_ERR_NOMEM, "meanshift: out of memory for %dx%d region scratch", width, height);
    }
    return SB_OK;
}

void sb_ms_scratch_free(sb_ms_scratch *s)
{
    free(s->join);
    free(s->parent);
    free(s->comp);
    free(s->count);
    free(s->sum);
    free(s->mean);
    free(s->best);
    free(s->target);
    free(s->end);
    free(s->first);
    free(s->band_count);
    memset(s, 0, sizeof *s);
}

typedef struct region_job {
    sb_ms_scratch *s;
    const uint32_t *colour;   /* filtered colours */
    const int32_t *label;     /* the regions the current phase reads */
    int range2, min_area;
    int atomic;               /* more than one band */
    int32_t *out;
} region_job;

static void band_span(const region_job *j, int band, int bands, int32_t *i0, int32_t *i1)
{
    int y0, y1;
    sb_band_rows(j->s->height, band, bands, &y0, &y1);
    *i0 = y0 * j->s->width;
    *i1 = y1 * j->s->width;
}

/* ---- join bits ----------------------------------------------------------------- */

/* Flood: neighbours whose colours are within range. */
static void phase_join_colour(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    int w = j->s->width;
    int32_t i0, i1;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t i = i0; i < i1; i++) {
        uint8_t bits = 0;
        if (i % w && sb_ms_d2(j->colour[i], j->colour[i - 1]) <= j->range2)
            bits |= SB_CCL_LEFT;
        if (i >= w && sb_ms_d2(j->colour[i], j->colour[i - w]) <= j->range2)
            bits |= SB_CCL_UP;
        j->s->join[i] = bits;
    }
}

/* Fusion: the same region, or regions whose means are within range. */
static int fuse(const region_job *j, int32_t a, int32_t b)
{
    return a == b || sb_ms_d2(j->s->mean[a], j->s->mean[b]) <= j->range2;
}

static void phase_join_fusion(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    int w = j->s->width;
    int32_t i0, i1;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t i = i0; i < i1; i++) {
        uint8_t bits = 0;
        if (i % w && fuse(j, j->label[i], j->label[i - 1]))
            bits |= SB_CCL_LEFT;
        if (i >= w && fuse(j, j->label[i], j->label[i - w]))
            bits |= SB_CCL_UP;
        j->s->join[i] = bits;
    }
}

/* ---- region sizes and mean colours ---------------------------------------------- */

static void phase_clear(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    int32_t i0, i1;
    band_span(j, band, bands, &i0, &i1);
    memset(j->s->count + i0, 0, (size_t)(i1 - i0) * sizeof *j->s->count);
    memset(j->s->sum + 3 * (size_t)i0, 0, 3 * (size_t)(i1 - i0) * sizeof *j->s->sum);
}

static void add32(int32_t *p, int32_t v, int atomic)
{
    if (atomic)
        __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    else
        *p += v;
}

static void add64(int64_t *p, int64_t v, int atomic)
{
    if (atomic)
        __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    else
        *p += v;
}

/* Pixels of a region come in runs along a row: a run's sums are added
 * once, so threads rarely meet on one region's counters (with one atomic
 * a pixel, a region spanning the image serialised every band on its
 * cache line: 16 threads ran slower than one). */
static void flush_run(region_job *j, int32_t r, int32_t n, const int64_t sum[3])
{
    sb_ms_scratch *s = j->s;
    add32(&s->count[r], n, j->atomic);
    for (int c = 0; c < 3; c++)
        add64(&s->sum[3 * (size_t)r + c], sum[c], j->atomic);
}

static void phase_sums(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    int32_t i0, i1, run = -1, n = 0;
    int64_t sum[3] = { 0, 0, 0 };
    band_span(j, band, bands, &i0, &i1);
    for (int32_t i = i0; i < i1; i++) {
        int32_t r = j->label[i];
        if (r != run) {
            if (n)
                flush_run(j, run, n, sum);
            run = r;
            n = 0;
            sum[0] = sum[1] = sum[2] = 0;
        }
        uint32_t c = j->colour[i];
        n++;
        sum[0] += c & 255u;
        sum[1] += c >> 8 & 255u;
        sum[2] += c >> 16 & 255u;
    }
    if (n)
        flush_run(j, run, n, sum);
}

/* Means, and the pruning's cleared keys, for every region (label) in the band. */
static uint32_t mean_byte(int64_t sum, int32_t n) { return (uint32_t)((2 * sum + n) / (2 * (int64_t)n)); }

static void phase_means(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    sb_ms_scratch *s = j->s;
    int32_t i0, i1;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t r = i0; r < i1; r++) {
        s->best[r] = UINT64_MAX;
        int32_t n = s->count[r];
        if (n)
            s->mean[r] = sb_ms_pack(mean_byte(s->sum[3 * (size_t)r], n), mean_byte(s->sum[3 * (size_t)r + 1], n),
                                    mean_byte(s->sum[3 * (size_t)r + 2], n));
    }
}

static void region_stats(const sb_band_runner *run, region_job *j)
{
    sb_band_run(run, phase_clear, j);
    sb_band_run(run, phase_sums, j);
    sb_band_run(run, phase_means, j);
}

/* ---- pruning ------------------------------------------------------------------------ */

static void lower_key(uint64_t *slot, uint64_t key, int atomic)
{
    if (!atomic) {
        if (key < *slot)
            *slot = key;
        return;
    }
    uint64_t old = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (key < old && !__atomic_compare_exchange_n(slot, &old, key, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static void note(region_job *j, int32_t small, int32_t other)
{
    sb_ms_scratch *s = j->s;
    if (s->count[small] < j->min_area)
        lower_key(&s->best[small], sb_ms_prune_key(sb_ms_d2(s->mean[small], s->mean[other]), other), j->atomic);
}

/* Every touching pair of regions (right and lower neighbours). */
static void phase_best(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    int w = j->s->width, h = j->s->height;
    int32_t i0, i1;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t i = i0; i < i1; i++) {
        int32_t a = j->label[i];
        int32_t nb[2] = { (i + 1) % w ? j->label[i + 1] : a, i / w + 1 < h ? j->label[i + w] : a };
        for (int d = 0; d < 2; d++)
            if (nb[d] != a) {
                note(j, a, nb[d]);
                note(j, nb[d], a);
            }
    }
}

/* Each region's pointer: its best neighbour, or itself. */
static void phase_target(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    sb_ms_scratch *s = j->s;
    int32_t i0, i1;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t r = i0; r < i1; r++)
        if (j->label[r] == r)
            s->target[r] = s->best[r] == UINT64_MAX ? r : (int32_t)(uint32_t)s->best[r];
}

/* Two regions pointing at each other: the smaller keeps itself.  Then
 * follow the pointers to their end, and note each end's smallest region. */
static int32_t pointer(const sb_ms_scratch *s, int32_t r)
{
    int32_t t = s->target[r];
    return s->target[t] == r && r < t ? r : t;
}

static void phase_end(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    sb_ms_scratch *s = j->s;
    int32_t i0, i1;
    int merged = 0;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t r = i0; r < i1; r++)
        if (j->label[r] == r) {
            int32_t e = r, next;
            while ((next = pointer(s, e)) != e)
                e = next;
            s->end[r] = e;
            s->first[r] = INT32_MAX;
            merged |= e != r;
        }
    if (merged)
        __atomic_store_n(&s->merged, 1, __ATOMIC_RELAXED);
}

static void phase_first(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    sb_ms_scratch *s = j->s;
    int32_t i0, i1;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t r = i0; r < i1; r++)
        if (j->label[r] == r) {
            int32_t *slot = &s->first[s->end[r]];
            if (!j->atomic) {
                if (r < *slot)
                    *slot = r;
            } else {
                int32_t old = __atomic_load_n(slot, __ATOMIC_RELAXED);
                while (r < old && !__atomic_compare_exchange_n(slot, &old, r, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                    ;
            }
        }
}

/* Every pixel to its group's smallest region (written beside, then swapped). */
static void phase_relabel(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    sb_ms_scratch *s = j->s;
    int32_t i0, i1;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t i = i0; i < i1; i++)
        j->out[i] = s->first[s->end[j->label[i]]];
}

/* ---- numbering ---------------------------------------------------------------------- */

static void phase_count_roots(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    int32_t i0, i1, k = 0;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t r = i0; r < i1; r++)
        k += j->label[r] == r;
    j->s->band_count[band] = k;
}

static void phase_number_roots(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    int32_t i0, i1, k = j->s->band_count[band];
    band_span(j, band, bands, &i0, &i1);
    for (int32_t r = i0; r < i1; r++)
        if (j->label[r] == r)
            j->s->count[r] = k++;
}

static void phase_number_pixels(void *ctx, int band, int bands)
{
    region_job *j = ctx;
    int32_t i0, i1;
    band_span(j, band, bands, &i0, &i1);
    for (int32_t i = i0; i < i1; i++)
        j->out[i] = j->s->count[j->label[i]];
}

static int number_regions(const sb_band_runner *run, region_job *j)
{
    sb_band_run(run, phase_count_roots, j);
    int total = 0;
    for (int b = 0; b < run->bands; b++) {
        int c = j->s->band_count[b];
        j->s->band_count[b] = total;
        total += c;
    }
    sb_band_run(run, phase_number_roots, j);
    sb_band_run(run, phase_number_pixels, j);
    return total;
}

/* ---- the steps ------------------------------------------------------------------------ */

int sb_ms_host_flood(const sb_band_runner *run, sb_ms_scratch *s, const uint32_t *colour, int range,
                     int32_t *labels)
{
    region_job j = { s, colour, NULL, sb_ms_join2(range), 0, run->bands > 1, labels };
    sb_band_run(run, phase_join_colour, &j);
    sb_ccl(run, s->width, s->height, s->join, s->parent, labels);
    j.label = labels;
    sb_band_run(run, phase_count_roots, &j);
    int total = 0;
    for (int b = 0; b < run->bands; b++)
        total += s->band_count[b];
    return total;
}

int sb_ms_host_merge(const sb_band_runner *run, sb_ms_scratch *s, const uint32_t *colour, const int32_t *flood,
                     const sb_ms_params *p, int32_t *labels)
{
    region_job j = { s, colour, flood, sb_ms_join2(p->range), p->min_area, run->bands > 1, NULL };
    /* 1-2: means of the flood regions, then fusion */
    region_stats(run, &j);
    sb_band_run(run, phase_join_fusion, &j);
    sb_ccl(run, s->width, s->height, s->join, s->parent, s->comp);
    /* 3: pruning rounds; comp and labels take turns as the current regions */
    int32_t *cur = s->comp, *next = labels;
    for (int round = 0; round < SB_MS_MAX_PRUNE && p->min_area > 1; round++) {
        j.label = cur;
        region_stats(run, &j);
        sb_band_run(run, phase_best, &j);
        sb_band_run(run, phase_target, &j);
        s->merged = 0;
        sb_band_run(run, phase_end, &j);
        if (!s->merged)
            break;
        sb_band_run(run, phase_first, &j);
        j.out = next;
        sb_band_run(run, phase_relabel, &j);
        int32_t *t = cur;
        cur = next;
        next = t;
    }
    /* 4: numbers in the order of the regions' smallest pixels */
    j.label = cur;
    j.out = labels;
    if (cur == labels) {          /* numbering reads and writes: work from comp */
        memcpy(s->comp, labels, (size_t)s->width * (size_t)s->height * sizeof *labels);
        j.label = s->comp;
    }
    return number_regions(run, &j);
}
