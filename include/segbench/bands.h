/* bands.h - how host code runs band-parallel work without knowing on what.
 *
 * An algorithm written for the host is a sequence of phases; each phase
 * is a function fn(ctx, band, bands) that handles band `band` of `bands`
 * (usually a range of rows, sb_band_rows) and may assume every earlier
 * phase has finished on every band.  A variant supplies the runner: the
 * serial reference a loop over one band, the pthread variant its pool,
 * the OpenMP variant a parallel region.  So the algorithm exists once and
 * the variants differ only in how bands are executed -- which is the
 * whole of what differs between them.
 */
#ifndef SEGBENCH_BANDS_H
#define SEGBENCH_BANDS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*sb_band_fn)(void *ctx, int band, int bands);

typedef struct sb_band_runner {
    /* call fn(ctx, i, bands) for every i in 0..bands-1 and return when all
     * have finished */
    void (*run)(void *self, sb_band_fn fn, void *ctx, int bands);
    void *self;
    int bands;
} sb_band_runner;

/* The serial runner: one band (bands == 1), run on the calling thread. */
sb_band_runner sb_band_serial(void);

static inline void sb_band_run(const sb_band_runner *r, sb_band_fn fn, void *ctx)
{
    r->run(r->self, fn, ctx, r->bands);
}

/* Rows [*y0, *y1) of band i of n over `height` rows (even split). */
static inline void sb_band_rows(int height, int i, int n, int *y0, int *y1)
{
    *y0 = (int)((long long)height * i / n);
    *y1 = (int)((long long)height * (i + 1) / n);
}

#ifdef __cplusplus
}
#endif
#endif
