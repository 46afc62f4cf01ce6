/* image_io.c - format sniffing on load, extension dispatch and atomic
 * replacement on save. */
#include "segbench/image_io.h"

#include "segbench/atomic_file.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const unsigned char png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

sb_status sb_image_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err)
{
    memset(img, 0, sizeof *img);
    unsigned char head[8];
    size_t got = fread(head, 1, sizeof head, fp);
    sb_status st;
    if (got == 0) {
        st = sb_fail(err, SB_ERR_FORMAT, "%s: empty file", path);
    } else if (got == sizeof head && memcmp(head, png_signature, sizeof head) == 0) {
        rewind(fp);
        st = sb_png_read(fp, path, mode, img, err);
    } else if (head[0] == 'P' && got >= 2 && head[1] >= '1' && head[1] <= '7') {
        rewind(fp);
        st = sb_pnm_read(fp, path, mode, img, err);
    } else if (got >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff) {
        st = sb_fail(err, SB_ERR_FORMAT, "%s: JPEG is not supported (convert it to PNG)", path);
    } else {
        st = sb_fail(err, SB_ERR_FORMAT, "%s: not a PNG, PGM or PPM file", path);
    }
    return st;
}

sb_status sb_image_load(const char *path, sb_load_mode mode, sb_image *img, sb_error *err)
{
    memset(img, 0, sizeof *img);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return sb_fail(err, SB_ERR_IO, "%s: is a directory, not an image", path);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));

    sb_status st = sb_image_read(fp, path, mode, img, err);
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
