/* lessons.c - the ladders as trees of lessons (see lessons.h). */
#include "course/lessons.h"

#include "base/csv.h"
#include "base/files.h"
#include "io/noise_floor.h"
#include "variants/renames.h"
#include "io/stage_view.h"

#include "segbench/stats.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_RUNGS = 32 };

int lesson_rungs(const char *algo, const sb_variant **out, int max)
{
    int n = 0;
    for (int i = 0; i < sb_variant_count() && n < max; i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, algo) == 0 && v->idea[0])
            out[n++] = v;
    }
    return n;
}

/* "void tile_sat<SumOp, GlobalLoader>" -> "tile_sat" */
static void kernel_base_name(const char *full, char *out, size_t size)
{
    if (strncmp(full, "void ", 5) == 0)
        full += 5;
    size_t n = strcspn(full, "<(");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), full);
}

static void census_read(lesson_census *c, const char *results_dir, const char *algo, const char *stage,
                        const char *image, const char *variant)
{
    memset(c, 0, sizeof *c);
    if (!results_dir)
        return;
    char path[1400];
    snprintf(path, sizeof path, "%.1000s/%.60s.kernels.csv", results_dir, algo);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    /* The census at `image`, else at the first image the file has for the
     * variant (bench takes it once a stage; block shapes rarely depend on
     * the image).  A kernel launched in several shapes keeps its largest. */
    char *line = NULL, first[128] = "";
    size_t cap = 0;
    for (int pass = 0; pass < 2 && !c->kernels; pass++) {
        rewind(fp);
        while (sb_csv_read_record(fp, &line, &cap) > 0) {
            char *f[10];
            if (sb_csv_split(line, f, 10) != 10 || strcmp(f[0], stage) != 0 ||
                strcmp(sb_variant_current_name(algo, f[1]), variant) != 0)
                continue;
            if (!first[0])
                snprintf(first, sizeof first, "%s", f[2]);
            if (strcmp(f[2], pass ? first : image) != 0)
                continue;
            char name[96];
            kernel_base_name(f[3], name, sizeof name);
            int i = 0;
            while (i < c->kernels && strcmp(c->k[i].name, name) != 0)
                i++;
            if (i == c->kernels) {
                if (c->kernels == LESSON_KERNELS)
                    continue;
                c->kernels++;
                snprintf(c->k[i].name, sizeof c->k[i].name, "%s", name);
                c->k[i].occupancy = 1.0;
            }
            int regs = atoi(f[5]), smem = atoi(f[6]) + atoi(f[7]);
            double occ = atof(f[9]);
            if (regs > c->k[i].regs)
                c->k[i].regs = regs;
            if (smem > c->k[i].smem)
                c->k[i].smem = smem;
            if (occ < c->k[i].occupancy)
                c->k[i].occupancy = occ;
        }
    }
    free(line);
    fclose(fp);
}

/* The median of per frame less kernel over the CUDA rows of (stage,
 * image): what crossing the bus takes there; 0 when fewer than 4 rows
 * (too few for one of them to stand out). */
static double median_transfer(const sb_rows *rows, const char *algo, const char *stage, const char *image)
{
    double *t = malloc((size_t)(rows->count > 0 ? rows->count : 1) * sizeof *t);
    int n = 0;
    for (int i = 0; t && i < rows->count; i++) {
        const sb_row *r = &rows->row[i];
        if (!strcmp(r->algo, algo) && !strcmp(r->stage, stage) && !strcmp(r->image, image) &&
            !strncmp(r->backend, "cuda", 4) && r->frame.median > 0 && r->kernel.median > 0)
            t[n++] = r->frame.median - r->kernel.median;
    }
    sb_summary sum = { 0 };
    if (n >= 4)
        sb_summarize(t, n, &sum);
    free(t);
    return sum.median;
}

static int frame_outlier(const sb_row *r, double transfer)
{
    double own = r->frame.median - r->kernel.median, excess = own - transfer;
    return transfer > 0 && r->frame.median > 0 && own > LESSON_FRAME_OUTLIER * transfer &&
           excess > LESSON_FRAME_SLACK_MS && excess > LESSON_FRAME_SHARE * r->frame.median;
}

void lesson_frame_gain(const lesson_edge *e, char *out, size_t size)
{
    if (e->frame_outlier || e->parent_frame_outlier)
        snprintf(out, size, "- (outlier)");
    else
        lesson_gain_text(e->parent_frame_ms, e->frame_ms, out, size);
}

/* The rung's row against its parent's, as compare judges two result sets'
 * rows: their rounds (a row without them: its median, one round), held to
 * the machine's floors (<results_dir>/noise.csv, else the defaults). */
