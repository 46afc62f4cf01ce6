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

enum { MAX_ENTRIES = 256 };

static sb_variant entries[MAX_ENTRIES];
static char *text;                  /* the file's text; entries point into it */
static int count, from_file;

/* Files before the variants' own files were recorded lack the last column;
 * their rows take the file from this build's registry. */
static const char *const HEADER = "algo\tname\tbackend\tflags\tstages\tsummary\tfile\n";
static const char *const HEADER_6 = "algo\tname\tbackend\tflags\tstages\tsummary\n";

sb_status sb_catalogue_write(const char *dir, const char *algos, sb_error *err)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/variants.tsv", dir);
    sb_catalogue_load(dir);          /* keep the other algorithms' lines as they were */
    int had_file = from_file;
    sb_atomic_file af;
    sb_status st = sb_atomic_open(&af, path, err);
    if (st)
        return st;
    fputs(HEADER, af.fp);
    for (int a = 0; a < sb_algo_count(); a++) {
        const char *algo = sb_algo_at(a)->name;
        int fresh = sb_pattern_match(algos, algo) || !had_file;
        for (int i = 0; i < (fresh ? sb_variant_count() : count); i++) {
            const sb_variant *v = fresh ? sb_variant_at(i) : &entries[i];
            if (strcmp(v->algo, algo) == 0)
                fprintf(af.fp, "%s\t%s\t%s\t%u\t%u\t%s\t%s\n", v->algo, v->name, v->backend, v->flags,
                        v->stages, v->summary, v->file && v->file[0] ? v->file : "-");
        }
    }
    if ((st = sb_atomic_commit(&af, err)))
        return st;
    sb_catalogue_load(dir);          /* what the run's summary lists: the file as written, new variants in */
    return SB_OK;
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

int sb_catalogue_load(const char *dir)
{
    free(text);
    text = NULL;
    count = 0;
    from_file = 0;
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/variants.tsv", dir);
    text = sb_read_text(path);
    size_t header = !text                                             ? 0
                    : strncmp(text, HEADER, strlen(HEADER)) == 0     ? strlen(HEADER)
                    : strncmp(text, HEADER_6, strlen(HEADER_6)) == 0 ? strlen(HEADER_6)
                                                                     : 0;
    if (!header) {
        free(text);
        text = NULL;
        return 0;
    }
    char *save = NULL;
    for (char *line = strtok_r(text + header, "\n", &save); line && count < MAX_ENTRIES;
         line = strtok_r(NULL, "\n", &save)) {
        char *f[7];
        int n = sb_split_fields(line, '\t', f, 7);
        if (n < 6 || !plain_name(f[0]) || !plain_name(f[1]) || !plain_name(f[2]))
            continue;                /* a line this version cannot read, or not made by segbench */
        sb_variant *v = &entries[count++];
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
    from_file = 1;
    return 1;
}

int sb_catalogue_count(void) { return from_file ? count : sb_variant_count(); }

const sb_variant *sb_catalogue_at(int i) { return from_file ? &entries[i] : sb_variant_at(i); }

const sb_variant *sb_catalogue_find(const char *algo, const char *name)
{
    name = sb_variant_current_name(algo, name);
    for (int i = 0; i < sb_catalogue_count(); i++) {
        const sb_variant *v = sb_catalogue_at(i);
        if (!strcmp(v->algo, algo) && !strcmp(v->name, name))
            return v;
    }
    return NULL;
}
