/* pictures.c - writing pictures (see pictures.h). */
#include "algos/pictures.h"

sb_status sb_picture_write(const char *path, sb_image *pic, sb_status made, sb_error *err)
{
    if (!made)
        made = sb_image_save(path, pic, err);
    sb_image_free(pic);
    return made;
}

sb_status sb_gallery_write(const char *dir, const char *prefix, const char *name, const sb_image *pic,
                           sb_status made, FILE *index, const char *caption, sb_error *err)
{
    if (made)
        return made;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%s.png", dir, prefix, name);
    sb_status st = sb_image_save(path, pic, err);
    if (!st)
        fprintf(index, "%s-%s.png\t%s\n", prefix, name, caption);
    return st;
}