static void judge_edge(lesson_edge *e, const sb_row *parent, const sb_row *rung, const char *results_dir)
{
    sb_noise_floor floors;
    char path[SB_PATH_MAX];
    sb_error ignored;
    if (!results_dir || snprintf(path, sizeof path, "%s/noise.csv", results_dir) >= (int)sizeof path ||
        sb_floor_read(path, &floors, &ignored) != SB_OK)
        sb_floor_defaults(&floors);
    double floor = sb_floor_for_row(&floors, rung);
    sb_floor_free(&floors);
    const double *a = parent->round_ms, *b = rung->round_ms;
    int na = parent->nround, nb = rung->nround;
    if (!a || !b) {
        a = &parent->kernel.median, b = &rung->kernel.median, na = nb = 1;
    }
    sb_effect_judge(a, na, b, nb, floor, &e->eff);
    e->judged = 1;
}

void lesson_edge_measure(lesson_edge *e, const sb_variant *rung, const sb_rows *rows, const char *results_dir,
                         const char *stage)
{
    memset(e, 0, sizeof *e);
    e->rung = rung;
    e->parent = rung->parent ? sb_variant_find(rung->algo, rung->parent) : NULL;
    if (!rows)
        return;
    stage_view sv;
    view_build(&sv, rows, rung->algo, stage);
    if (sv.nimg == 0)
        return;
    snprintf(e->image, sizeof e->image, "%s", sv.img[sv.largest]);
    int failed;
    const sb_row *r = view_best_row(&sv, rung->name, e->image, &failed);
    double transfer = median_transfer(rows, rung->algo, stage, e->image);
    if (r) {
        e->kernel_ms = r->kernel.median;
        e->frame_ms = r->frame.median;
        e->frame_outlier = frame_outlier(r, transfer);
    }
    census_read(&e->census, results_dir, rung->algo, stage, e->image, rung->name);
    if (e->parent) {
        const sb_row *p = view_best_row(&sv, e->parent->name, e->image, &failed);
        if (p) {
            e->parent_kernel_ms = p->kernel.median;
            e->parent_frame_ms = p->frame.median;
            e->parent_frame_outlier = frame_outlier(p, transfer);
        }
        census_read(&e->parent_census, results_dir, rung->algo, stage, e->image, e->parent->name);
        if (r && p && r->kernel.median > 0 && p->kernel.median > 0)
            judge_edge(e, p, r, results_dir);
    }
}



void lesson_gain_judged(const lesson_edge *e, char *out, size_t size)
{
    char g[32];
    lesson_gain_text(e->parent_kernel_ms, e->kernel_ms, g, sizeof g);
    if (!e->judged || strcmp(g, "-") == 0)
        snprintf(out, size, "%s", g);
    else if (e->eff.call == SB_CALL_SAME)
        snprintf(out, size, "same (%s)", g);
    else if (e->eff.call == SB_CALL_FASTER || e->eff.call == SB_CALL_SLOWER)
        sb_speedup_text(e->parent_kernel_ms, e->kernel_ms, sb_effect_half_width(&e->eff), "", out, size);
    else if (e->eff.na < 2 || e->eff.nb < 2)
        snprintf(out, size, "%s (one round)", g);   /* no interval: undetermined, whatever the ratio */
    else
        snprintf(out, size, "%s (undetermined)", g);
}

int lesson_edge_lost(const lesson_edge *e)
{
    return e->parent && e->judged && e->eff.call == SB_CALL_SLOWER;
}

void lesson_rows_samples(const char *results_dir, const char *algo, sb_rows *rows)
{
    char path[SB_PATH_MAX];
    sb_error ignored;
    if (snprintf(path, sizeof path, "%s/%s.samples.csv", results_dir, algo) < (int)sizeof path)
        sb_rows_read_samples(path, rows, &ignored);
}

void lesson_gain_text(double parent_ms, double ms, char *out, size_t size)
{
    sb_speedup_text(parent_ms, ms, 0.0, "", out, size);
}

static void smem_text(int bytes, char *out, size_t size)
{
    if (bytes >= 1024)
        snprintf(out, size, "%.1f KB", bytes / 1024.0);
    else
        snprintf(out, size, "%d B", bytes);
}

static const lesson_kernel *census_find(const lesson_census *c, const char *name)
{
    for (int i = 0; i < c->kernels; i++)
        if (strcmp(c->k[i].name, name) == 0)
            return &c->k[i];
    return NULL;
}

/* Append one item ("; " between), or count it as left out past the room. */
static void add_item(char *out, size_t size, int *items, int *left_out, const char *item)
{
    size_t n = strlen(out);
    if (*items >= 4 || n + strlen(item) + 24 >= size) {
        (*left_out)++;
        return;
    }
    snprintf(out + n, size - n, "%s%s", (*items)++ ? "; " : "", item);
}

