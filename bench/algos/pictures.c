/* pictures.c - keeping pictures (see pictures.h). */
#define _GNU_SOURCE                 /* open_memstream */
#include "algos/pictures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sb_status sb_picture_write(const char *path, sb_image *pic, sb_status made, sb_error *err)
{
    if (!made)
        made = sb_image_save(path, pic, err);
    sb_image_free(pic);
    return made;
}

void sb_gallery_album_begin(sb_gallery_album *album, const char *prefix)
{
    memset(album, 0, sizeof *album);
    snprintf(album->prefix, sizeof album->prefix, "%s", prefix);
}

sb_status sb_gallery_add(sb_gallery_album *album, const char *name, const sb_image *pic, sb_status made,
                         const char *caption, sb_error *err)
{
    if (made)
        return made;
    if (album->count == SB_ALBUM_PICTURES)
        return sb_fail(err, SB_ERR_LIMIT, "%s: more than %d gallery pictures", album->prefix, SB_ALBUM_PICTURES);
    sb_gallery_picture pic_made = { 0 }, *p = &pic_made;     /* into the album once encoded */
    snprintf(p->file, sizeof p->file, "%s-%s.png", album->prefix, name);
    snprintf(p->caption, sizeof p->caption, "%s", caption);
    char *bytes = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&bytes, &len);
    if (!mem)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory encoding %s", p->file);
    sb_status st = sb_png_write(mem, p->file, pic, err);
    if (fclose(mem) != 0 && !st)
        st = sb_fail(err, SB_ERR_NOMEM, "out of memory encoding %s", p->file);
    if (st) {
        free(bytes);
        return st;
    }
    p->png = (unsigned char *)bytes;
    p->bytes = len;
    album->pic[album->count++] = pic_made;
    return SB_OK;
}

void sb_gallery_album_free(sb_gallery_album *album)
{
    for (int i = 0; i < album->count; i++)
        free(album->pic[i].png);
    album->count = 0;
}
