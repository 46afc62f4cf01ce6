/* image_io.h - reading and writing images: PNG (libpng) and binary PPM/PGM.
 *
 * Loading sniffs the format from the file's first bytes, never from its
 * name.  Every PNG kind is accepted (grey, grey+alpha, palette, RGB, RGBA,
 * 1/2/4/8/16-bit, interlaced) and decoded to 8-bit: 16-bit samples are
 * scaled with rounding, alpha is dropped (not composited), palettes are
 * expanded.  Sizes are checked against SB_MAX_SIDE / SB_MAX_PIXELS before
 * any pixel memory is allocated.
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
/* The same from an open stream (rewindable); `path` names it in messages. */
sb_status sb_image_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err);

/* Save an 8-bit grey or RGB image; the format follows the extension. */
sb_status sb_image_save(const char *path, const sb_image *img, sb_error *err);

/* zlib level used for PNG output (0..9); 6 unless changed. */
void sb_png_set_compression(int level);

/* Format back ends (used by image_io.c; exposed for tests). */
sb_status sb_png_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err);
sb_status sb_png_write(FILE *fp, const char *path, const sb_image *img, sb_error *err);
sb_status sb_pnm_read(FILE *fp, const char *path, sb_load_mode mode, sb_image *img, sb_error *err);
sb_status sb_pnm_write(FILE *fp, const char *path, const sb_image *img, sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
