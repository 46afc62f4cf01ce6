/* stream_rows.c - <algo>.stream.csv (stream_rows.h). */
#include "io/stream_rows.h"

#include "base/csv.h"
#include "io/stage_view.h"

#include "segbench/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const SB_STREAM_CSV_HEADER =
    "algo,stage,variant,backend,threads,in_flight,sequence,width,height,frames,distinct,checked,fps,seconds,"
    "latency_p50_ms,latency_p99_ms,latency_max_ms,upload_ms,run_ms,fetch_ms,bound_fps,bound_fraction,bound_by,"
    "gpu_j_per_frame,gpu_idle_w,cpu_j_per_frame,cpu_idle_w,energy_note,agreement,agreement_metric,commit,date,"
    "run_id,spread,flags,runs,source,host_ms,copies_fps,kernels_fps,start,work_key,work_per_frame";
/* V1: before spread and flags; V2: before runs; V3: before source and host_ms; V4: before the engines'
 * rates; V5: before start and work */
enum { STREAM_COLUMNS = 43, STREAM_COLUMNS_V5 = 40, STREAM_COLUMNS_V4 = 38, STREAM_COLUMNS_V3 = 36,
       STREAM_COLUMNS_V2 = 35, STREAM_COLUMNS_V1 = 33 };

const char *sb_stream_runs_note(const sb_stream_row *r) { return strcmp(r->runs, "in-turn") ? "" : ", runs in turn"; }
const char *sb_stream_source_note(const sb_stream_row *r) { return strcmp(r->source, "colour") ? "" : " from colour"; }

void sb_stream_bound_cell(const sb_stream_row *r, char *out, size_t size)
{
    if (r->bound_fps <= 0)
        snprintf(out, size, "-");
    else if (!strcmp(r->bound_by, "cpus"))       /* a model, not a bound: no "beaten" */
        snprintf(out, size, "%.0f %% of perfect scaling", 100.0 * r->bound_fraction);
    else if (r->bound_fraction >= 1.005)         /* what rounds to a share above 100 % */
        snprintf(out, size, "beaten by %.0f %% (%s)", 100.0 * (r->bound_fraction - 1.0), r->bound_by);
    else
        snprintf(out, size, "%.0f %% (%s)", 100.0 * fmin(r->bound_fraction, 1.0), r->bound_by);
}

/* A number, or an empty field where there is none (< 0). */
static void put_num(FILE *fp, const char *fmt, double v)
{
    fputc(',', fp);
    if (v >= 0)
        fprintf(fp, fmt, v);
}

void sb_stream_row_put_csv(FILE *fp, const sb_stream_row *r)
{
    const char *names[] = { r->algo, r->stage, r->variant, r->backend };
    sb_csv_put_fields(fp, names, 4);
    fprintf(fp, ",%d,%d,", r->threads, r->in_flight);
    sb_csv_put_field(fp, r->sequence);
    fprintf(fp, ",%d,%d,%d,%d,%d,%.3f,%.4f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%.4f,", r->width, r->height,
            r->frames, r->distinct, r->checked, r->fps, r->seconds, r->p50_ms, r->p99_ms, r->max_ms, r->upload_ms,
            r->run_ms, r->fetch_ms, r->bound_fps, r->bound_fraction);
    sb_csv_put_field(fp, r->bound_by);
    put_num(fp, "%.6f", r->gpu_j);
    put_num(fp, "%.2f", r->gpu_idle_w);
    put_num(fp, "%.6f", r->cpu_j);
    put_num(fp, "%.2f", r->cpu_idle_w);
    fputc(',', fp);
    const char *tail[] = { r->energy_note, r->agreement, r->metric, r->commit, r->date, r->run_id };
    sb_csv_put_fields(fp, tail, 6);
    fprintf(fp, ",%.4f,", r->spread);
    sb_csv_put_field(fp, r->flags);
    fputc(',', fp);
    sb_csv_put_field(fp, r->runs);
    fputc(',', fp);
    sb_csv_put_field(fp, r->source);
    fprintf(fp, ",%.6f,%.3f,%.3f,", r->host_ms, r->copies_fps, r->kernels_fps);
    const char *work[] = { r->start, r->work_key };
    sb_csv_put_fields(fp, work, 2);
    fprintf(fp, ",%.3f\n", r->work_per_frame);
}

static double num_or_none(const char *s) { return *s ? atof(s) : -1; }

