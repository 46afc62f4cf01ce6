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

/* Make dir's catalogue the current one: 1 when read from variants.tsv, 0
 * when the registry stands in. */
int sb_catalogue_load(const char *dir);
int sb_catalogue_count(void);
const sb_variant *sb_catalogue_at(int i);
const sb_variant *sb_catalogue_find(const char *algo, const char *name);

#endif
