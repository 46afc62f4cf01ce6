/* code_ids.c - a row's code identity, recorded or from git (code_ids.h). */
#include "io/code_ids.h"

#include "base/files.h"
#include "io/git.h"
#include "variants/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What git gave, kept by its owner: the same commits and files come back
 * for every row of a comparison. */
enum { KEPT_MAX = 1024 };
typedef struct kept {
    char commit[64];
    char path[512];            /* a source file's, repository-relative */
    char *text;                /* NULL: git has no such file there */
    char id[SB_CODE_ID_LEN + 1];
    int is_id;                 /* an identity (path is the variant file), else a text */
} kept;
struct sb_code_ids {
    kept list[KEPT_MAX];
    int count;
};

sb_code_ids *sb_code_ids_new(void) { return calloc(1, sizeof(sb_code_ids)); }

static void forget(sb_code_ids *ids)
{
    for (int i = 0; i < ids->count; i++)
        free(ids->list[i].text);
    ids->count = 0;
}

void sb_code_ids_free(sb_code_ids *ids)
{
    if (ids)
        forget(ids);
    free(ids);
}

static kept *find_kept(sb_code_ids *ids, const char *commit, const char *path, int is_id)
{
    for (int i = 0; i < ids->count; i++)
        if (ids->list[i].is_id == is_id && !strcmp(ids->list[i].commit, commit) && !strcmp(ids->list[i].path, path))
            return &ids->list[i];
    return NULL;
}

static kept *add_kept(sb_code_ids *ids, const char *commit, const char *path, int is_id)
{
    if (ids->count == KEPT_MAX)
        forget(ids);
    kept *k = &ids->list[ids->count++];
    memset(k, 0, sizeof *k);
    snprintf(k->commit, sizeof k->commit, "%s", commit);
    snprintf(k->path, sizeof k->path, "%s", path);
    k->is_id = is_id;
    return k;
}

/* The reader for sb_code_id: a file's text at the commit ctx names. */
typedef struct at_commit {
    sb_code_ids *ids;
    const char *commit;
} at_commit;

static char *text_at_commit(const char *path, void *ctx)
{
    const at_commit *at = ctx;
    kept *k = find_kept(at->ids, at->commit, path, 0);
    if (!k) {
        char *text = sb_git_show(at->commit, path);
        k = add_kept(at->ids, at->commit, path, 0);
        k->text = text;
    }
    return k->text ? strdup(k->text) : NULL;
}

/* A commit name (7 to 40 hex digits, no "-dirty"): only such a commit
 * names the code that ran. */
static int plain_commit(const char *c)
{
    if (strlen(c) < 7 || strlen(c) > 40)
        return 0;
    for (const char *p = c; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

/* With no cache of the caller's, one for this lookup alone. */
static void code_id_at(sb_code_ids *ids, const char *algo, const char *variant, const char *commit,
                       char id[SB_CODE_ID_LEN + 1])
{
    id[0] = '\0';
    const sb_variant *v = sb_variant_find(algo, variant);
    if (!v || !plain_commit(commit))
        return;
    kept *k = find_kept(ids, commit, v->file, 1);
    if (!k) {
        char found[SB_CODE_ID_LEN + 1];
        at_commit at = { ids, commit };
        sb_code_id(v->file, text_at_commit, &at, found);
        k = add_kept(ids, commit, v->file, 1);
        snprintf(k->id, sizeof k->id, "%s", found);
    }
    snprintf(id, SB_CODE_ID_LEN + 1, "%s", k->id);
}

void sb_code_id_at(sb_code_ids *ids, const char *algo, const char *variant, const char *commit,
                   char id[SB_CODE_ID_LEN + 1])
{
    sb_code_ids *own = ids ? NULL : sb_code_ids_new();
    if (ids || own)
        code_id_at(ids ? ids : own, algo, variant, commit, id);
    else
        id[0] = '\0';
    sb_code_ids_free(own);
}

void sb_row_code_id(sb_code_ids *ids, const sb_row *r, char id[SB_CODE_ID_LEN + 1])
{
    if (r->code_id[0])
        snprintf(id, SB_CODE_ID_LEN + 1, "%.16s", r->code_id);
    else
        sb_code_id_at(ids, r->algo, r->variant, r->commit, id);
}

int sb_rows_same_code(sb_code_ids *ids, const sb_row *a, const sb_row *b)
{
    char ia[SB_CODE_ID_LEN + 1], ib[SB_CODE_ID_LEN + 1];
    sb_row_code_id(ids, a, ia);
    sb_row_code_id(ids, b, ib);
    return ia[0] && strcmp(ia, ib) == 0;
}
