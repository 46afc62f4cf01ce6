/* report_view.c - one stage's rows for the report (see report_view.h). */
#include "io/stage_view.h"

#include "io/catalogue.h"
#include "variants/registry.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int view_is_synthetic(const char *image) { return strncmp(image, "synth-", 6) == 0; }

int view_is_floor(const sb_variant *v) { return v && (v->flags & SB_FLOOR); }

static int view_group(const stage_view *sv, const char *name)
{
    for (int k = 0; k < sv->ngroup; k++)
        if (strcmp(sv->group[k], name) == 0)
            return k;
    return -1;
}

static int view_image(stage_view *sv, const sb_row *r)
{
    for (int i = 0; i < sv->nimg; i++)
        if (strcmp(sv->img[i], r->image) == 0)
            return i;
    if (sv->nimg == MAX_IMAGES)
        return -1;
    int i = sv->nimg++;
    snprintf(sv->img[i], sizeof sv->img[i], "%s", r->image);
    sv->img_px[i] = (double)r->width * r->height;
    char *g = sv->img_gname[i];
    if (view_is_synthetic(r->image))
        snprintf(g, sizeof sv->img_gname[i], "%dx%d", r->width, r->height);
    else
        snprintf(g, sizeof sv->img_gname[i], "photos");
    if (view_group(sv, g) < 0 && sv->ngroup < MAX_GROUPS) {
        memcpy(sv->group[sv->ngroup], g, sizeof sv->group[0]);   /* both 32 bytes */
        sv->group_px[sv->ngroup++] = view_is_synthetic(r->image) ? sv->img_px[i] : 1e18;   /* photos last */
    }
    return i;
}

/* How many distinct thread counts the stage's threaded rows have at image i. */
int view_thread_counts_at(const stage_view *sv, int i)
{
    int counts[64], n = 0;
    for (int k = 0; k < sv->rows->count; k++) {
        const sb_row *r = &sv->rows->row[k];
        const sb_variant *v = sb_catalogue_find(sv->rows->catalogue, r->algo, r->variant);
        if (strcmp(r->stage, sv->stage) != 0 || strcmp(r->image, sv->img[i]) != 0 || !v ||
            !(v->flags & SB_THREADED))
            continue;
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= counts[j] == r->threads;
        if (!seen && n < 64)
            counts[n++] = r->threads;
    }
    return n;
}

void view_build(stage_view *sv, const sb_rows *rows, const char *algo, const char *stage)
{
    memset(sv, 0, sizeof *sv);
    sv->rows = rows;
    sv->stage = stage;
    for (int v = 0; v < sb_catalogue_count(rows->catalogue); v++) {
        const sb_variant *var = sb_catalogue_at(rows->catalogue, v);
        if (strcmp(var->algo, algo) != 0)
            continue;
        for (int i = 0; i < rows->count; i++)
            if (strcmp(rows->row[i].stage, stage) == 0 && strcmp(rows->row[i].variant, var->name) == 0) {
                if (sv->nvar < MAX_VARIANTS)
                    sv->var[sv->nvar++] = var;
                break;
            }
    }
    /* memory-bound: a floor row was measured, or the algorithm says what a
     * floor must write (so a machine without a GPU, which has no floor
     * row, still weighs its CPU rows against the host's copy peak) */
    const sb_algo *record = sb_algo_find(algo);
    sv->memory_bound = record && record->floor_output;
    for (int v = 0; v < sv->nvar; v++)
        sv->memory_bound |= view_is_floor(sv->var[v]);
    for (int i = 0; i < rows->count; i++)
        if (strcmp(rows->row[i].stage, stage) == 0)
            view_image(sv, &rows->row[i]);
    /* groups in size order (insertion sort keeps it short) */
    for (int a = 1; a < sv->ngroup; a++)
        for (int b = a; b > 0 && sv->group_px[b] < sv->group_px[b - 1]; b--) {
            char tmp[32];
            double px = sv->group_px[b];
            memcpy(tmp, sv->group[b], sizeof tmp);
            memcpy(sv->group[b], sv->group[b - 1], sizeof tmp);
            memcpy(sv->group[b - 1], tmp, sizeof tmp);
            sv->group_px[b] = sv->group_px[b - 1];
            sv->group_px[b - 1] = px;
        }
    for (int i = 0; i < sv->nimg; i++) {
        int k = view_group(sv, sv->img_gname[i]);
        sv->img_group[i] = k < 0 ? 0 : k;
    }
    sv->largest = 0;
    for (int i = 1; i < sv->nimg; i++) {
        int better_kind = view_is_synthetic(sv->img[i]) > view_is_synthetic(sv->img[sv->largest]);
        int same_kind = view_is_synthetic(sv->img[i]) == view_is_synthetic(sv->img[sv->largest]);
        if (better_kind || (same_kind && sv->img_px[i] > sv->img_px[sv->largest]))
            sv->largest = i;
    }
    sv->sweep = sv->largest;
    int most = view_thread_counts_at(sv, sv->largest);
    for (int i = 0; i < sv->nimg; i++)
        if (view_thread_counts_at(sv, i) > most) {
            most = view_thread_counts_at(sv, i);
            sv->sweep = i;
        }
}

/* Does row r belong to this stage, variant and image (NULL: any)? */
int view_row_is(const sb_row *r, const char *stage, const char *variant, const char *image)
{
    return !strcmp(r->stage, stage) && (!variant || !strcmp(r->variant, variant)) &&
           (!image || !strcmp(r->image, image));
}

