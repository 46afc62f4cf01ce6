/* pictures.h - the harness's one way to write an algorithm's pictures:
 * `segbench run`'s output and label images, and the report's gallery
 * (<dir>/<prefix>-<name>.png, each with a "file<TAB>caption" line in the
 * gallery's index).  An algorithm only draws; writing, naming and
 * indexing are done here, atomically (sb_image_save). */
#ifndef SEGBENCH_PICTURES_H
#define SEGBENCH_PICTURES_H

#include "segbench/image_io.h"

#include <stdio.h>

/* Write `pic` to path and free it.  `made` is the status of drawing it:
 * when it is not SB_OK nothing is written and it is returned. */
sb_status sb_picture_write(const char *path, sb_image *pic, sb_status made, sb_error *err);

/* A gallery picture: <dir>/<prefix>-<name>.png and its index line.  `pic`
 * stays the caller's; `made` as above. */
sb_status sb_gallery_write(const char *dir, const char *prefix, const char *name, const sb_image *pic,
                           sb_status made, FILE *index, const char *caption, sb_error *err);

#endif
