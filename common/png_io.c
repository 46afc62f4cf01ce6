/* png_io.c - PNG decoding and encoding through libpng.
 *
 * libpng reports errors by longjmp; the handlers below copy its message into
 * a context so the caller can name the file and the problem in one line.
 * Anything allocated after setjmp lives in variables declared volatile so it
 * can be freed on the error path.
 */
#include "segbench/image_io.h"

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

typedef struct png_io_ctx {
    char msg[256];
    char warning[128];     /* the last warning: libpng often explains an error there */
} png_io_ctx;

/* Reading, with an eye on what follows the image: once its last row is
 * decoded, libpng's png_read_end skips further IDAT chunks unread but
 * for their checksums (200 MB of them were accepted silently).  The read
 * callback sees each chunk header go by (png_get_io_state) and refuses
 * IDAT data in a chunk that began after the image was done. */
typedef struct png_io_source {
    FILE *fp;
    int image_done;        /* the last row is decoded */
    int headers_after;     /* chunk headers read since */
} png_io_source;

static void png_io_read(png_structp png, png_bytep data, png_size_t length)
{
    png_io_source *src = png_get_io_ptr(png);
    png_uint_32 state = png_get_io_state(png);
    if (src->image_done && (state & PNG_IO_CHUNK_HDR))
        src->headers_after++;
    if (src->image_done && src->headers_after > 0 && (state & PNG_IO_CHUNK_DATA) &&
        png_get_io_chunk_type(png) == 0x49444154u)       /* "IDAT" */
        png_error(png, "image data after the last row");
    if (fread(data, 1, length, src->fp) != length)
        png_error(png, "Read Error");
}

static int png_io_level = 6;

/* The most any one ancillary chunk may ask libpng to allocate (palettes,
 * transparency and the like need bytes, not megabytes). */
enum { PNG_IO_CHUNK_MAX = 1 << 20 };

void sb_png_set_compression(int level)
{
    png_io_level = level < 0 ? 0 : level > 9 ? 9 : level;
}

static void png_io_on_error(png_structp png, png_const_charp msg)
{
    png_io_ctx *ctx = png_get_error_ptr(png);
    if (ctx->warning[0])
        snprintf(ctx->msg, sizeof ctx->msg, "%s: %s", msg, ctx->warning);
    else
        snprintf(ctx->msg, sizeof ctx->msg, "%s", msg);
    png_longjmp(png, 1);
}

/* Warnings (bad sRGB profiles and the like) do not stop a read; the last one
 * is kept in case an error follows.  But data after the image -- more
 * compressed data or more IDAT chunks than its rows need, which libpng
 * reports as benign and would otherwise read to the end, however long --
 * is an error: the file is not the image it claims to be. */
static void png_io_on_warning(png_structp png, png_const_charp msg)
{
    png_io_ctx *ctx = png_get_error_ptr(png);
    snprintf(ctx->warning, sizeof ctx->warning, "%s", msg);
    if (strstr(msg, "Extra compressed data") || strstr(msg, "Too much image data") || strstr(msg, "Too many IDAT")) {
        ctx->warning[0] = '\0';
        png_error(png, "image data after the last row");
    }
}