static void kernel_text(const lesson_kernel *k, char *out, size_t size)
{
    char sm[32];
    smem_text(k->smem, sm, sizeof sm);
    snprintf(out, size, "%s (%d regs, %s, %.0f %%)", k->name, k->regs, sm, 100.0 * k->occupancy);
}

void lesson_census_text(const lesson_edge *e, char *out, size_t size)
{
    out[0] = '\0';
    const lesson_census *a = &e->parent_census, *b = &e->census;
    int items = 0, left_out = 0;
    char item[200], x[32], y[32];
    if (!e->parent) {
        for (int i = 0; i < b->kernels; i++) {
            kernel_text(&b->k[i], item, sizeof item);
            add_item(out, size, &items, &left_out, item);
        }
    } else if (a->kernels && b->kernels) {
        for (int i = 0; i < b->kernels; i++) {
            const lesson_kernel *k = &b->k[i], *p = census_find(a, k->name);
            if (!p) {
                char t[160];
                kernel_text(k, t, sizeof t);
                snprintf(item, sizeof item, "+%s", t);
                add_item(out, size, &items, &left_out, item);
                continue;
            }
            if (p->regs == k->regs && p->smem == k->smem &&
                (int)(100 * p->occupancy + 0.5) == (int)(100 * k->occupancy + 0.5))
                continue;
            size_t n = (size_t)snprintf(item, sizeof item, "%s:", k->name);
            if (p->regs != k->regs)
                n += (size_t)snprintf(item + n, sizeof item - n, " regs %d -> %d", p->regs, k->regs);
            if (p->smem != k->smem && n < sizeof item) {
                smem_text(p->smem, x, sizeof x);
                smem_text(k->smem, y, sizeof y);
                if (strcmp(x, y) == 0) {              /* rounding hides it: the bytes */
                    snprintf(x, sizeof x, "%d B", p->smem);
                    snprintf(y, sizeof y, "%d B", k->smem);
                }
                n += (size_t)snprintf(item + n, sizeof item - n, " smem %s -> %s", x, y);
            }
            if ((int)(100 * p->occupancy + 0.5) != (int)(100 * k->occupancy + 0.5) && n < sizeof item)
                snprintf(item + n, sizeof item - n, " occupancy %.0f -> %.0f %%", 100 * p->occupancy,
                         100 * k->occupancy);
            add_item(out, size, &items, &left_out, item);
        }
        for (int i = 0; i < a->kernels; i++)
            if (!census_find(b, a->k[i].name)) {
                snprintf(item, sizeof item, "-%s", a->k[i].name);
                add_item(out, size, &items, &left_out, item);
            }
        if (!items && !left_out)
            snprintf(out, size, "same kernels, same census");
    }
    if (left_out) {
        size_t n = strlen(out);
        snprintf(out + n, size - n, "; and %d more", left_out);
    }
}

/* The rung of root's tree flagged SB_LADDER_TOP (not a student's copy),
 * or NULL where the tree declares none. */
static const sb_variant *declared_top(const sb_variant *root)
{
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (!(v->flags & SB_LADDER_TOP) || strcmp(v->algo, root->algo) || sb_is_student_variant(v->name))
            continue;
        const sb_variant *r = v;
        while (r->parent && sb_variant_find(r->algo, r->parent))
            r = sb_variant_find(r->algo, r->parent);
        if (r == root)
            return v;
    }
    return NULL;
}

int lesson_on_main_line(const sb_variant *rung, const sb_rows *rows, const char *stage)
{
    const sb_variant *root = rung;
    while (root->parent && sb_variant_find(root->algo, root->parent))
        root = sb_variant_find(root->algo, root->parent);
    const sb_variant *top = declared_top(root);
    if (top) {                          /* declared: the path from the root to it */
        for (const sb_variant *p = top; p; p = p->parent ? sb_variant_find(p->algo, p->parent) : NULL)
            if (p == rung)
                return 1;
        return 0;
    }
    if (!rows)
        return 1;
    stage_view sv;
    view_build(&sv, rows, rung->algo, stage);
    if (sv.nimg == 0)
        return 1;
    const char *image = sv.img[sv.largest];
    const sb_variant *list[MAX_RUNGS];
    int n = lesson_rungs(rung->algo, list, MAX_RUNGS);
    /* undeclared: the fastest rung of rung's tree (the same root) */
    const sb_variant *best = NULL;
    double best_ms = 0;
    for (int i = 0; i < n; i++) {
        const sb_variant *r = list[i];
        while (r->parent && sb_variant_find(r->algo, r->parent))
            r = sb_variant_find(r->algo, r->parent);
        int failed;
        const sb_row *row = view_best_row(&sv, list[i]->name, image, &failed);
        if (r != root || !row)
            continue;
        if (!best || row->kernel.median < best_ms) {
            best = list[i];
            best_ms = row->kernel.median;
        }
    }
    if (!best)
        return 1;
    for (const sb_variant *p = best; p; p = p->parent ? sb_variant_find(p->algo, p->parent) : NULL)
        if (p == rung)
            return 1;
    return 0;
}

