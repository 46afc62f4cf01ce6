/* pnm_io.c - binary PGM (P5) and PPM (P6), 8- or 16-bit samples.
 *
 * Samples with a maxval other than 255 are rescaled to 0..255 with
 * rounding.  The plain-text variants (P2, P3) and bitmaps (P1, P4) are
 * refused with a message that says so.
 */
#include "segbench/image_io.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Read one unsigned header number, skipping white space and # comments. */
static int pnm_read_number(FILE *fp, long *value)
{
    int c;
    for (;;) {
        c = fgetc(fp);
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(fp);
        } else if (!isspace(c)) {
            break;
        }
    }
    if (c == EOF || !isdigit(c))
        return -1;
    long v = 0;
    while (c != EOF && isdigit(c)) {
        if (v > 100000000L)
            return -1;
        v = v * 10 + (c - '0');
        c = fgetc(fp);
    }
    if (c != EOF && !isspace(c))
        return -1;
    *value = v;
    return 0;
}

sb_status sb_pnm_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    char magic[2];
    if (fread(magic, 1, 2, fp) != 2 || magic[0] != 'P')
        return sb_fail(err, SB_ERR_FORMAT, "%s: not a PNM file", path);
    if (magic[1] != '5' && magic[1] != '6')
        return sb_fail(err, SB_ERR_FORMAT, "%s: PNM type P%c is not supported (only binary P5 and P6)",
                       path, magic[1]);
    int file_channels = magic[1] == '5' ? 1 : 3;
    long w, h, maxval;
    if (pnm_read_number(fp, &w) || pnm_read_number(fp, &h) || pnm_read_number(fp, &maxval))
        return sb_fail(err, SB_ERR_FORMAT, "%s: corrupt PNM header", path);
    if (w > SB_MAX_SIDE || h > SB_MAX_SIDE)
        return sb_fail(err, SB_ERR_LIMIT, "%s: PNM header claims %ldx%ld, over the limit (%d per side)",
                       path, w, h, SB_MAX_SIDE);
    if (maxval < 1 || maxval > 65535)
        return sb_fail(err, SB_ERR_FORMAT, "%s: PNM maxval %ld outside 1..65535", path, maxval);

    sb_status st = sb_check_size((int)w, (int)h, path, err);   /* zero sides, too many pixels */
    if (st)
        return st;
    sb_image img;
    if ((st = sb_image_alloc(&img, (int)w, (int)h, file_channels, err)))
        return st;
    size_t samples = (size_t)w * (size_t)file_channels;
    int wide = maxval > 255;
    unsigned char *line = malloc(samples * (wide ? 2 : 1));
    if (!line) {
        sb_image_free(&img);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", path);
    }
    for (long y = 0; y < h; y++) {
        if (fread(line, wide ? 2 : 1, samples, fp) != samples) {
            free(line);
            sb_image_free(&img);
            return sb_fail(err, SB_ERR_FORMAT, "%s: truncated PNM data (row %ld of %ld)", path, y, h);
        }
        uint8_t *row = sb_image_row(&img, (int)y);
        for (size_t i = 0; i < samples; i++) {
            unsigned v = wide ? (unsigned)line[2 * i] << 8 | line[2 * i + 1] : line[i];
            if (v > (unsigned)maxval)
                v = (unsigned)maxval;
            row[i] = (uint8_t)((v * 255u + (unsigned)maxval / 2) / (unsigned)maxval);
        }
    }
    free(line);

    int want = mode == SB_LOAD_GREY ? 1 : mode == SB_LOAD_RGB ? 3 : file_channels;
    if (want == file_channels) {
        *out = img;
        return SB_OK;
    }
    st = sb_image_convert(&img, want, out, err);
    sb_image_free(&img);
    return st;
}

sb_status sb_pnm_write(FILE *fp, const char *path, const sb_image *img, sb_error *err)
{
    if (img->channels != 1 && img->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: cannot write a %d-channel image", path, img->channels);
    fprintf(fp, "P%c\n%d %d\n255\n", img->channels == 1 ? '5' : '6', img->width, img->height);
    size_t row_bytes = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++)
        if (fwrite(sb_image_row(img, y), 1, row_bytes, fp) != row_bytes)
            return sb_fail(err, SB_ERR_IO, "%s: write failed", path);
    return SB_OK;
}
