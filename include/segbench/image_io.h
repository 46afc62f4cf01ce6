/* image_io.h - reading and writing images: PNG (libpng) and binary PPM/PGM.
 *
 * Loading sniffs the format from the file's first bytes, never from its
 * name.  Every PNG kind is accepted (grey, grey+alpha, palette, RGB, RGBA,
 * 1/2/4/8/16-bit, interlaced) and decoded to 8-bit: 16-bit samples are
 * scaled with rounding, alpha is dropped (not composited), palettes are
 * expanded.  Sizes are checked against SB_MAX_SIDE and the pixel limit
 * (below) before any pixel memory is allocated.
 *
 * Saving picks the format from the extension (.png, .ppm, .pgm) and writes
 * through a temporary file in the same directory that is renamed into place
 * only when complete, so a failed write leaves nothing behind.
 */
#ifndef SEGBENCH_IMAGE_IO_H
#define SEGBENCH_IMAGE_IO_H

#include <stdio.h>

#include "segbench/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sb_load_mode {
    SB_LOAD_NATIVE,   /* grey files give 1 channel, colour files 3 */
    SB_LOAD_GREY,     /* always 1 channel (colour through sb_luma_u8) */
    SB_LOAD_RGB       /* always 3 channels */
} sb_load_mode;

sb_status sb_image_load(const char *path, sb_load_mode mode, sb_image *img, sb_error *err);
/* The same from an open stream, read once from where it stands (a pipe
 * will do); `path` names it in messages. */
sb_status sb_image_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err);

/* What a file's header says, read without decoding: a 16384x16384 PNG of
 * 783 KB is refused here in a millisecond, before any pixel memory. */
typedef struct sb_image_info {
    int width, height;
    int channels;            /* as stored: 1 grey, 3 colour (alpha and palettes count as colour or grey) */
} sb_image_info;
sb_status sb_image_probe(const char *path, sb_image_info *info, sb_error *err);
/* The same from an open stream, read from where it stands. */
sb_status sb_image_probe_stream(FILE *fp, const char *path, sb_image_info *info, sb_error *err);

/* The decoding limit, in pixels: like Pillow's decompression-bomb guard,
 * which warns above 89.5 Mpx and refuses above twice that, segbench
 * refuses images above SB_DEFAULT_PIXEL_LIMIT unless raised (the command
 * line's --max-pixels), up to SB_MAX_PIXELS (image.h); callers may warn
 * above SB_PIXEL_WARN.  Checked from the header, before any allocation. */
#define SB_PIXEL_WARN          ((size_t)89478485)     /* Pillow's MAX_IMAGE_PIXELS */
#define SB_DEFAULT_PIXEL_LIMIT (2 * SB_PIXEL_WARN)
void sb_image_set_pixel_limit(size_t pixels);         /* clamped to SB_MAX_PIXELS */
size_t sb_image_pixel_limit(void);
/* A decoded size against the sides' limits and the pixel limit. */
sb_status sb_image_check_decode(const char *path, int width, int height, sb_error *err);

/* Save an 8-bit grey or RGB image; the format follows the extension. */
sb_status sb_image_save(const char *path, const sb_image *img, sb_error *err);

/* zlib level used for PNG output (0..9); 6 unless changed. */
void sb_png_set_compression(int level);

/* Format back ends (used by image_io.c; exposed for tests).  The _rest
 * forms start after the signature image_io.c sniffed: the PNG's 8 bytes,
 * the PNM's 'P'. */
sb_status sb_png_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err);
sb_status sb_png_read_rest(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err);
sb_status sb_png_probe_rest(FILE *fp, const char *path, sb_image_info *info, sb_error *err);
sb_status sb_png_write(FILE *fp, const char *path, const sb_image *img, sb_error *err);
sb_status sb_pnm_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err);
sb_status sb_pnm_read_rest(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err);
sb_status sb_pnm_probe_rest(FILE *fp, const char *path, sb_image_info *info, sb_error *err);
sb_status sb_pnm_write(FILE *fp, const char *path, const sb_image *img, sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
