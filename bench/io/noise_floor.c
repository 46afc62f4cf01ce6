/* noise_floor.c - noise.csv, read and written (see noise_floor.h). */
#include "io/noise_floor.h"

#include "base/csv.h"
#include "base/grow.h"
#include "io/stage_view.h"
#include "variants/registry.h"

#include "segbench/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char HEADER[] = "class,algo,stage,variant,threads,image,rows,pairs,floor,quantile,machine,commit,date,aa_dir";
enum { FIELDS = 14 };

void sb_floor_defaults(sb_noise_floor *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->source, sizeof f->source, "defaults");
}

void sb_floor_free(sb_noise_floor *f)
{
    free(f->row);
    f->row = NULL;
    f->nrows = f->rows_cap = 0;
}

sb_floor_row *sb_floor_add_row(sb_noise_floor *f, const sb_row *key, const char *cls)
{
    sb_floor_row *grown = sb_grow(f->row, &f->rows_cap, f->nrows + 1, sizeof *grown);
    if (!grown)
        return NULL;
    f->row = grown;
    sb_floor_row *r = &f->row[f->nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->key.algo, sizeof r->key.algo, "%s", key->algo);
    snprintf(r->key.stage, sizeof r->key.stage, "%s", key->stage);
    snprintf(r->key.variant, sizeof r->key.variant, "%s", key->variant);
    snprintf(r->key.image, sizeof r->key.image, "%s", key->image);
    r->key.threads = key->threads;
    snprintf(r->cls, sizeof r->cls, "%s", cls);
    return r;
}

sb_floor_kind sb_floor_kind_of_variant(const sb_variant *v)
{
    if (!(v->flags & SB_DEVICE))
        return SB_FLOOR_CPU;
    return (v->flags & SB_HOST_BOUND) ? SB_FLOOR_GPU_HOST : SB_FLOOR_GPU;
}

sb_floor_kind sb_floor_kind_of(const sb_row *r)
{
    const sb_variant *v = sb_variant_find(r->algo, r->variant);
    if (v)
        return sb_floor_kind_of_variant(v);
    return view_is_cpu_backend(r->backend) ? SB_FLOOR_CPU : SB_FLOOR_GPU;
}

void sb_floor_class_name(sb_floor_kind kind, int threads, char *out, size_t size)
{
    if (kind == SB_FLOOR_CPU)
        snprintf(out, size, "cpu@%d", threads);
    else
        snprintf(out, size, kind == SB_FLOOR_GPU_HOST ? "gpu-host" : "gpu");
}

static void copy_field(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src ? src : ""); }

/* One record: a class's line (its key fields empty) or a row's. */
static sb_status read_record(char **fld, sb_noise_floor *f, const char *path, int lineno, sb_error *err)
{
    char *end = NULL;
    double floor = strtod(fld[8], &end);
    if (!end || *end || !(floor >= 0) || floor > 1e6)
        return sb_fail(err, SB_ERR_FORMAT, "%s: record %d: the floor '%s' is not a number from 0 up", path, lineno,
                       fld[8]);
    copy_field(f->machine, sizeof f->machine, fld[10]);
    copy_field(f->commit, sizeof f->commit, fld[11]);
    copy_field(f->date, sizeof f->date, fld[12]);
    copy_field(f->aa_dir, sizeof f->aa_dir, fld[13]);
    if (!fld[1][0]) {                          /* a class */
        if (f->n == SB_FLOOR_CLASSES)
            return SB_OK;
        sb_floor_class *c = &f->cls[f->n++];
        copy_field(c->name, sizeof c->name, fld[0]);
        c->rows = atoi(fld[6]);
        c->pairs = atoi(fld[7]);
        c->floor = floor;
        return SB_OK;
    }
    sb_row key;
    memset(&key, 0, sizeof key);
    copy_field(key.algo, sizeof key.algo, fld[1]);
    copy_field(key.stage, sizeof key.stage, fld[2]);
    copy_field(key.variant, sizeof key.variant, fld[3]);
    key.threads = atoi(fld[4]);
    copy_field(key.image, sizeof key.image, fld[5]);
    sb_floor_row *r = sb_floor_add_row(f, &key, fld[0]);
    if (!r)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    r->pairs = atoi(fld[7]);
    r->floor = floor;
    return SB_OK;
}

sb_status sb_floor_read(const char *path, sb_noise_floor *f, sb_error *err)
{
    sb_floor_defaults(f);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    sb_status st = SB_OK;
    int lineno = 0;
    for (ssize_t len; !st && (len = sb_csv_read_record(fp, &line, &cap)) > 0;) {
        if (++lineno == 1) {
            if (strncmp(line, HEADER, strlen(HEADER)) != 0)
                st = sb_fail(err, SB_ERR_FORMAT, "%s: not a noise.csv (its first line is not '%s')", path, HEADER);
            continue;
        }
        char *fld[FIELDS];
        if (sb_csv_split(line, fld, FIELDS) != FIELDS)
            st = sb_fail(err, SB_ERR_FORMAT, "%s: record %d: expected %d fields", path, lineno, FIELDS);
        else
            st = read_record(fld, f, path, lineno, err);
    }
    free(line);
    fclose(fp);
    if (!st && lineno == 0)
        st = sb_fail(err, SB_ERR_FORMAT, "%s: empty (not a noise.csv)", path);
    if (st) {
        sb_floor_free(f);
        sb_floor_defaults(f);
        return st;
    }
    f->measured = f->n > 0 || f->nrows > 0;
    copy_field(f->source, sizeof f->source, f->measured ? path : "defaults");
    return SB_OK;
}

