/* rows.c - CSV in and out for benchmark rows (see rows.h). */
#include "io/rows.h"

#include "base/grow.h"

#include "base/files.h"

#include "base/csv.h"
#include "base/json_out.h"
#include "variants/renames.h"

#include "variants/registry.h"

#include "segbench/atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const SB_ROWS_CSV_HEADER =
    "algo,stage,variant,backend,threads,image,width,height,"
    "n,median_ms,min_ms,p25_ms,p75_ms,max_ms,"
    "e2e_n,e2e_median_ms,e2e_min_ms,e2e_p25_ms,e2e_p75_ms,e2e_max_ms,"
    "bytes,gbps,peak_fraction,agreement,agreement_metric,commit,date,run_id,flags,"
    "frame_n,frame_median_ms,frame_min_ms,frame_p25_ms,frame_p75_ms,frame_max_ms,"
    "setup_n,setup_median_ms,setup_min_ms,setup_p25_ms,setup_p75_ms,setup_max_ms,"
    "sm_mhz_start,sm_mhz_end,mem_mhz_start,mem_mhz_end,clock_reasons,rounds,round_spread,steal,cpu_slowdown,mem_slowdown,code_id,stopped,work";
const char *const SB_SAMPLES_CSV_HEADER = "algo,stage,variant,threads,image,kind,samples_ms,run_id";
/* Older files: V1 has no commit, date, run_id; V2 no flags; V3 no frame and
 * setup; V4 no clocks; V5 no rounds; V6 no mem_slowdown; V7 no code_id;
 * V8 no stopped; V9 no work. */
enum {
    CSV_FIELDS = 54, CSV_FIELDS_V9 = 53, CSV_FIELDS_V8 = 52, CSV_FIELDS_V7 = 51, CSV_FIELDS_V6 = 50, CSV_FIELDS_V5 = 46, CSV_FIELDS_V4 = 41, CSV_FIELDS_V3 = 29, CSV_FIELDS_V2 = 28,
    CSV_FIELDS_V1 = 25
};

