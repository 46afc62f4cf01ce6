/* meanshift_filter.c - the colour conversion and the mean-shift filter on
 * the host (the rules are in meanshift.h).
 *
 * The filter's cost varies from pixel to pixel (iterations, clipped
 * windows), so bands take interleaved rows: band b of n does rows b,
 * b + n, ...; every band gets a fair share of each part of the image.
 */
#include "meanshift_host.h"

typedef struct convert_job {
    const sb_image *rgb;
    uint32_t *luv;
    const float *linear;
} convert_job;

static void phase_convert(void *ctx, int band, int bands)
{
    convert_job *j = ctx;
    int y0, y1, w = j->rgb->width;
    sb_band_rows(j->rgb->height, band, bands, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        const uint8_t *px = sb_image_row(j->rgb, y);
        for (int x = 0; x < w; x++, px += 3)
            j->luv[(size_t)y * w + x] = sb_ms_luv_of(j->linear, px[0], px[1], px[2]);
    }
}

void sb_ms_host_convert(const sb_band_runner *run, const sb_image *rgb, uint32_t *luv)
{
    convert_job j = { rgb, luv, sb_slic_linear_table() };
    sb_band_run(run, phase_convert, &j);
}

/* One pixel's mode (meanshift.h, "Filter"). */
static uint32_t filter_pixel(const uint32_t *luv, int w, int h, int x, int y, const sb_ms_params *p)
{
    int r = p->radius, range2 = p->range * p->range, cx = x, cy = y;
    uint32_t m = luv[(size_t)y * w + x];
    for (int it = 0; it < p->max_iter; it++) {
        int x0 = cx - r < 0 ? 0 : cx - r, x1 = cx + r >= w ? w - 1 : cx + r;
        int y0 = cy - r < 0 ? 0 : cy - r, y1 = cy + r >= h ? h - 1 : cy + r;
        sb_ms_sums s = { 0, 0, 0, 0, 0, 0 };
        for (int qy = y0; qy <= y1; qy++) {
            const uint32_t *row = luv + (size_t)qy * w;
            int n = 0, dx = 0, L = 0, u = 0, v = 0;     /* one row: simple sums the compiler vectorises */
            for (int qx = x0; qx <= x1; qx++) {
                uint32_t c = row[qx];
                int in = sb_ms_d2(c, m) <= range2;
                n += in;
                dx += in ? qx - cx : 0;
                L += in ? (int)(c & 255u) : 0;
                u += in ? (int)(c >> 8 & 255u) : 0;
                v += in ? (int)(c >> 16 & 255u) : 0;
            }
            s.n += n;
            s.dx += dx;
            s.dy += n * (qy - cy);
            s.L += L;
            s.u += u;
            s.v += v;
        }
        if (!sb_ms_step(&s, &cx, &cy, &m))
            break;
    }
    return m;
}

typedef struct filter_job {
    int width, height;
    const uint32_t *luv;
    const sb_ms_params *p;
    uint32_t *out;
} filter_job;

static void phase_filter(void *ctx, int band, int bands)
{
    filter_job *j = ctx;
    for (int y = band; y < j->height; y += bands)
        for (int x = 0; x < j->width; x++)
            j->out[(size_t)y * j->width + x] = filter_pixel(j->luv, j->width, j->height, x, y, j->p);
}

void sb_ms_host_filter(const sb_band_runner *run, int width, int height, const uint32_t *luv,
                       const sb_ms_params *p, uint32_t *out)
{
    filter_job j = { width, height, luv, p, out };
    sb_band_run(run, phase_filter, &j);
}
