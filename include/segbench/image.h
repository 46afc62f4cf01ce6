/* image.h - the two pixel containers every algorithm and variant shares.
 *
 * sb_image holds 8-bit pixels, interleaved (grey, or R,G,B), rows `stride`
 * bytes apart.  sb_labels holds one int32 label per pixel, rows packed.
 * Each has one owner and one free function.
 */
#ifndef SEGBENCH_IMAGE_H
#define SEGBENCH_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "segbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Size limits, checked before any allocation: a side of at most 32768
 * pixels and at most 2^28 pixels in all (a 16384x16384 image).  An
 * integral image of the largest allowed image is 1 GiB of u32 sums. */
#define SB_MAX_SIDE   32768
#define SB_MAX_PIXELS ((size_t)1 << 28)

typedef struct sb_image {
    int width;
    int height;
    int channels;      /* 1 (grey), 3 (RGB), or 4 (packed LUV between mean-shift
                          stages: in memory only, never read or written as a file) */
    size_t stride;     /* bytes from one row to the next, >= width * channels */
    uint8_t *data;
} sb_image;

typedef struct sb_labels {
    int width;
    int height;
    int32_t *data;     /* width * height labels, rows packed */
} sb_labels;

/* Check a size against the limits above; the message names `what`. */
sb_status sb_check_size(int width, int height, const char *what, sb_error *err);

/* Allocate a zeroed image with packed rows (stride = width * channels). */
sb_status sb_image_alloc(sb_image *img, int width, int height, int channels, sb_error *err);
void sb_image_free(sb_image *img);

sb_status sb_labels_alloc(sb_labels *lab, int width, int height, sb_error *err);
void sb_labels_free(sb_labels *lab);

/* Pointer to the first byte of row y. */
static inline uint8_t *sb_image_row(const sb_image *img, int y)
{
    return img->data + (size_t)y * img->stride;
}

/* Luma of an 8-bit RGB pixel, integer only: ITU-R BT.601 weights
 * 0.299, 0.587, 0.114 scaled by 256 and rounded (77 + 150 + 29 = 256),
 * so Y = (77 R + 150 G + 29 B + 128) >> 8, exact on every platform and
 * 255 for white. */
static inline uint8_t sb_luma_u8(uint8_t r, uint8_t g, uint8_t b)
{
    return (uint8_t)((77u * r + 150u * g + 29u * b + 128u) >> 8);
}

/* Convert to a new packed image with `channels` channels (1 or 3); grey to
 * RGB repeats the value, RGB to grey uses sb_luma_u8.  With the source's
 * own channel count (1, 3 or 4) it is a copy. */
sb_status sb_image_convert(const sb_image *src, int channels, sb_image *dst, sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