sb_row *sb_rows_add(sb_rows *rows)
{
    sb_row *grown = sb_grow(rows->row, &rows->cap, rows->count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    rows->row = grown;
    sb_row *r = &rows->row[rows->count++];
    memset(r, 0, sizeof *r);
    r->steal = -1.0;
    return r;
}

static void row_free_samples(sb_row *r)
{
    free(r->kernel_ms);
    free(r->e2e_ms);
    free(r->frame_ms);
    free(r->setup_ms);
    free(r->round_ms);
    free(r->round_work);
    free(r->round_probe);
}

void sb_rows_free(sb_rows *rows)
{
    for (int i = 0; i < rows->count; i++)
        row_free_samples(&rows->row[i]);
    free(rows->row);
    memset(rows, 0, sizeof *rows);
}

int sb_row_same_key(const sb_row *a, const sb_row *b)
{
    return a->threads == b->threads && strcmp(a->algo, b->algo) == 0 && strcmp(a->stage, b->stage) == 0 &&
           strcmp(a->variant, b->variant) == 0 && strcmp(a->image, b->image) == 0;
}

int sb_row_unstable(const sb_row *r) { return r && strstr(r->flags, "unstable") != NULL; }

const char *sb_row_marks(const sb_row *r)
{
    if (!r)
        return "";
    static const char *const MARKS[8] = {
        "", " \xe2\x80\xa0", " \xe2\x80\xa1", " \xe2\x80\xa0 \xe2\x80\xa1",
        " \xc2\xa7", " \xe2\x80\xa0 \xc2\xa7", " \xe2\x80\xa1 \xc2\xa7", " \xe2\x80\xa0 \xe2\x80\xa1 \xc2\xa7"
    };
    int once = r->kernel.n < 3;
    int noisy = strstr(r->flags, "spread") || strstr(r->flags, "over_peak") || strstr(r->flags, "e2e_below");
    return MARKS[once | noisy << 1 | sb_row_unstable(r) << 2];
}

const char *sb_ratio_mark(const sb_row *a, const sb_row *b)
{
    return sb_row_unstable(a) || sb_row_unstable(b) ? " \xc2\xa7" : "";
}

static void csv_summary(FILE *fp, const sb_summary *s)
{
    fprintf(fp, "%d,%.6f,%.6f,%.6f,%.6f,%.6f", s->n, s->median, s->min, s->p25, s->p75, s->max);
}

void sb_row_put_csv(FILE *fp, const sb_row *r)
{
    sb_csv_put_fields(fp, (const char *const[]){ r->algo, r->stage, r->variant, r->backend }, 4);
    fprintf(fp, ",%d,", r->threads);
    sb_csv_put_field(fp, r->image);
    fprintf(fp, ",%d,%d,", r->width, r->height);
    csv_summary(fp, &r->kernel);
    fputc(',', fp);
    csv_summary(fp, &r->e2e);
    fprintf(fp, ",%.0f,%.3f,%.4f,", r->bytes, r->gbps, r->peak_fraction);
    sb_csv_put_fields(fp, (const char *const[]){ r->agreement, r->metric, r->commit, r->date, r->run_id, r->flags }, 6);
    fputc(',', fp);
    csv_summary(fp, &r->frame);
    fputc(',', fp);
    csv_summary(fp, &r->setup);
    fprintf(fp, ",%d,%d,%d,%d,", r->sm_mhz[0], r->sm_mhz[1], r->mem_mhz[0], r->mem_mhz[1]);
    sb_csv_put_field(fp, r->clock_reasons);
    fprintf(fp, ",%d,%.4f,", r->rounds, r->round_spread);
    if (r->steal >= 0)
        fprintf(fp, "%.4f", r->steal);
    fprintf(fp, ",%.3f,%.3f,", r->cpu_slowdown, r->mem_slowdown);
    sb_csv_put_field(fp, r->code_id);
    fputc(',', fp);
    sb_csv_put_field(fp, r->stopped);
    fputc(',', fp);
    sb_csv_put_field(fp, r->work);
    fputc('\n', fp);
}

/* A whole file of rows, each line by put, under its header: all or nothing. */
static sb_status write_rows(const sb_rows *rows, const char *path, const char *header,
                            void (*put)(FILE *fp, const sb_row *r), sb_error *err)
{
    sb_atomic_file af;
    sb_status st = sb_atomic_open(&af, path, err);
    if (st)
        return st;
    fprintf(af.fp, "%s\n", header);
    for (int i = 0; i < rows->count; i++)
        put(af.fp, &rows->row[i]);
    return sb_atomic_commit(&af, err);
}

sb_status sb_rows_write_csv(const sb_rows *rows, const char *path, sb_error *err)
{
    return write_rows(rows, path, SB_ROWS_CSV_HEADER, sb_row_put_csv, err);
}

static void samples_put(FILE *fp, const sb_row *r, const char *kind, const double *ms, int n)
{
    sb_csv_put_fields(fp, (const char *const[]){ r->algo, r->stage, r->variant }, 3);
    fprintf(fp, ",%d,", r->threads);
    sb_csv_put_field(fp, r->image);
    fprintf(fp, ",%s,", kind);
    for (int i = 0; i < n; i++)
        fprintf(fp, strcmp(kind, "work") ? "%s%.6f" : "%s%.0f", i ? " " : "", ms[i]);   /* counts: whole */
    fputc(',', fp);
    sb_csv_put_field(fp, r->run_id);
    fputc('\n', fp);
}

void sb_row_put_samples(FILE *fp, const sb_row *r)
{
    if (r->kernel_ms)
        samples_put(fp, r, "kernel", r->kernel_ms, r->kernel.n);
    if (r->e2e_ms)
        samples_put(fp, r, "e2e", r->e2e_ms, r->e2e.n);
    if (r->frame_ms)
        samples_put(fp, r, "frame", r->frame_ms, r->frame.n);
    if (r->setup_ms)
        samples_put(fp, r, "setup", r->setup_ms, r->setup.n);
    if (r->round_ms && r->nround > 0)
        samples_put(fp, r, "round", r->round_ms, r->nround);
    if (r->round_work && r->nwork > 0)
        samples_put(fp, r, "work", r->round_work, r->nwork);
    if (r->round_probe && r->nprobe > 0)
        samples_put(fp, r, "probe", r->round_probe, r->nprobe);
}

sb_status sb_rows_write_samples(const sb_rows *rows, const char *path, sb_error *err)
{
    return write_rows(rows, path, SB_SAMPLES_CSV_HEADER, sb_row_put_samples, err);
}

/* ---- append-only logs ---- */

sb_status sb_csv_log_open(sb_csv_log *log, const char *path, const char *header, int keep, sb_error *err)
{
    memset(log, 0, sizeof *log);
    snprintf(log->path, sizeof log->path, "%s", path);
    FILE *old = keep ? fopen(path, "r+") : NULL;
    if (old) {
        char first[SB_PATH_MAX] = "";
        long good = sb_csv_complete_length(old);
        rewind(old);
        if (!fgets(first, sizeof first, old) || strcspn(first, "\r\n") != strlen(header) ||
            strncmp(first, header, strlen(header)) != 0 || good == 0) {
            fclose(old);
            return sb_fail(err, SB_ERR_FORMAT, "%s: not a results file of this segbench (header differs); "
                           "start afresh without --resume", path);
        }
        if (ftruncate(fileno(old), good) != 0 || fseek(old, 0, SEEK_END) != 0) {
            fclose(old);
            return sb_fail(err, SB_ERR_IO, "%s: cannot drop a cut-off last line (%s)", path, strerror(errno));
        }
        log->fp = old;
        return SB_OK;
    }
    char text[SB_PATH_MAX];
    snprintf(text, sizeof text, "%s\n", header);
    sb_status st = sb_atomic_write_text(path, text, err);
    if (st)
        return st;
    if (!(log->fp = fopen(path, "a")))
        return sb_fail(err, SB_ERR_IO, "%s: cannot open for appending (%s)", path, strerror(errno));
    return SB_OK;
}

sb_status sb_csv_log_flush(sb_csv_log *log, sb_error *err)
{
    if (fflush(log->fp) != 0 || ferror(log->fp))
        return sb_fail(err, SB_ERR_IO, "%s: write failed (%s)", log->path, strerror(errno));
    return SB_OK;
}

void sb_csv_log_close(sb_csv_log *log)
{
    if (log->fp)
        fclose(log->fp);
    log->fp = NULL;
}

static void copy_field(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src); }

