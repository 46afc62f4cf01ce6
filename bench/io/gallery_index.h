/* gallery_index.h - results/<machine>/gallery/index.tsv, kept consistent
 * while a run rewrites it: the entries of every (algorithm, image) that
 * this run has not redone yet stay as they were, so a run that is stopped
 * (or one that measures only some algorithms) never loses the others'. */
#ifndef SEGBENCH_GALLERY_INDEX_H
#define SEGBENCH_GALLERY_INDEX_H

#include <stdio.h>

#include "segbench/error.h"

#include "base/files.h"

typedef struct sb_gallery_index {
    char path[SB_PATH_MAX];
    char *old_text;          /* the index as it was, header dropped */
    FILE *fresh;             /* this run's lines */
    char *fresh_text;
    size_t fresh_len;
    FILE *redone;            /* "\nalgo\timage\n" keys this run has redone */
    char *redone_text;
    size_t redone_len;
} sb_gallery_index;

sb_status sb_gallery_index_open(sb_gallery_index *gi, const char *path, sb_error *err);
/* A fresh run of algo: all its old entries go (as its CSV was started
 * afresh); those of other algorithms stay. */
void sb_gallery_index_drop_algo(sb_gallery_index *gi, const char *algo);
/* This run makes (algo, image) anew: its old entries go; returns where to
 * write the new "algo<TAB>image<TAB>file<TAB>caption" lines. */
FILE *sb_gallery_index_redo(sb_gallery_index *gi, const char *algo, const char *image);
/* Write the index (atomically): old entries not redone, then this run's. */
sb_status sb_gallery_index_write(sb_gallery_index *gi, sb_error *err);
void sb_gallery_index_close(sb_gallery_index *gi);

#endif
