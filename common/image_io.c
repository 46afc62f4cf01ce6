/* image_io.c - format sniffing on load, extension dispatch and atomic
 * replacement on save. */
#include "segbench/image_io.h"

#include "segbench/atomic_file.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const unsigned char png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

/* ---- the decoding limit ---- */

static size_t pixel_limit = SB_DEFAULT_PIXEL_LIMIT;

void sb_image_set_pixel_limit(size_t pixels) { pixel_limit = pixels > SB_MAX_PIXELS ? SB_MAX_PIXELS : pixels; }

size_t sb_image_pixel_limit(void) { return pixel_limit; }

sb_status sb_image_check_decode(const char *path, int width, int height, sb_error *err)
{
    sb_status st = sb_check_size(width, height, path, err);
    if (st)
        return st;
    size_t px = (size_t)width * (size_t)height;
    if (px > pixel_limit)
        return sb_fail(err, SB_ERR_LIMIT, "%s: %dx%d is %.1f Mpx, above the limit of %.1f Mpx (--max-pixels %zu "
                       "would take it)", path, width, height, px / 1e6, pixel_limit / 1e6, px);
    return SB_OK;
}

/* ---- reading: the format from the first bytes, each byte read once ---- */

typedef enum { SNIFF_PNG, SNIFF_PNM } sniffed;

/* Read the signature and say which back end goes on from there: 8 bytes
 * for PNG, 1 ('P') for PNM.  Nothing is read twice or rewound, so a pipe
 * or a FIFO reads as well as a file. */
static sb_status sniff(FILE *fp, const char *path, sniffed *kind, sb_error *err)
{
    int c = fgetc(fp);
    if (c == EOF)
        return sb_fail(err, SB_ERR_FORMAT, "%s: empty file", path);
    if (c == 'P') {
        *kind = SNIFF_PNM;
        return SB_OK;
    }
    unsigned char head[8] = { (unsigned char)c };
    size_t got = 1 + fread(head + 1, 1, sizeof head - 1, fp);
    if (got == sizeof head && memcmp(head, png_signature, sizeof head) == 0) {
        *kind = SNIFF_PNG;
        return SB_OK;
    }
    if (got >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff)
        return sb_fail(err, SB_ERR_FORMAT, "%s: JPEG is not supported (convert it to PNG)", path);
    return sb_fail(err, SB_ERR_FORMAT, "%s: not a PNG, PGM or PPM file", path);
}

sb_status sb_image_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err)
{
    memset(img, 0, sizeof *img);
    sniffed kind = SNIFF_PNG;
    sb_status st = sniff(fp, path, &kind, err);
    if (st)
        return st;
    return kind == SNIFF_PNG ? sb_png_read_rest(fp, path, mode, img, err) : sb_pnm_read_rest(fp, path, mode, img, err);
}

static sb_status open_image(const char *path, FILE **fp, sb_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return sb_fail(err, SB_ERR_IO, "%s: is a directory, not an image", path);
    if (!(*fp = fopen(path, "rb")))
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    return SB_OK;
}

sb_status sb_image_load(const char *path, sb_load_mode mode, sb_image *img, sb_error *err)
{
    memset(img, 0, sizeof *img);
    FILE *fp;
    sb_status st = open_image(path, &fp, err);
    if (st)
        return st;
    st = sb_image_read(fp, path, mode, img, err);
    fclose(fp);
    return st;
}

sb_status sb_image_probe_stream(FILE *fp, const char *path, sb_image_info *info, sb_error *err)
{
    memset(info, 0, sizeof *info);
    sniffed kind = SNIFF_PNG;
    sb_status st = sniff(fp, path, &kind, err);
    if (!st)
        st = kind == SNIFF_PNG ? sb_png_probe_rest(fp, path, info, err) : sb_pnm_probe_rest(fp, path, info, err);
    return st;
}

sb_status sb_image_probe(const char *path, sb_image_info *info, sb_error *err)
{
    memset(info, 0, sizeof *info);
    FILE *fp;
    sb_status st = open_image(path, &fp, err);
    if (st)
        return st;
    st = sb_image_probe_stream(fp, path, info, err);
    fclose(fp);
    return st;
}

sb_status sb_image_save(const char *path, const sb_image *img, sb_error *err)
{
    const char *dot = strrchr(path, '.');
    enum { FMT_PNG, FMT_PNM } fmt;
    if (dot && strcasecmp(dot, ".png") == 0) {
        fmt = FMT_PNG;
    } else if (dot && (strcasecmp(dot, ".ppm") == 0 || strcasecmp(dot, ".pgm") == 0 ||
                       strcasecmp(dot, ".pnm") == 0)) {
        fmt = FMT_PNM;
        int want = strcasecmp(dot, ".pgm") == 0 ? 1 : strcasecmp(dot, ".ppm") == 0 ? 3 : img->channels;
        if (want != img->channels)
            return sb_fail(err, SB_ERR_USAGE, "%s: a %s file needs %d channel(s), the image has %d",
                           path, dot, want, img->channels);
    } else {
        return sb_fail(err, SB_ERR_USAGE, "%s: unknown output format (use .png, .ppm or .pgm)", path);
    }
    sb_atomic_file af;
    sb_status st = sb_atomic_open(&af, path, err);
    if (st)
        return st;
    st = fmt == FMT_PNG ? sb_png_write(af.fp, path, img, err) : sb_pnm_write(af.fp, path, img, err);
    if (st) {
        sb_atomic_abort(&af);
        return st;
    }
    return sb_atomic_commit(&af, err);
}