/* Ask libpng for 8-bit samples with 1 (grey) or 3 (RGB) channels. */
static int png_io_set_transforms(png_structp png, png_infop info, sb_load_mode mode)
{
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    int is_colour = (color_type & PNG_COLOR_MASK_COLOR) != 0; /* palette counts as colour */

    if (color_type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (bit_depth == 16)
        png_set_scale_16(png);           /* rounds: 65535 -> 255, 32896 -> 128 */
    if ((color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_strip_alpha(png);        /* also the alpha that palette expansion makes of tRNS */
    if (!is_colour && mode == SB_LOAD_RGB)
        png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    /* Colour to grey is done after decoding with sb_luma_u8, so every
     * format converts with the same integer formula. */
    return is_colour && mode == SB_LOAD_GREY;
}

/* The PNG signature and the IHDR chunk that must follow it: width and
 * height (4 bytes each, big-endian), bit depth and colour type. */
sb_status sb_png_probe_rest(FILE *fp, const char *path, sb_image_info *info, sb_error *err)
{
    unsigned char ihdr[18];
    if (fread(ihdr, 1, sizeof ihdr, fp) != sizeof ihdr || memcmp(ihdr + 4, "IHDR", 4) != 0)
        return sb_fail(err, SB_ERR_FORMAT, "%s: corrupt or truncated PNG (no IHDR chunk after the signature)", path);
    unsigned long w = (unsigned long)ihdr[8] << 24 | (unsigned long)ihdr[9] << 16 | ihdr[10] << 8 | ihdr[11];
    unsigned long h = (unsigned long)ihdr[12] << 24 | (unsigned long)ihdr[13] << 16 | ihdr[14] << 8 | ihdr[15];
    if (w == 0 || h == 0)                /* as libpng says it */
        return sb_fail(err, SB_ERR_FORMAT, "%s: corrupt PNG (image %s is zero in IHDR)", path, w ? "height" : "width");
    if (w > SB_MAX_SIDE || h > SB_MAX_SIDE)
        return sb_fail(err, SB_ERR_LIMIT, "%s: PNG header claims %lux%lu, over the limit (%d per side)", path, w, h,
                       SB_MAX_SIDE);
    int colour_type = ihdr[17];
    *info = (sb_image_info){ (int)w, (int)h, (colour_type & PNG_COLOR_MASK_COLOR) ? 3 : 1 };
    return sb_image_check_decode(path, (int)w, (int)h, err);
}

sb_status sb_png_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *out, sb_error *err)
{
    unsigned char sig[8];
    if (fread(sig, 1, sizeof sig, fp) != sizeof sig || png_sig_cmp(sig, 0, sizeof sig) != 0)
        return sb_fail(err, SB_ERR_FORMAT, "%s: not a PNG file", path);
    return sb_png_read_rest(fp, path, mode, out, err);
}

sb_status sb_png_read_rest(FILE *fp, const char *path, sb_load_mode mode, sb_image *out, sb_error *err)
{
    png_io_ctx ctx = { "", "" };
    sb_image img = { 0 };
    sb_image *volatile pimg = &img;      /* freed on the error path */
    png_bytep *volatile rows = NULL;
    volatile sb_status st = SB_OK;

    memset(out, 0, sizeof *out);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, png_io_on_error,
                                             png_io_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, NULL);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory starting the PNG decoder", path);
    }
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        sb_image_free(pimg);
        png_destroy_read_struct(&png, &info, NULL);
        if (st)
            return st;
        return sb_fail(err, SB_ERR_FORMAT, "%s: corrupt or truncated PNG (%s)", path, ctx.msg);
    }
    png_io_source source = { fp, 0, 0 };
    png_set_read_fn(png, &source, png_io_read);
    png_set_sig_bytes(png, 8);           /* image_io.c read them: a pipe cannot go back */
    /* Refuse what cannot be used before allocating for it.  segbench needs
     * pixels only: text, suggested palettes, ICC profiles and EXIF are
     * skipped unread, and no other chunk may make libpng allocate more than
     * a small buffer.  (A 44-byte file whose tEXt chunk claimed 2 GB made
     * libpng allocate and zero 2 GB before the read failed.)  Image sizes
     * are checked against segbench's limits right after the header, before
     * libpng allocates anything for rows (png_read_update_info), with a
     * clearer message than png_set_user_limits would give. */
    static const png_byte unused_chunks[] = "tEXt\0zTXt\0iTXt\0sPLT\0iCCP\0eXIf\0";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, unused_chunks, 6);
    png_set_chunk_malloc_max(png, (png_alloc_size_t)PNG_IO_CHUNK_MAX);
    png_read_info(png, info);

    unsigned long claimed_w = png_get_image_width(png, info);
    unsigned long claimed_h = png_get_image_height(png, info);
    if (claimed_w > SB_MAX_SIDE || claimed_h > SB_MAX_SIDE) {
        png_destroy_read_struct(&png, &info, NULL);
        return sb_fail(err, SB_ERR_LIMIT, "%s: PNG header claims %lux%lu, over the limit (%d per side)",
                       path, claimed_w, claimed_h, SB_MAX_SIDE);
    }
    int width = (int)claimed_w, height = (int)claimed_h;
    sb_error size_err;
    if (sb_image_check_decode(path, width, height, &size_err)) {
        png_destroy_read_struct(&png, &info, NULL);
        return sb_fail(err, size_err.status, "%s", size_err.msg);
    }

    int to_grey = png_io_set_transforms(png, info, mode);
    int channels = png_get_channels(png, info);
    if ((channels != 1 && channels != 3) ||
        png_get_rowbytes(png, info) != (size_t)width * (size_t)channels) {
        png_destroy_read_struct(&png, &info, NULL);
        return sb_fail(err, SB_ERR_FORMAT, "%s: unsupported PNG layout (%d channels after decoding)",
                       path, channels);
    }
    st = sb_image_alloc(&img, width, height, channels, err);
    if (st == SB_OK) {
        rows = malloc((size_t)height * sizeof *rows);
        if (!rows)
            st = sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for %d row pointers", path, height);
    }
    if (st)
        png_longjmp(png, 1);            /* one cleanup path */
    for (int y = 0; y < height; y++)
        rows[y] = sb_image_row(&img, y);
    png_read_image(png, rows);
    source.image_done = 1;
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);

    if (to_grey) {
        st = sb_image_convert(&img, 1, out, err);
        sb_image_free(&img);
        return st;
    }
    *out = img;
    return SB_OK;
}

