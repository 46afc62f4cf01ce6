/* renames.h - variants renamed when their name stopped saying their
 * lesson.  Result sets of older runs, and --variant, still use the old
 * names; readers map them to the new ones, so old runs still compare. */
#ifndef SEGBENCH_RENAMES_H
#define SEGBENCH_RENAMES_H

typedef struct sb_rename {
    const char *algo, *before, *now;
} sb_rename;

int sb_rename_count(void);
const sb_rename *sb_rename_at(int i);

/* The variant's name now: `name` itself, or the new name of a renamed one. */
const char *sb_variant_current_name(const char *algo, const char *name);

#endif