/* The first row of (variant, image) at `threads` (0: any count), or NULL. */
const sb_row *view_find_row(const stage_view *sv, const char *variant, const char *image, int threads)
{
    for (int i = 0; i < sv->rows->count; i++) {
        const sb_row *r = &sv->rows->row[i];
        if (view_row_is(r, sv->stage, variant, image) && (!threads || r->threads == threads))
            return r;
    }
    return NULL;
}

/* The row of (variant, image) with the smallest kernel median among its
 * thread counts; *failed when every such row broke its contract. */
const sb_row *view_best_row(const stage_view *sv, const char *variant, const char *image, int *failed)
{
    const sb_row *best = NULL;
    int any = 0;
    *failed = 0;
    for (int i = 0; i < sv->rows->count; i++) {
        const sb_row *r = &sv->rows->row[i];
        if (!view_row_is(r, sv->stage, variant, image))
            continue;
        any = 1;
        if (strcmp(r->agreement, "FAIL") == 0)
            continue;
        if (!best || r->kernel.median < best->kernel.median)
            best = r;
    }
    *failed = any && !best;
    return best;
}

int view_is_cpu_backend(const char *backend)
{
    return strcmp(backend, "cpu") == 0 || strcmp(backend, "pthread") == 0 || strcmp(backend, "openmp") == 0;
}

int view_rows_have_gpu(const sb_rows *rows)
{
    for (int i = 0; i < rows->count; i++)
        if (!view_is_cpu_backend(rows->row[i].backend))
            return 1;
    return 0;
}

/* Kernel time of the serial reference, or of the best CPU variant. */
int view_cpu_complete(const stage_view *sv, const char *image)
{
    for (int v = 0; v < sv->nvar; v++)
        if (view_is_cpu_backend(sv->var[v]->backend) && view_find_row(sv, sv->var[v]->name, NULL, 0) &&
            !view_find_row(sv, sv->var[v]->name, image, 0))
            return 0;
    return 1;
}

const sb_row *view_baseline_row(const stage_view *sv, const char *image, int best_cpu)
{
    if (best_cpu && !view_cpu_complete(sv, image))
        return NULL;                /* a CPU variant not measured there: the best CPU is not known */
    const sb_row *best = NULL;
    for (int v = 0; v < sv->nvar; v++) {
        const sb_variant *var = sv->var[v];
        if (best_cpu ? !view_is_cpu_backend(var->backend) : strcmp(var->backend, "cpu") != 0)
            continue;
        int failed;
        const sb_row *r = view_best_row(sv, var->name, image, &failed);
        if (r && (!best || r->kernel.median < best->kernel.median))
            best = r;
        if (!best_cpu)
            break;
    }
    return best;
}

double view_baseline_ms(const stage_view *sv, const char *image, int best_cpu)
{
    const sb_row *r = view_baseline_row(sv, image, best_cpu);
    return r ? r->kernel.median : 0.0;
}

/* Geometric mean speedup of a variant over the images of one group. */
double view_group_ms(const stage_view *sv, const char *variant, int group, int *failed)
{
    double log_sum = 0.0;
    int n = 0;
    *failed = 0;
    for (int i = 0; i < sv->nimg; i++) {
        if (sv->img_group[i] != group)
            continue;
        int f;
        const sb_row *r = view_best_row(sv, variant, sv->img[i], &f);
        *failed |= f;
        if (r && r->kernel.median > 0) {
            log_sum += log(r->kernel.median);
            n++;
        }
    }
    return n ? exp(log_sum / n) : 0.0;
}

double view_group_speedup(const stage_view *sv, const char *variant, int group, int best_cpu, int *failed)
{
    double log_sum = 0.0;
    int n = 0;
    *failed = 0;
    for (int i = 0; i < sv->nimg; i++) {
        if (sv->img_group[i] != group)
            continue;
        int f;
        const sb_row *r = view_best_row(sv, variant, sv->img[i], &f);
        double base = view_baseline_ms(sv, sv->img[i], best_cpu);
        if (f)
            *failed = 1;
        if (r && base > 0 && r->kernel.median > 0) {
            log_sum += log(base / r->kernel.median);
            n++;
        }
    }
    return n ? exp(log_sum / n) : 0.0;
}

int view_group_unstable(const stage_view *sv, const char *variant, int group, int best_cpu)
{
    for (int i = 0; i < sv->nimg; i++) {
        int f;
        if (sv->img_group[i] == group &&
            (sb_row_unstable(view_best_row(sv, variant, sv->img[i], &f)) ||
             (best_cpu >= 0 && sb_row_unstable(view_baseline_row(sv, sv->img[i], best_cpu)))))
            return 1;
    }
    return 0;
}

/* The fastest agreeing row at `image` among the variants `pick` accepts,
 * by kernel time or (by_frame) by per-frame time. */
const sb_row *view_fastest(const stage_view *sv, const char *image, int (*pick)(const sb_variant *), int by_frame)
{
    const sb_row *best = NULL;
    for (int v = 0; v < sv->nvar; v++) {
        if (!pick(sv->var[v]))
            continue;
        for (int i = 0; i < sv->rows->count; i++) {
            const sb_row *r = &sv->rows->row[i];
            if (!view_row_is(r, sv->stage, sv->var[v]->name, image) || !strcmp(r->agreement, "FAIL"))
                continue;
            double t = by_frame ? (r->frame.n ? r->frame.median : 0) : r->kernel.median;
            double bt = best ? (by_frame ? best->frame.median : best->kernel.median) : 0;
            if (t > 0 && (!best || t < bt))
                best = r;
        }
    }
    return best;
}

int view_is_gpu_rung(const sb_variant *v)
{
    return !view_is_cpu_backend(v->backend) && !view_is_floor(v) && strcmp(v->backend, "lib") != 0;
}
