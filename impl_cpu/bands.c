/* bands.c - the serial band runner (bands.h). */
#include "segbench/bands.h"

#include <stddef.h>

static void serial_run(void *self, sb_band_fn fn, void *ctx, int bands)
{
    (void)self;
    for (int i = 0; i < bands; i++)
        fn(ctx, i, bands);
}

sb_band_runner sb_band_serial(void)
{
    sb_band_runner r = { serial_run, NULL, 1 };
    return r;
}