static void parse_summary(char **f, sb_summary *s)
{
    s->n = atoi(f[0]);
    s->median = atof(f[1]);
    s->min = atof(f[2]);
    s->p25 = atof(f[3]);
    s->p75 = atof(f[4]);
    s->max = atof(f[5]);
}

/* The header's count of fields, which must be one of a version's and
 * name the columns that version wrote, in its order: a file with a
 * column missing or moved is refused, not read by position (before, a
 * file without median_ms read its commit as a time). */
static sb_status header_fields(char *line, const char *path, int *nf, sb_error *err)
{
    static const int versions[] = { CSV_FIELDS, CSV_FIELDS_V9, CSV_FIELDS_V8, CSV_FIELDS_V7, CSV_FIELDS_V6, CSV_FIELDS_V5,
                                    CSV_FIELDS_V4, CSV_FIELDS_V3, CSV_FIELDS_V2, CSV_FIELDS_V1 };
    char want[1024];
    snprintf(want, sizeof want, "%s", SB_ROWS_CSV_HEADER);
    char *expect[CSV_FIELDS + 1], *got[CSV_FIELDS + 2];
    sb_csv_split(want, expect, CSV_FIELDS + 1);
    *nf = sb_csv_split(line, got, CSV_FIELDS + 2);
    int known = 0;
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++)
        known |= *nf == versions[v];
    for (int i = 0; known && i < *nf; i++)
        if (strcmp(got[i], expect[i]) != 0)
            return sb_fail(err, SB_ERR_FORMAT, "%s: column %d is '%s' where a segbench results CSV has '%s'", path,
                           i + 1, got[i], expect[i]);
    return known ? SB_OK
                 : sb_fail(err, SB_ERR_FORMAT, "%s: not a segbench results CSV (its header has %d columns, no "
                                               "version of the file has)", path, *nf);
}

