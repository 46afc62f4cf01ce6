/* report_style.c - colours and source links the report pages share (see
 * report_parts.h). */
#include "pages/report_parts.h"

#include "io/catalogue.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Fixed colours for the names the ladders use, so cuda-shared is the same
 * green in every plot of every algorithm and machine. */
static const struct {
    const char *name, *colour;
} COLOURS[] = {
    { "cpu", "#4d4d4d" },         { "cpu-pr", "#7f7f7f" },       { "cpu-rounds", "#a6a6a6" },
    { "pthread", "#1f77b4" },     { "openmp", "#17becf" },       { "cuda-naive", "#ff7f0e" },
    { "cuda-seed", "#ff7f0e" },   { "cuda-blocked6", "#bcbd22" }, { "cuda-global", "#d62728" },
    { "cuda-shared", "#2ca02c" }, { "cuda-texture", "#9467bd" },  { "npp", "#8c564b" },
};
/* Distinct hues for the other names, handed out in the algorithm's
 * registry order, so two rungs of one ladder never share a colour (a hash
 * gave SLIC three near-identical pinks) and a name keeps its colour on
 * every page and machine of that algorithm. */
static const char *const CPU_SPARE[] = { "#6baed6", "#08519c", "#969696", "#9ecae1" };
static const char *const GPU_SPARE[] = { "#e377c2", "#8c6d31", "#637939", "#843c39",
                                         "#3182bd", "#e6550d", "#7b4173", "#31a354" };

static int fixed_colour(const char *name)
{
    for (size_t i = 0; i < sizeof COLOURS / sizeof COLOURS[0]; i++)
        if (strcmp(COLOURS[i].name, name) == 0)
            return (int)i;
    return -1;
}

const char *report_colour(const sb_catalogue *cat, const sb_variant *v)
{
    if (view_is_floor(v))
        return REPORT_FLOOR_COLOUR;
    int fixed = fixed_colour(v->name);
    if (fixed >= 0)
        return COLOURS[fixed].colour;
    int cpu = view_is_cpu_backend(v->backend), k = 0;
    for (int i = 0; i < sb_catalogue_count(cat); i++) {
        const sb_variant *o = sb_catalogue_at(cat, i);
        if (strcmp(o->algo, v->algo) != 0 || view_is_floor(o) || fixed_colour(o->name) >= 0 ||
            view_is_cpu_backend(o->backend) != cpu)
            continue;
        if (strcmp(o->name, v->name) == 0)
            break;
        k++;
    }
    return cpu ? CPU_SPARE[k % 4] : GPU_SPARE[k % 8];
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* "meanshift-filter" -> "meanshift": the folder and file names */
static void family(const char *algo, char *out, size_t size)
{
    snprintf(out, size, "%.*s", (int)strcspn(algo, "-"), algo);
}

void report_variant_source(const sb_variant *v, char *out, size_t size)
{
    snprintf(out, size, "%s", v->file ? v->file : "");
    if (out[0] && !exists(out))
        out[0] = '\0';
}

void report_notes_path(const char *algo, char *out, size_t size)
{
    char fam[64];
    family(algo, fam, sizeof fam);
    snprintf(out, size, "impl_cuda/%s/NOTES.md", fam);
    if (!exists(out))
        out[0] = '\0';
}

/* ---- text made safe (report_parts.h) ---- */

/* Copy s into out (REPORT_TEXT_MAX bytes), each character through
 * `escape`, which writes one or two; "..." ends what does not fit. */
static const char *safe_text(char *out, const char *s, int (*escape)(char c, char *two))
{
    size_t n = 0;
    for (; *s; s++) {
        char two[2];
        int k = escape(*s, two);
        if (n + (size_t)k + 4 > REPORT_TEXT_MAX) {
            memcpy(out + n, "...", 3);
            n += 3;
            break;
        }
        memcpy(out + n, two, (size_t)k);
        n += (size_t)k;
    }
    out[n] = '\0';
    return out;
}

/* Markdown table text: '|' escaped, line ends made spaces. */
static int md_char(char c, char *two)
{
    if (c == '|') {
        two[0] = '\\';
        two[1] = '|';
        return 2;
    }
    two[0] = (c == '\n' || c == '\r') ? ' ' : c;
    return 1;
}

/* A gnuplot single-quoted string: quotes doubled, control characters spaces. */
static int gp_char(char c, char *two)
{
    if (c == '\'') {
        two[0] = two[1] = '\'';
        return 2;
    }
    two[0] = (unsigned char)c < 0x20 || c == 0x7f ? ' ' : c;
    return 1;
}

const char *report_md(char *out, const char *s) { return safe_text(out, s, md_char); }
const char *report_gp(char *out, const char *s) { return safe_text(out, s, gp_char); }