/* Writing: fwrite, with the reason kept when it fails (libpng's own
 * says only "Write Error"). */
typedef struct png_io_sink {
    FILE *fp;
    int error;             /* errno of the failed write, or 0 */
} png_io_sink;

static void png_io_write(png_structp png, png_bytep data, png_size_t length)
{
    png_io_sink *sink = png_get_io_ptr(png);
    if (fwrite(data, 1, length, sink->fp) != length) {
        sink->error = errno ? errno : EIO;
        png_error(png, "Write Error");
    }
}

static void png_io_flush(png_structp png)
{
    png_io_sink *sink = png_get_io_ptr(png);
    fflush(sink->fp);
}

sb_status sb_png_write(FILE *fp, const char *path, const sb_image *img, sb_error *err)
{
    png_io_sink sink = { fp, 0 };
    png_io_sink *volatile psink = &sink;     /* read on the error path */
    png_io_ctx ctx = { "", "" };
    png_bytep *volatile rows = NULL;

    if (img->channels != 1 && img->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: cannot write a %d-channel image", path, img->channels);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, png_io_on_error,
                                              png_io_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory starting the PNG encoder", path);
    }
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        png_destroy_write_struct(&png, &info);
        if (psink->error)
            return sb_fail(err, SB_ERR_IO, "%s: write failed (%s)", path, strerror(psink->error));
        return sb_fail(err, SB_ERR_IO, "%s: PNG encoding failed (%s)", path, ctx.msg);
    }
    rows = malloc((size_t)img->height * sizeof *rows);
    if (!rows) {
        snprintf(ctx.msg, sizeof ctx.msg, "out of memory");
        png_longjmp(png, 1);
    }
    for (int y = 0; y < img->height; y++)
        rows[y] = sb_image_row(img, y);
    png_set_write_fn(png, &sink, png_io_write, png_io_flush);
    png_set_compression_level(png, png_io_level);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 img->channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    free(rows);
    png_destroy_write_struct(&png, &info);
    return SB_OK;
}
