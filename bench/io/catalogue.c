/* catalogue.c - the variants of a result set (see catalogue.h). */
#include "io/catalogue.h"

#include "base/files.h"
#include "variants/renames.h"

#include "base/args.h"
#include "machine/env.h"
#include "base/patterns.h"
#include "variants/registry.h"

#include "segbench/atomic_file.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Files before the variants' own files were recorded lack the last column;
 * their rows take the file from this build's registry. */
static const char *const HEADER = "algo\tname\tbackend\tflags\tstages\tsummary\tfile\n";
static const char *const HEADER_6 = "algo\tname\tbackend\tflags\tstages\tsummary\n";

sb_status sb_catalogue_write(const char *dir, const char *algos, sb_error *err)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/variants.tsv", dir);
    sb_catalogue *old = calloc(1, sizeof *old);    /* keep the other algorithms' lines as they were */
    if (!old)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    int had_file = sb_catalogue_load(old, dir);
    sb_atomic_file af;
    sb_status st = sb_atomic_open(&af, path, err);
    if (!st) {
        fputs(HEADER, af.fp);
        for (int a = 0; a < sb_algo_count(); a++) {
            const char *algo = sb_algo_at(a)->name;
            int fresh = sb_pattern_match(algos, algo) || !had_file;
            for (int i = 0; i < (fresh ? sb_variant_count() : old->count); i++) {
                const sb_variant *v = fresh ? sb_variant_at(i) : &old->entries[i];
                if (strcmp(v->algo, algo) == 0)
                    fprintf(af.fp, "%s\t%s\t%s\t%u\t%u\t%s\t%s\n", v->algo, v->name, v->backend, v->flags,
                            v->stages, v->summary, v->file && v->file[0] ? v->file : "-");
            }
        }
        st = sb_atomic_commit(&af, err);
    }
    sb_catalogue_free(old);
    free(old);
    return st;
}

/* Names as the registry makes them: letters, digits and - _ . @ + (the
 * report puts them into gnuplot scripts and Markdown as they are). */
static int plain_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("-_.@+", *s))
            return 0;
    return 1;
}

int sb_catalogue_load(sb_catalogue *c, const char *dir)
{
    sb_catalogue_free(c);
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/variants.tsv", dir);
    c->text = sb_read_text(path);
    const char *text = c->text;
    size_t header = !text                                             ? 0
                    : strncmp(text, HEADER, strlen(HEADER)) == 0     ? strlen(HEADER)
                    : strncmp(text, HEADER_6, strlen(HEADER_6)) == 0 ? strlen(HEADER_6)
                                                                     : 0;
    if (!header) {
        sb_catalogue_free(c);
        return 0;
    }
    char *save = NULL;
    for (char *line = strtok_r(c->text + header, "\n", &save); line && c->count < SB_CATALOGUE_MAX;
         line = strtok_r(NULL, "\n", &save)) {
        char *f[7];
        int n = sb_split_fields(line, '\t', f, 7);
        if (n < 6 || !plain_name(f[0]) || !plain_name(f[1]) || !plain_name(f[2]))
            continue;                /* a line this version cannot read, or not made by segbench */
        sb_variant *v = &c->entries[c->count++];
        memset(v, 0, sizeof *v);
        v->algo = f[0];
        v->name = sb_variant_current_name(f[0], f[1]);   /* an older run's name: the variant's name now */
        v->backend = f[2];
        v->flags = (unsigned)strtoul(f[3], NULL, 10);
        v->stages = (unsigned)strtoul(f[4], NULL, 10);
        v->summary = f[5];
        v->needs = "NONE";
        const sb_variant *built = sb_variant_find(v->algo, v->name);
        /* the file as this tree has it (files move with renames); a variant gone since keeps its own */
        v->file = built ? built->file : n >= 7 && strcmp(f[6], "-") != 0 ? f[6] : NULL;
        v->parent = built ? built->parent : NULL; /* the tree is this build's */
        v->idea = built ? built->idea : "";
        v->formerly = built ? built->formerly : NULL;
    }
    c->from_file = 1;
    return 1;
}

void sb_catalogue_free(sb_catalogue *c)
{
    free(c->text);
    c->text = NULL;
    c->count = 0;
    c->from_file = 0;
}

int sb_catalogue_count(const sb_catalogue *c) { return c && c->from_file ? c->count : sb_variant_count(); }

const sb_variant *sb_catalogue_at(const sb_catalogue *c, int i)
{
    return c && c->from_file ? &c->entries[i] : sb_variant_at(i);
}

const sb_variant *sb_catalogue_find(const sb_catalogue *c, const char *algo, const char *name)
{
    name = sb_variant_current_name(algo, name);
    for (int i = 0; i < sb_catalogue_count(c); i++) {
        const sb_variant *v = sb_catalogue_at(c, i);
        if (!strcmp(v->algo, algo) && !strcmp(v->name, name))
            return v;
    }
    return NULL;
}
