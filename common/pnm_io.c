/* pnm_io.c - binary PGM (P5) and PPM (P6), 8- or 16-bit samples.
 *
 * Samples with a maxval other than 255 are rescaled to 0..255 with
 * rounding.  The plain-text variants (P2, P3) and bitmaps (P1, P4) are
 * refused with a message that says so.
 *
 * Comments follow libnetpbm's reader (pm_getc): from '#' to the end of
 * the line, anywhere in the header, also right after a number's digits
 * ("640#w\n"), where the comment's line end ends the number.
 */
#include "segbench/image_io.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The next header character, a comment read as the line end that closes it. */
static int pnm_getc(FILE *fp)
{
    int c = fgetc(fp);
    if (c == '#')
        do
            c = fgetc(fp);
        while (c != '\n' && c != '\r' && c != EOF);
    return c;
}

/* Read one unsigned header number and the one white-space character after it. */
static int pnm_read_number(FILE *fp, long *value)
{
    int c;
    do
        c = pnm_getc(fp);
    while (c != EOF && isspace(c));
    if (c == EOF || !isdigit(c))
        return -1;
    long v = 0;
    while (c != EOF && isdigit(c)) {
        if (v > 100000000L)
            return -1;
        v = v * 10 + (c - '0');
        c = pnm_getc(fp);
    }
    if (c != EOF && !isspace(c))
        return -1;
    *value = v;
    return 0;
}

typedef struct pnm_header {
    int channels;
    long width, height, maxval;
} pnm_header;

/* The header after the magic number's first byte ('P') has been read. */
static sb_status pnm_header_read(FILE *fp, const char *path, pnm_header *h, sb_error *err)
{
    int type = fgetc(fp);
    if (type != '5' && type != '6') {
        if (type >= '1' && type <= '7')
            return sb_fail(err, SB_ERR_FORMAT, "%s: PNM type P%c is not supported (only binary P5 and P6)", path,
                           type);
        return sb_fail(err, SB_ERR_FORMAT, "%s: not a PNM file", path);
    }
    h->channels = type == '5' ? 1 : 3;
    if (pnm_read_number(fp, &h->width) || pnm_read_number(fp, &h->height) || pnm_read_number(fp, &h->maxval))
        return sb_fail(err, SB_ERR_FORMAT, "%s: corrupt PNM header", path);
    if (h->width > SB_MAX_SIDE || h->height > SB_MAX_SIDE)
        return sb_fail(err, SB_ERR_LIMIT, "%s: PNM header claims %ldx%ld, over the limit (%d per side)", path,
                       h->width, h->height, SB_MAX_SIDE);
    if (h->maxval < 1 || h->maxval > 65535)
        return sb_fail(err, SB_ERR_FORMAT, "%s: PNM maxval %ld outside 1..65535", path, h->maxval);
    return sb_image_check_decode(path, (int)h->width, (int)h->height, err);
}

sb_status sb_pnm_probe_rest(FILE *fp, const char *path, sb_image_info *info, sb_error *err)
{
    pnm_header h;
    sb_status st = pnm_header_read(fp, path, &h, err);
    if (!st)
        *info = (sb_image_info){ (int)h.width, (int)h.height, h.channels };
    return st;
}

sb_status sb_pnm_read_rest(FILE *fp, const char *path, sb_load_mode mode, sb_image *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    pnm_header h;
    sb_status st = pnm_header_read(fp, path, &h, err);
    if (st)
        return st;
    sb_image img;
    if ((st = sb_image_alloc(&img, (int)h.width, (int)h.height, h.channels, err)))
        return st;
    size_t samples = (size_t)h.width * (size_t)h.channels;
    int wide = h.maxval > 255;
    unsigned maxval = (unsigned)h.maxval;
    unsigned char *line = malloc(samples * (wide ? 2 : 1));
    if (!line) {
        sb_image_free(&img);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", path);
    }
    for (long y = 0; y < h.height; y++) {
        if (fread(line, wide ? 2 : 1, samples, fp) != samples) {
            free(line);
            sb_image_free(&img);
            return sb_fail(err, SB_ERR_FORMAT, "%s: truncated PNM data (row %ld of %ld)", path, y, h.height);
        }
        uint8_t *row = sb_image_row(&img, (int)y);
        for (size_t i = 0; i < samples; i++) {
            unsigned v = wide ? (unsigned)line[2 * i] << 8 | line[2 * i + 1] : line[i];
            if (v > maxval)
                v = maxval;
            row[i] = (uint8_t)((v * 255u + maxval / 2) / maxval);
        }
    }
    free(line);

    int want = mode == SB_LOAD_GREY ? 1 : mode == SB_LOAD_RGB ? 3 : h.channels;
    if (want == h.channels) {
        *out = img;
        return SB_OK;
    }
    st = sb_image_convert(&img, want, out, err);
    sb_image_free(&img);
    return st;
}

sb_status sb_pnm_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    if (fgetc(fp) != 'P')
        return sb_fail(err, SB_ERR_FORMAT, "%s: not a PNM file", path);
    return sb_pnm_read_rest(fp, path, mode, out, err);
}

sb_status sb_pnm_write(FILE *fp, const char *path, const sb_image *img, sb_error *err)
{
    if (img->channels != 1 && img->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: cannot write a %d-channel image", path, img->channels);
    fprintf(fp, "P%c\n%d %d\n255\n", img->channels == 1 ? '5' : '6', img->width, img->height);
    size_t row_bytes = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++)
        if (fwrite(sb_image_row(img, y), 1, row_bytes, fp) != row_bytes)
            return sb_fail(err, SB_ERR_IO, "%s: write failed (%s)", path, strerror(errno));
    return SB_OK;
}
