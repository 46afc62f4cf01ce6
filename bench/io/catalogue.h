/* catalogue.h - the variants a result set was measured with, as `bench`
 * recorded them in <results>/variants.tsv (algorithm, name, backend, flags,
 * stages, summary, source file, in teaching order; files written before
 * the source file was recorded take it from the binary's registry).  The report reads the variants from
 * there, not from the binary, so an old result set renders the same after
 * variants are renamed, reordered or removed.  A result set without the
 * file (written before it existed) falls back to the binary's registry.
 */
#ifndef SEGBENCH_CATALOGUE_H
#define SEGBENCH_CATALOGUE_H

#include "segbench/error.h"
#include "segbench/variant.h"

/* Write dir/variants.tsv from the registry (the algorithms matching the
 * patterns `algos`, NULL for all, merged with what the file already
 * holds for the others). */
sb_status sb_catalogue_write(const char *dir, const char *algos, sb_error *err);

/* One result set's variants, owned by whoever loaded it (its rows point
 * at it: sb_rows.catalogue).  A NULL catalogue, or one the file was not
 * there for, is this binary's registry. */
enum { SB_CATALOGUE_MAX = 256 };
typedef struct sb_catalogue {
    sb_variant entries[SB_CATALOGUE_MAX];
    char *text;                   /* the file's text; entries point into it */
    int count, from_file;
} sb_catalogue;

/* dir's catalogue into c (zeroed, or loaded before): 1 when read from
 * variants.tsv, 0 when the registry stands in.  Free with sb_catalogue_free. */
int sb_catalogue_load(sb_catalogue *c, const char *dir);
void sb_catalogue_free(sb_catalogue *c);
int sb_catalogue_count(const sb_catalogue *c);
const sb_variant *sb_catalogue_at(const sb_catalogue *c, int i);
const sb_variant *sb_catalogue_find(const sb_catalogue *c, const char *algo, const char *name);

#endif