sb_status sb_floor_write(const char *path, const sb_noise_floor *f, sb_error *err)
{
    sb_atomic_file af;
    sb_status st = sb_atomic_open(&af, path, err);
    if (st)
        return st;
    const char *const where[] = { f->machine, f->commit, f->date, f->aa_dir };
    fprintf(af.fp, "%s\n", HEADER);
    for (int i = 0; i < f->n; i++) {
        const sb_floor_class *c = &f->cls[i];
        sb_csv_put_field(af.fp, c->name);
        fprintf(af.fp, ",,,,,,%d,%d,%.6f,%.2f,", c->rows, c->pairs, c->floor, SB_FLOOR_QUANTILE);
        sb_csv_put_fields(af.fp, where, 4);
        fputc('\n', af.fp);
    }
    for (int i = 0; i < f->nrows; i++) {
        const sb_floor_row *r = &f->row[i];
        sb_csv_put_fields(af.fp, (const char *const[]){ r->cls, r->key.algo, r->key.stage, r->key.variant }, 4);
        fprintf(af.fp, ",%d,", r->key.threads);
        sb_csv_put_field(af.fp, r->key.image);
        fprintf(af.fp, ",1,%d,%.6f,1.00,", r->pairs, r->floor);
        sb_csv_put_fields(af.fp, where, 4);
        fputc('\n', af.fp);
    }
    return sb_atomic_commit(&af, err);
}

double sb_floor_for(const sb_noise_floor *f, sb_floor_kind kind, int threads)
{
    char name[24];
    sb_floor_class_name(kind, threads, name, sizeof name);
    double cpu_worst = -1.0, gpu = -1.0;
    for (int i = 0; i < f->n; i++) {
        if (!strcmp(f->cls[i].name, name))
            return f->cls[i].floor;
        if (!strncmp(f->cls[i].name, "cpu@", 4) && f->cls[i].floor > cpu_worst)
            cpu_worst = f->cls[i].floor;
        if (!strcmp(f->cls[i].name, "gpu"))
            gpu = f->cls[i].floor;
    }
    if (kind == SB_FLOOR_CPU)
        return cpu_worst >= 0 ? cpu_worst : SB_FLOOR_DEFAULT_CPU;
    return kind == SB_FLOOR_GPU_HOST && gpu >= 0 ? gpu : SB_FLOOR_DEFAULT_GPU;
}

double sb_floor_for_row(const sb_noise_floor *f, const sb_row *key)
{
    for (int i = 0; i < f->nrows; i++)
        if (sb_row_same_key(&f->row[i].key, key))
            return f->row[i].floor;
    return sb_floor_for(f, sb_floor_kind_of(key), key->threads);
}

static int by_floor(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double sb_floor_class_quantile(const sb_noise_floor *f, const char *cls, int prefix, double q, int *rows)
{
    double *v = malloc((size_t)(f->nrows > 0 ? f->nrows : 1) * sizeof *v);
    int n = 0;
    for (int i = 0; v && i < f->nrows; i++)
        if (prefix ? !strncmp(f->row[i].cls, cls, strlen(cls)) : !strcmp(f->row[i].cls, cls))
            v[n++] = f->row[i].floor;
    double at = -1.0;
    if (n > 0) {
        qsort(v, (size_t)n, sizeof *v, by_floor);
        int k = (int)ceil(q * n) - 1;
        at = v[k < 0 ? 0 : k >= n ? n - 1 : k];
    }
    free(v);
    *rows = n;
    return at;
}

double sb_floor_rows_quantile(const sb_noise_floor *f, int device, double q, int *rows)
{
    return sb_floor_class_quantile(f, device ? "gpu" : "cpu@", 1, q, rows);
}

void sb_floor_describe(const sb_noise_floor *f, char *out, size_t size)
{
    if (!f->measured) {
        snprintf(out, size, "the defaults, %.0f %% for GPU rows and %.0f %% for CPU rows (no A/A on this machine: "
                            "run segbench noise)", 100.0 * SB_FLOOR_DEFAULT_GPU, 100.0 * SB_FLOOR_DEFAULT_CPU);
        return;
    }
    size_t n = (size_t)snprintf(out, size, "the A/A of %.10s on %s (commit %.12s, %s):", f->date, f->machine, f->commit,
                                f->source);
    for (int i = 0; i < f->n && n < size; i++)
        n += (size_t)snprintf(out + n, size - n, "%s %s %.1f %%", i ? "," : "", f->cls[i].name, 100.0 * f->cls[i].floor);
    if (f->nrows && n < size)
        snprintf(out + n, size - n, "; each of %d rows its own where measured", f->nrows);
}
