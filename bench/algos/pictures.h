/* pictures.h - the harness's one way to keep an algorithm's pictures:
 * `segbench run`'s output and label images, written to the path asked
 * for, and the report's gallery, drawn into an album (each picture
 * encoded as PNG in memory, with its file name <prefix>-<name>.png and its
 * caption) that the gallery reporter writes (reporters/gallery.c).  An
 * algorithm only draws; naming, encoding and writing are done here and
 * there, atomically. */
#ifndef SEGBENCH_PICTURES_H
#define SEGBENCH_PICTURES_H

#include "segbench/image_io.h"

#include <stddef.h>

/* Write `pic` to path and free it.  `made` is the status of drawing it:
 * when it is not SB_OK nothing is written and it is returned. */
sb_status sb_picture_write(const char *path, sb_image *pic, sb_status made, sb_error *err);

/* A case's gallery: its pictures, encoded, not yet written. */
enum { SB_ALBUM_PICTURES = 8 };
typedef struct sb_gallery_picture {
    char file[288];               /* <prefix>-<name>.png */
    char caption[200];
    unsigned char *png;           /* the file's bytes */
    size_t bytes;
} sb_gallery_picture;

typedef struct sb_gallery_album {
    char prefix[256];             /* <algo>-<image> */
    sb_gallery_picture pic[SB_ALBUM_PICTURES];
    int count;
} sb_gallery_album;

/* An empty album whose pictures are named <prefix>-<name>.png. */
void sb_gallery_album_begin(sb_gallery_album *album, const char *prefix);
/* One picture added, encoded.  `pic` stays the caller's; `made` as above. */
sb_status sb_gallery_add(sb_gallery_album *album, const char *name, const sb_image *pic, sb_status made,
                         const char *caption, sb_error *err);
void sb_gallery_album_free(sb_gallery_album *album);

#endif