static void tree_walk(FILE *fp, const sb_variant *const *list, int n, const sb_variant *node, const char *prefix,
                      int last, int depth, int width, const sb_rows *rows, const char *results_dir, const char *stage)
{
    lesson_edge e;
    lesson_edge_measure(&e, node, rows, results_dir, stage);
    char t[32] = "-", g[32];
    if (e.kernel_ms > 0)
        snprintf(t, sizeof t, "%.4g ms", e.kernel_ms);
    lesson_gain_judged(&e, g, sizeof g);
    if (!strncmp(g, "same", 4))
        snprintf(g, sizeof g, "same");          /* the column is narrow: the table beside it has the ratio */
    int main_line = lesson_on_main_line(node, rows, stage);
    int pad = width - 3 * depth;                /* the times in one column whatever the depth */
    fprintf(fp, "%s%s%-*s %12s  %7s  %s%s\n", prefix, depth ? (last ? "└─ " : "├─ ") : "", pad > 0 ? pad : 1,
            node->name, t, depth ? g : "", main_line ? "" : "[branch] ", node->idea);
    char sub[512];
    snprintf(sub, sizeof sub, "%.400s%s", prefix, depth ? (last ? "   " : "│  ") : "");
    int kids = 0, seen = 0;
    for (int i = 0; i < n; i++)
        kids += list[i]->parent && strcmp(list[i]->parent, node->name) == 0;
    for (int i = 0; i < n; i++)
        if (list[i]->parent && strcmp(list[i]->parent, node->name) == 0) {
            seen++;
            tree_walk(fp, list, n, list[i], sub, seen == kids, depth + 1, width, rows, results_dir, stage);
        }
}

/* How deep a rung sits: its parents up to a root. */
static int rung_depth(const sb_variant *v)
{
    int depth = 0;
    for (const sb_variant *p = v; p->parent && (p = sb_variant_find(p->algo, p->parent)) && depth < MAX_RUNGS;)
        depth++;
    return depth;
}

void lesson_tree_print(FILE *fp, const char *algo, const sb_rows *rows, const char *results_dir, const char *stage)
{
    const sb_variant *list[MAX_RUNGS];
    int n = lesson_rungs(algo, list, MAX_RUNGS), width = 0;
    for (int i = 0; i < n; i++) {               /* the widest indent and name: the time column after it */
        int w = 3 * rung_depth(list[i]) + (int)strlen(list[i]->name) + 2;
        if (w > width)
            width = w;
    }
    for (int i = 0; i < n; i++)
        if (!list[i]->parent)
            tree_walk(fp, list, n, list[i], "", 1, 0, width, rows, results_dir, stage);
}

int lesson_source_path(const char *file, char *out, size_t size)
{
    if (access(file, R_OK) == 0) {
        snprintf(out, size, "%s", file);
        return 1;
    }
    char exe[PATH_MAX - 256];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) {          /* build/segbench -> the repository */
        char *slash = strrchr(exe, '/');
        if (!slash)
            return 0;
        *slash = '\0';
    }
    if ((size_t)snprintf(out, size, "%s/%s", exe, file) >= size)
        return 0;
    return access(out, R_OK) == 0;
}

static int by_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

int lesson_own_headers(const char *rung_path, char (*paths)[PATH_MAX], int max)
{
    char dir[PATH_MAX / 2], stem[256];
    const char *slash = strrchr(rung_path, '/'), *base = slash ? slash + 1 : rung_path;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - rung_path) : 1, slash ? rung_path : ".");
    const char *dot = strrchr(base, '.');
    snprintf(stem, sizeof stem, "%.*s", dot ? (int)(dot - base) : (int)strlen(base), base);
    size_t sl = strlen(stem);
    char names[16][NAME_MAX + 1];
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL && n < 16 && n < max;) {
        size_t len = strlen(e->d_name);
        if (len >= sl + 4 && strncmp(e->d_name, stem, sl) == 0 && strcmp(e->d_name + len - 4, ".cuh") == 0 &&
            (e->d_name[sl] == '.' || e->d_name[sl] == '_'))
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (snprintf(paths[kept], PATH_MAX, "%s/%s", dir, names[i]) < PATH_MAX)
            kept++;                               /* a path too long to open is left out */
    return kept;
}