sb_status sb_rows_read_csv(const char *path, sb_rows *rows, sb_error *err)
{
    memset(rows, 0, sizeof *rows);
    int header_nf = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    sb_status st = SB_OK;
    while (sb_csv_read_record(fp, &line, &cap) > 0) {   /* a record cut off by a kill is no row */
        lineno++;
        if (lineno == 1) {
            if ((st = header_fields(line, path, &header_nf, err)))
                break;
            continue;
        }
        char *f[CSV_FIELDS + 1];
        int nf = sb_csv_split(line, f, CSV_FIELDS + 1);
        if (nf != header_nf) {
            st = sb_fail(err, SB_ERR_FORMAT, "%s: record %d: %d fields where its header names %d", path, lineno, nf,
                         header_nf);
            break;
        }
        sb_row *r = sb_rows_add(rows);
        if (!r) {
            st = sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
        copy_field(r->algo, sizeof r->algo, f[0]);
        copy_field(r->stage, sizeof r->stage, f[1]);
        copy_field(r->variant, sizeof r->variant, sb_variant_current_name(r->algo, f[2]));   /* old runs' names */
        copy_field(r->backend, sizeof r->backend, f[3]);
        r->threads = atoi(f[4]);
        copy_field(r->image, sizeof r->image, f[5]);
        r->width = atoi(f[6]);
        r->height = atoi(f[7]);
        parse_summary(f + 8, &r->kernel);
        parse_summary(f + 14, &r->e2e);
        r->bytes = atof(f[20]);
        r->gbps = atof(f[21]);
        r->peak_fraction = atof(f[22]);
        copy_field(r->agreement, sizeof r->agreement, f[23]);
        copy_field(r->metric, sizeof r->metric, f[24]);
        copy_field(r->commit, sizeof r->commit, nf > CSV_FIELDS_V1 ? f[25] : "unknown");
        copy_field(r->date, sizeof r->date, nf > CSV_FIELDS_V1 ? f[26] : "");
        copy_field(r->run_id, sizeof r->run_id, nf > CSV_FIELDS_V1 ? f[27] : "unknown");
        copy_field(r->flags, sizeof r->flags, nf > CSV_FIELDS_V2 ? f[28] : "");
        if (nf >= CSV_FIELDS_V4) {
            parse_summary(f + 29, &r->frame);
            parse_summary(f + 35, &r->setup);
        }
        r->steal = -1.0;
        if (nf >= CSV_FIELDS_V6) {
            r->rounds = atoi(f[46]);
            r->round_spread = atof(f[47]);
            r->steal = f[48][0] ? atof(f[48]) : -1.0;
            r->cpu_slowdown = atof(f[49]);
        }
        if (nf >= CSV_FIELDS_V7)
            r->mem_slowdown = atof(f[50]);
        if (nf >= CSV_FIELDS_V8)
            copy_field(r->code_id, sizeof r->code_id, f[51]);
        if (nf >= CSV_FIELDS_V9)
            copy_field(r->stopped, sizeof r->stopped, f[52]);
        if (nf == CSV_FIELDS)
            copy_field(r->work, sizeof r->work, f[53]);
        if (nf >= CSV_FIELDS_V5) {
            for (int k = 0; k < 2; k++) {
                r->sm_mhz[k] = atoi(f[41 + k]);
                r->mem_mhz[k] = atoi(f[43 + k]);
            }
            copy_field(r->clock_reasons, sizeof r->clock_reasons, f[45]);
        }
    }
    free(line);
    fclose(fp);
    if (st)
        sb_rows_free(rows);
    return st;
}

static double *parse_samples(const char *s, int *n)
{
    int cap = 16;
    double *v = malloc((size_t)cap * sizeof *v);
    *n = 0;
    while (v && *s) {
        char *end;
        double x = strtod(s, &end);
        if (end == s)
            break;
        if (*n == cap) {
            double *grown = realloc(v, (size_t)(cap *= 2) * sizeof *v);
            if (!grown) {
                free(v);
                return NULL;
            }
            v = grown;
        }
        v[(*n)++] = x;
        s = end;
    }
    return v;
}

/* Attach the sample lines of `path` to their rows.  A line that names a
 * run attaches only to the row of that run; a line without one (files
 * before run ids on sample lines) to the row of its key, unless
 * require_run_id.  A later line of the same row and kind replaces an
 * earlier one.  *t (when not NULL) counts what was not attached. */
static sb_status read_samples(const char *path, sb_rows *rows, int require_run_id, sb_samples_tally *t,
                              sb_error *err)
{
    sb_samples_tally ignored;
    if (!t)
        t = &ignored;
    memset(t, 0, sizeof *t);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    sb_status st = SB_OK;
    ssize_t len;
    static const char *const kinds[] = { "kernel", "e2e", "frame", "setup", "round", "work", "probe" };
    enum { KINDS = sizeof kinds / sizeof kinds[0] };
    while ((len = sb_csv_read_record(fp, &line, &cap)) != 0) {
        if (len < 0) {
            t->cut_off++;            /* the last line, cut off by a kill or a full disk */
            break;
        }
        if (++lineno == 1)
            continue;
        char *f[9];
        int nf = sb_csv_split(line, f, 9);
        if (nf != 7 && nf != 8) {
            st = sb_fail(err, SB_ERR_FORMAT, "%s: record %d: expected 8 fields", path, lineno);
            break;
        }
        const char *run = nf == 8 ? f[7] : NULL;
        if (!run && require_run_id) {
            t->foreign++;
            continue;
        }
        int kind = 0;
        while (kind < KINDS && strcmp(f[5], kinds[kind]) != 0)
            kind++;
        if (kind == KINDS)
            continue;                /* a kind from a later version: not ours to read */
        sb_row key;
        memset(&key, 0, sizeof key);
        copy_field(key.algo, sizeof key.algo, f[0]);
        copy_field(key.stage, sizeof key.stage, f[1]);
        copy_field(key.variant, sizeof key.variant, sb_variant_current_name(key.algo, f[2]));
        key.threads = atoi(f[3]);
        copy_field(key.image, sizeof key.image, f[4]);
        sb_row *r = NULL;
        int keyed = 0;
        for (int i = 0; i < rows->count && !r; i++)
            if (sb_row_same_key(&rows->row[i], &key)) {
                keyed = 1;
                if (!run || strcmp(rows->row[i].run_id, run) == 0)
                    r = &rows->row[i];
            }
        if (!r) {
            if (keyed)
                t->foreign++;        /* its row was measured by another run */
            else
                t->orphans++;        /* no row: its row never reached the file */
            continue;
        }
        double **dsts[KINDS] = { &r->kernel_ms, &r->e2e_ms, &r->frame_ms, &r->setup_ms, &r->round_ms,
                                 &r->round_work, &r->round_probe };
        sb_summary round_sum = { 0 }, work_sum = { 0 }, probe_sum = { 0 };
        sb_summary *sums[KINDS] = { &r->kernel, &r->e2e, &r->frame, &r->setup, &round_sum, &work_sum, &probe_sum };
        double **dst = dsts[kind];
        sb_summary *sum = sums[kind];
        if (*dst)
            t->duplicates++;
        int n = 0;
        double *v = parse_samples(f[6], &n);
        free(*dst);
        *dst = v;
        sum->n = n;
        if (kind == 4)
            r->nround = n;
        if (kind == 5)
            r->nwork = n;
        if (kind == 6)
            r->nprobe = n;
    }
    free(line);
    fclose(fp);
    return st;
}

sb_status sb_rows_read_ladders(const char *path, sb_rows *rows, int *students, sb_error *err)
{
    sb_status st = sb_rows_read_csv(path, rows, err);
    int kept = 0, left = 0;
    for (int i = 0; !st && i < rows->count; i++) {
        sb_row *r = &rows->row[i];
        if (sb_is_student_variant(r->variant)) {
            row_free_samples(r);
            left++;
        } else {
            rows->row[kept++] = *r;
        }
    }
    if (!st)
        rows->count = kept;
    if (students)
        *students = left;
    return st;
}

sb_status sb_rows_read_samples(const char *path, sb_rows *rows, sb_error *err)
{
    return read_samples(path, rows, 0, NULL, err);
}

/* Does the row have every sample its summaries count? */
static int row_complete(const sb_row *r, const int want[4])
{
    const double *got[4] = { r->kernel_ms, r->e2e_ms, r->frame_ms, r->setup_ms };
    const sb_summary *sum[4] = { &r->kernel, &r->e2e, &r->frame, &r->setup };
    for (int k = 0; k < 4; k++)
        if (want[k] > 0 && (!got[k] || sum[k]->n != want[k]))
            return 0;
    return 1;
}

sb_status sb_results_repair(const char *rows_path, const char *samples_path, const char *run_id, sb_rows *kept,
                            sb_repair *what, sb_error *err)
{
    memset(what, 0, sizeof *what);
    sb_rows rows;
    sb_status st = sb_rows_read_csv(rows_path, &rows, err);
    if (st)
        return st;
    int (*want)[4] = calloc((size_t)rows.count + 1, sizeof *want);
    if (!want) {
        sb_rows_free(&rows);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < rows.count; i++) {
        const sb_row *r = &rows.row[i];
        const int n[4] = { r->kernel.n, r->e2e.n, r->frame.n, r->setup.n };
        memcpy(want[i], n, sizeof n);
    }
    sb_samples_tally t = { 0 };
    FILE *probe = fopen(samples_path, "r");
    if (probe) {
        fclose(probe);
        st = read_samples(samples_path, &rows, 1, &t, err);
    }
    memset(kept, 0, sizeof *kept);
    for (int i = 0; i < rows.count && !st; i++) {
        sb_row *r = &rows.row[i];
        if (strcmp(r->run_id, run_id) != 0 || !row_complete(r, want[i])) {
            what->rows_dropped++;
            continue;
        }
        sb_row *k = sb_rows_add(kept);
        if (!k) {
            st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
            break;
        }
        *k = *r;                     /* the samples move with it */
        r->kernel_ms = r->e2e_ms = r->frame_ms = r->setup_ms = r->round_ms = r->round_work = r->round_probe = NULL;
    }
    what->lines_dropped = t.foreign + t.orphans + t.duplicates + t.cut_off;
    sb_rows_free(&rows);
    free(want);
    /* samples first: a kill between the two leaves rows without samples,
     * which the next repair drops, never samples that a row lacks */
    if (!st && (what->rows_dropped || what->lines_dropped))
        st = sb_rows_write_samples(kept, samples_path, err);
    if (!st && what->rows_dropped)
        st = sb_rows_write_csv(kept, rows_path, err);
    if (st)
        sb_rows_free(kept);
    return st;
}

/* ---- JSON (bench --json) ---- */

static void json_summary(FILE *fp, const char *name, const sb_summary *s, const double *samples)
{
    fprintf(fp, "\"%s\": {\"n\": %d, ", name, s->n);
    const char *keys[] = { "median_ms", "min_ms", "p25_ms", "p75_ms", "max_ms" };
    const double values[] = { s->median, s->min, s->p25, s->p75, s->max };
    for (int i = 0; i < 5; i++) {
        sb_json_key_num(fp, keys[i], values[i]);
        fprintf(fp, ", ");
    }
    sb_json_key_nums(fp, "samples_ms", samples, samples ? s->n : 0);
    fputc('}', fp);
}

static void json_field(FILE *fp, const char *key, const char *value)
{
    sb_json_key_str(fp, key, value);
    fprintf(fp, ", ");
}

sb_status sb_rows_write_json(const sb_rows *rows, const char *path, sb_error *err)
{
    sb_atomic_file af;
    sb_status st = sb_atomic_open(&af, path, err);
    if (st)
        return st;
    FILE *fp = af.fp;
    fprintf(fp, "{\"rows\": [");
    for (int i = 0; i < rows->count; i++) {
        const sb_row *r = &rows->row[i];
        fprintf(fp, "%s\n  {", i ? "," : "");
        json_field(fp, "algo", r->algo);
        json_field(fp, "stage", r->stage);
        json_field(fp, "variant", r->variant);
        json_field(fp, "backend", r->backend);
        fprintf(fp, "\"threads\": %d, ", r->threads);
        json_field(fp, "image", r->image);
        fprintf(fp, "\"width\": %d, \"height\": %d,\n   ", r->width, r->height);
        json_summary(fp, "kernel", &r->kernel, r->kernel_ms);
        fprintf(fp, ",\n   ");
        json_summary(fp, "e2e", &r->e2e, r->e2e_ms);
        fprintf(fp, ",\n   ");
        json_summary(fp, "frame", &r->frame, r->frame_ms);
        fprintf(fp, ",\n   ");
        json_summary(fp, "setup", &r->setup, r->setup_ms);
        fprintf(fp, ",\n   ");
        sb_json_key_num(fp, "bytes", r->bytes);
        fprintf(fp, ", ");
        sb_json_key_num(fp, "gbps", r->gbps);
        fprintf(fp, ", ");
        sb_json_key_num(fp, "peak_fraction", r->peak_fraction);
        fprintf(fp, ", ");
        json_field(fp, "agreement", r->agreement);
        json_field(fp, "agreement_metric", r->metric);
        json_field(fp, "commit", r->commit);
        json_field(fp, "date", r->date);
        json_field(fp, "run_id", r->run_id);
        json_field(fp, "flags", r->flags);
        fprintf(fp, "\"sm_mhz\": [%d, %d], \"mem_mhz\": [%d, %d], ", r->sm_mhz[0], r->sm_mhz[1], r->mem_mhz[0],
                r->mem_mhz[1]);
        sb_json_key_str(fp, "clock_reasons", r->clock_reasons);
        fprintf(fp, ", \"rounds\": %d, ", r->rounds);
        sb_json_key_num(fp, "round_spread", r->round_spread);
        if (r->steal >= 0) {
            fprintf(fp, ", ");
            sb_json_key_num(fp, "steal", r->steal);
        }
        fprintf(fp, ", ");
        sb_json_key_num(fp, "cpu_slowdown", r->cpu_slowdown);
        fprintf(fp, ", ");
        sb_json_key_num(fp, "mem_slowdown", r->mem_slowdown);
        fprintf(fp, ", ");
        sb_json_key_str(fp, "code_id", r->code_id);
        fprintf(fp, ", ");
        sb_json_key_str(fp, "stopped", r->stopped);
        fprintf(fp, ", ");
        sb_json_key_str(fp, "work", r->work);
        fprintf(fp, "}");
    }
    fprintf(fp, "\n]}\n");
    return sb_atomic_commit(&af, err);
}