sb_status sb_stream_rows_read(const char *path, sb_stream_row **rows, int *count, sb_error *err)
{
    *rows = NULL;
    *count = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return errno == ENOENT ? SB_OK : sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0;
    int cap_rows = 0, line = 0;
    sb_status st = SB_OK;
    for (ssize_t len; (len = sb_csv_read_record(fp, &buf, &cap)) > 0;) {
        if (line++ == 0)
            continue;                              /* the header */
        char *f[STREAM_COLUMNS + 1];
        int nf = sb_csv_split(buf, f, STREAM_COLUMNS + 1);
        if (nf != STREAM_COLUMNS && nf != STREAM_COLUMNS_V5 && nf != STREAM_COLUMNS_V4 && nf != STREAM_COLUMNS_V3 &&
            nf != STREAM_COLUMNS_V2 && nf != STREAM_COLUMNS_V1)
            continue;                              /* not a row of this format */
        if (*count == cap_rows) {
            cap_rows = cap_rows ? 2 * cap_rows : 16;
            sb_stream_row *grown = realloc(*rows, (size_t)cap_rows * sizeof *grown);
            if (!grown) {
                st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
                break;
            }
            *rows = grown;
        }
        sb_stream_row *r = &(*rows)[(*count)++];
        memset(r, 0, sizeof *r);
        snprintf(r->algo, sizeof r->algo, "%s", f[0]);
        snprintf(r->stage, sizeof r->stage, "%s", f[1]);
        snprintf(r->variant, sizeof r->variant, "%s", f[2]);
        snprintf(r->backend, sizeof r->backend, "%s", f[3]);
        r->threads = atoi(f[4]);
        r->in_flight = atoi(f[5]);
        snprintf(r->sequence, sizeof r->sequence, "%s", f[6]);
        r->width = atoi(f[7]);
        r->height = atoi(f[8]);
        r->frames = atoi(f[9]);
        r->distinct = atoi(f[10]);
        r->checked = atoi(f[11]);
        r->fps = atof(f[12]);
        r->seconds = atof(f[13]);
        r->p50_ms = atof(f[14]);
        r->p99_ms = atof(f[15]);
        r->max_ms = atof(f[16]);
        r->upload_ms = atof(f[17]);
        r->run_ms = atof(f[18]);
        r->fetch_ms = atof(f[19]);
        r->bound_fps = atof(f[20]);
        r->bound_fraction = atof(f[21]);
        snprintf(r->bound_by, sizeof r->bound_by, "%s", f[22]);
        r->gpu_j = num_or_none(f[23]);
        r->gpu_idle_w = num_or_none(f[24]);
        r->cpu_j = num_or_none(f[25]);
        r->cpu_idle_w = num_or_none(f[26]);
        snprintf(r->energy_note, sizeof r->energy_note, "%s", f[27]);
        snprintf(r->agreement, sizeof r->agreement, "%s", f[28]);
        snprintf(r->metric, sizeof r->metric, "%s", f[29]);
        snprintf(r->commit, sizeof r->commit, "%s", f[30]);
        snprintf(r->date, sizeof r->date, "%s", f[31]);
        snprintf(r->run_id, sizeof r->run_id, "%s", f[32]);
        if (nf >= STREAM_COLUMNS_V2) {
            r->spread = atof(f[33]);
            snprintf(r->flags, sizeof r->flags, "%s", f[34]);
        }
        if (nf >= STREAM_COLUMNS_V3)
            snprintf(r->runs, sizeof r->runs, "%s", f[35]);
        else if (!view_is_cpu_backend(r->backend))
            snprintf(r->runs, sizeof r->runs, "overlap");   /* the only way before the column */
        if (nf >= STREAM_COLUMNS_V4) {
            snprintf(r->source, sizeof r->source, "%s", f[36]);
            r->host_ms = atof(f[37]);
        }
        if (nf >= STREAM_COLUMNS_V5) {
            r->copies_fps = atof(f[38]);
            r->kernels_fps = atof(f[39]);
        }
        if (nf == STREAM_COLUMNS) {
            snprintf(r->start, sizeof r->start, "%s", f[40]);
            snprintf(r->work_key, sizeof r->work_key, "%s", f[41]);
            r->work_per_frame = atof(f[42]);
        }
    }
    free(buf);
    fclose(fp);
    if (st) {
        free(*rows);
        *rows = NULL;
        *count = 0;
    }
    return st;
}

sb_status sb_stream_rows_write(const char *path, const sb_stream_row *rows, int n, sb_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);
    if (!mf)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    fprintf(mf, "%s\n", SB_STREAM_CSV_HEADER);
    for (int i = 0; i < n; i++)
        sb_stream_row_put_csv(mf, &rows[i]);
    fclose(mf);
    sb_status st = sb_atomic_write_text(path, text, err);
    free(text);
    return st;
}
