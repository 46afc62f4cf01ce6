/* code_ids.h - the code identity of a result row (base/code_id.h): the one
 * it recorded, or, for a row measured before rows recorded one, the
 * identity of its variant's files as git holds them at the row's commit.
 * Two rows are the same code when their identities agree, whatever their
 * commits (MACHINES.md compares machines on such rows). */
#ifndef SEGBENCH_IO_CODE_IDS_H
#define SEGBENCH_IO_CODE_IDS_H

#include "base/code_id.h"
#include "io/rows.h"

/* What git gave (file texts and identities at commits), kept by whoever
 * compares many rows; NULL in the calls below: nothing kept. */
typedef struct sb_code_ids sb_code_ids;
sb_code_ids *sb_code_ids_new(void);      /* NULL: out of memory */
void sb_code_ids_free(sb_code_ids *ids);

/* The row's identity into id ("" when it has none and git cannot give
 * one: no repository here, an unknown commit, a file not in it). */
void sb_row_code_id(sb_code_ids *ids, const sb_row *r, char id[SB_CODE_ID_LEN + 1]);

/* The identity of algo's variant at a commit, from git ("" when unknown). */
void sb_code_id_at(sb_code_ids *ids, const char *algo, const char *variant, const char *commit,
                   char id[SB_CODE_ID_LEN + 1]);

/* 1 when both rows' identities are known and equal. */
int sb_rows_same_code(sb_code_ids *ids, const sb_row *a, const sb_row *b);

#endif
