/* image.c - allocation and channel conversion for sb_image and sb_labels. */
#include "segbench/image.h"

#include <stdlib.h>
#include <string.h>

sb_status sb_check_size(int width, int height, const char *what, sb_error *err)
{
    if (width <= 0 || height <= 0)
        return sb_fail(err, SB_ERR_LIMIT, "%s: size %dx%d has a zero or negative side",
                       what, width, height);
    if (width > SB_MAX_SIDE || height > SB_MAX_SIDE ||
        (size_t)width * (size_t)height > SB_MAX_PIXELS)
        return sb_fail(err, SB_ERR_LIMIT,
                       "%s: size %dx%d is over the limit (%d per side, %zu pixels in all)",
                       what, width, height, SB_MAX_SIDE, (size_t)SB_MAX_PIXELS);
    return SB_OK;
}

sb_status sb_image_alloc(sb_image *img, int width, int height, int channels, sb_error *err)
{
    memset(img, 0, sizeof *img);
    sb_status st = sb_check_size(width, height, "image", err);
    if (st)
        return st;
    if (channels != 1 && channels != 3 && channels != 4)
        return sb_fail(err, SB_ERR_USAGE, "image: %d channels (only 1, 3 or 4 are supported)", channels);
    size_t stride = (size_t)width * (size_t)channels;
    uint8_t *data = calloc((size_t)height, stride);
    if (!data)
        return sb_fail(err, SB_ERR_NOMEM, "image: out of memory for %dx%dx%d", width, height, channels);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->stride = stride;
    img->data = data;
    return SB_OK;
}

void sb_image_free(sb_image *img)
{
    if (img) {
        free(img->data);
        memset(img, 0, sizeof *img);
    }
}

sb_status sb_labels_alloc(sb_labels *lab, int width, int height, sb_error *err)
{
    memset(lab, 0, sizeof *lab);
    sb_status st = sb_check_size(width, height, "label image", err);
    if (st)
        return st;
    lab->data = calloc((size_t)width * (size_t)height, sizeof *lab->data);
    if (!lab->data)
        return sb_fail(err, SB_ERR_NOMEM, "label image: out of memory for %dx%d", width, height);
    lab->width = width;
    lab->height = height;
    return SB_OK;
}

void sb_labels_free(sb_labels *lab)
{
    if (lab) {
        free(lab->data);
        memset(lab, 0, sizeof *lab);
    }
}

sb_status sb_image_convert(const sb_image *src, int channels, sb_image *dst, sb_error *err)
{
    sb_status st = sb_image_alloc(dst, src->width, src->height, channels, err);
    if (st)
        return st;
    for (int y = 0; y < src->height; y++) {
        const uint8_t *s = sb_image_row(src, y);
        uint8_t *d = sb_image_row(dst, y);
        if (src->channels == channels) {
            memcpy(d, s, (size_t)src->width * (size_t)channels);
        } else if (channels == 1) {
            for (int x = 0; x < src->width; x++)
                d[x] = sb_luma_u8(s[3 * x], s[3 * x + 1], s[3 * x + 2]);
        } else {
            for (int x = 0; x < src->width; x++)
                d[3 * x] = d[3 * x + 1] = d[3 * x + 2] = s[x];
        }
    }
    return SB_OK;
}
