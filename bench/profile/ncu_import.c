/* ncu_import.c - ncu's raw CSV into <algo>.profile.csv (ncu_import.h). */
#include "profile/ncu_import.h"

#include "base/files.h"

#include "base/csv.h"
#include "variants/registry.h"
#include "machine/env.h"
#include "io/env_json.h"

#include "segbench/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const SB_PROFILE_CSV_HEADER =
    "algo,stage,variant,threads,image,kernel,launches,duration_ms,dram_read_bytes,dram_write_bytes,dram_gbps,"
    "dram_pct_of_copy,l2_pct,issue_pct,achieved_occupancy_pct,warp_instructions,sm_mhz,issue_floor_ms,top_stall,"
    "top_stall_pct,commit,run_id,code_id";

enum { MAX_REGIONS = 1024, MAX_KERNELS = 4096, MAX_STALLS = 32, MAX_COLS = 2048 };

typedef struct region {
    char algo[32], stage[32], variant[48], image[128];
    int threads;
} region;

/* One kernel's launches in one region, summed. */
typedef struct kernel_sum {
    int region;
    char name[128];
    int launches;
    double ns, read, write, insts;
    double l2_ns, issue_ns, occ_ns, hz_ns;       /* percentages and clock, times ns */
    double stall_ns[MAX_STALLS];                 /* stall ratios, times ns */
} kernel_sum;

typedef struct ncu_columns {
    int name, grid, ns, read, write, insts, l2, issue, occ, hz;
    int nstalls;
    int stall[MAX_STALLS];
    char stall_name[MAX_STALLS][48];
    double scale[MAX_COLS];                      /* unit -> base */
} ncu_columns;

static sb_status read_regions(const char *path, region *r, int *n, sb_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    char line[SB_PATH_MAX];
    *n = 0;
    int lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        if (lineno++ == 0)
            continue;
        region *g = &r[*n];
        int index;
        if (*n == MAX_REGIONS ||
            sscanf(line, "%d\t%31[^\t]\t%31[^\t]\t%47[^\t]\t%d\t%127[^\t]", &index, g->algo, g->stage, g->variant,
                   &g->threads, g->image) != 6 || index != *n) {
            fclose(fp);
            return sb_fail(err, SB_ERR_FORMAT, "%s: line %d is not a region of segbench profile --regions", path,
                           lineno);
        }
        (*n)++;
    }
    fclose(fp);
    return SB_OK;
}

/* A unit of ncu's units row as a factor to base units (ns, bytes, Hz). */
static double unit_scale(const char *unit)
{
    static const struct {
        const char *unit;
        double scale;
    } UNITS[] = {
        { "ns", 1 },              { "us", 1e3 },           { "ms", 1e6 },          { "s", 1e9 },
        { "nsecond", 1 },         { "usecond", 1e3 },      { "msecond", 1e6 },     { "second", 1e9 },
        { "byte", 1 },            { "Kbyte", 1e3 },        { "Mbyte", 1e6 },       { "Gbyte", 1e9 },
        { "cycle/second", 1 },    { "cycle/usecond", 1e6 }, { "cycle/nsecond", 1e9 }, { "hz", 1 },
        { "Khz", 1e3 },           { "Mhz", 1e6 },          { "Ghz", 1e9 },         { "inst", 1 },
        { "Kinst", 1e3 },         { "Minst", 1e6 },        { "Ginst", 1e9 },
    };
    for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++)
        if (strcmp(unit, UNITS[i].unit) == 0)
            return UNITS[i].scale;
    return 1.0;
}

static int find_col(char **f, int n, const char *const *names)
{
    for (const char *const *name = names; *name; name++)
        for (int i = 0; i < n; i++)
            if (strcmp(f[i], *name) == 0)
                return i;
    return -1;
}

static void find_columns(char **f, int n, ncu_columns *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < MAX_COLS; i++)
        c->scale[i] = 1.0;                       /* until the units row says otherwise */
    c->name = find_col(f, n, (const char *const[]){ "Kernel Name", NULL });
    c->grid = find_col(f, n, (const char *const[]){ "Grid Size", NULL });
    c->ns = find_col(f, n, (const char *const[]){ "gpu__time_duration.sum", NULL });
    c->read = find_col(f, n, (const char *const[]){ "dram__bytes_read.sum", NULL });
    c->write = find_col(f, n, (const char *const[]){ "dram__bytes_write.sum", NULL });
    c->insts = find_col(f, n, (const char *const[]){ "smsp__inst_executed.sum", "sm__inst_executed.sum", NULL });
    c->l2 = find_col(f, n, (const char *const[]){ "lts__throughput.avg.pct_of_peak_sustained_elapsed", NULL });
    c->issue = find_col(f, n, (const char *const[]){ "sm__inst_issued.avg.pct_of_peak_sustained_elapsed",
                                                     "sm__inst_executed.avg.pct_of_peak_sustained_elapsed", NULL });
    c->occ = find_col(f, n, (const char *const[]){ "sm__warps_active.avg.pct_of_peak_sustained_active", NULL });
    c->hz = find_col(f, n, (const char *const[]){ "sm__cycles_elapsed.avg.per_second",
                                                  "smsp__cycles_elapsed.avg.per_second", NULL });
    static const char PRE[] = "smsp__average_warps_issue_stalled_", POST[] = "_per_issue_active.ratio";
    for (int i = 0; i < n && c->nstalls < MAX_STALLS; i++) {
        size_t len = strlen(f[i]);
        if (strncmp(f[i], PRE, sizeof PRE - 1) || len <= sizeof PRE + sizeof POST - 2 ||
            strcmp(f[i] + len - (sizeof POST - 1), POST))
            continue;
        int k = c->nstalls;
        snprintf(c->stall_name[k], sizeof c->stall_name[k], "%.*s", (int)(len - (sizeof PRE - 1) - (sizeof POST - 1)),
                 f[i] + sizeof PRE - 1);
        if (strcmp(c->stall_name[k], "selected") == 0)     /* issuing, not waiting */
            continue;
        c->stall[c->nstalls++] = i;
    }
}

/* A number as ncu prints it ("1,234.5", "n/a"): 0 when not one. */
static double number(char **f, int nf, int col, const ncu_columns *c)
{
    if (col < 0 || col >= nf)
        return 0.0;
    char digits[64];
    size_t n = 0;
    for (const char *p = f[col]; *p && n < sizeof digits - 1; p++)
        if (*p != ',')
            digits[n++] = *p;
    digits[n] = '\0';
    char *end;
    double v = strtod(digits, &end);
    return end == digits || !isfinite(v) ? 0.0 : v * (col < MAX_COLS ? c->scale[col] : 1.0);
}

/* "void slic_assign<(int)3>(const float *, int)" -> "void slic_assign<(int)3>" */
static void short_name(const char *name, char *out, size_t size)
{
    int depth = 0;
    size_t i = 0;
    for (; name[i]; i++) {
        if (name[i] == '<')
            depth++;
        else if (name[i] == '>')
            depth--;
        else if (name[i] == '(' && depth == 0 && i > 0)
            break;
    }
    snprintf(out, size, "%.*s", (int)i, name);
}

static kernel_sum *kernel_at(kernel_sum *k, int *nk, int region, const char *name)
{
    for (int i = *nk - 1; i >= 0 && k[i].region == region; i--)
        if (strcmp(k[i].name, name) == 0)
            return &k[i];
    if (*nk == MAX_KERNELS)
        return NULL;
    kernel_sum *s = &k[(*nk)++];
    memset(s, 0, sizeof *s);
    s->region = region;
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

/* Read ncu's CSV into per-kernel sums; *markers counts the regions seen. */
static sb_status read_ncu(const char *path, int nregions, kernel_sum *k, int *nk, ncu_columns *c, int *markers,
                          sb_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    char *line = NULL, *f[MAX_COLS];
    size_t cap = 0;
    int header = 0, units = 0, region = -1;
    sb_status st = SB_OK;
    *nk = 0;
    *markers = 0;
    while (!st && sb_csv_read_record(fp, &line, &cap) > 0) {
        if (line[0] != '"')                     /* ==PROF== lines, warnings, blank lines */
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        int nf = sb_csv_split(line, f, MAX_COLS);
        if (!header) {
            if (nf > 1 && strcmp(f[0], "ID") == 0) {
                find_columns(f, nf, c);
                header = 1;
            }
            continue;
        }
        if (!units && f[0][0] == '\0') {        /* the units row */
            for (int i = 0; i < nf && i < MAX_COLS; i++)
                c->scale[i] = unit_scale(f[i]);
            units = 1;
            continue;
        }
        if (c->name < 0 || c->name >= nf)
            continue;
        if (strstr(f[c->name], "sb_profile_marker")) {
            int blocks = 0;
            if (c->grid >= 0 && c->grid < nf)
                sscanf(f[c->grid], " (%d", &blocks);
            region = blocks - 1;
            if (region < 0)
                st = sb_fail(err, SB_ERR_FORMAT, "%s: a marker names region %d", path, region);
            if (region >= nregions)        /* a region the run never finished (and logged) */
                break;
            (*markers)++;
            continue;
        }
        if (region < 0)
            continue;
        char name[128];
        short_name(f[c->name], name, sizeof name);
        kernel_sum *s = kernel_at(k, nk, region, name);
        if (!s) {
            st = sb_fail(err, SB_ERR_LIMIT, "%s: more than %d kernels", path, MAX_KERNELS);
            break;
        }
        double ns = number(f, nf, c->ns, c);
        s->launches++;
        s->ns += ns;
        s->read += number(f, nf, c->read, c);
        s->write += number(f, nf, c->write, c);
        s->insts += number(f, nf, c->insts, c);
        s->l2_ns += ns * number(f, nf, c->l2, c);
        s->issue_ns += ns * number(f, nf, c->issue, c);
        s->occ_ns += ns * number(f, nf, c->occ, c);
        s->hz_ns += ns * number(f, nf, c->hz, c);
        for (int i = 0; i < c->nstalls; i++)
            s->stall_ns[i] += ns * number(f, nf, c->stall[i], c);
    }
    free(line);
    fclose(fp);
    if (!st && !header)
        st = sb_fail(err, SB_ERR_FORMAT, "%s: no ncu CSV table (run ncu with --csv --page raw)", path);
    if (!st && c->ns < 0)
        st = sb_fail(err, SB_ERR_FORMAT, "%s: ncu's table has no gpu__time_duration.sum column", path);
    return st;
}

typedef struct profile_env {
    char commit[64], run_id[48];
    int sm_count;
    double copy_gbps;
} profile_env;

static void put_line(FILE *fp, const region *g, const char *kernel, const kernel_sum *s, const ncu_columns *c,
                     const profile_env *e)
{
    double ns = s->ns > 0 ? s->ns : 1.0, gbps = (s->read + s->write) / ns, hz = s->hz_ns / ns;
    double floor_ms = e->sm_count > 0 && hz > 0 ? s->insts / (4.0 * e->sm_count * hz) * 1e3 : 0.0;
    int top = -1;
    double stalls = 0.0;
    for (int i = 0; i < c->nstalls; i++) {
        stalls += s->stall_ns[i];
        if (top < 0 || s->stall_ns[i] > s->stall_ns[top])
            top = i;
    }
    sb_csv_put_fields(fp, (const char *const[]){ g->algo, g->stage, g->variant }, 3);
    fprintf(fp, ",%d,", g->threads);
    sb_csv_put_fields(fp, (const char *const[]){ g->image, kernel }, 2);
    fprintf(fp, ",%d,%.6f,%.0f,%.0f,%.2f,%.4f,%.2f,%.2f,%.2f,%.0f,%.0f,%.6f,", s->launches, s->ns * 1e-6, s->read,
            s->write, gbps, e->copy_gbps > 0 ? gbps / e->copy_gbps : 0.0, s->l2_ns / ns, s->issue_ns / ns,
            s->occ_ns / ns, s->insts, hz * 1e-6, floor_ms);
    sb_csv_put_field(fp, top >= 0 && s->stall_ns[top] > 0 ? c->stall_name[top] : "");
    fprintf(fp, ",%.1f,", top >= 0 && stalls > 0 ? 100.0 * s->stall_ns[top] / stalls : 0.0);
    const char *code_id = sb_variant_code_id(sb_variant_find(g->algo, g->variant));   /* what ran under ncu */
    sb_csv_put_fields(fp, (const char *const[]){ e->commit, e->run_id, code_id }, 3);
    fputc('\n', fp);
}

static void add_into(kernel_sum *all, const kernel_sum *s, int nstalls)
{
    all->launches += s->launches;
    all->ns += s->ns;
    all->read += s->read;
    all->write += s->write;
    all->insts += s->insts;
    all->l2_ns += s->l2_ns;
    all->issue_ns += s->issue_ns;
    all->occ_ns += s->occ_ns;
    all->hz_ns += s->hz_ns;
    for (int i = 0; i < nstalls; i++)
        all->stall_ns[i] += s->stall_ns[i];
}

static sb_status write_algo(const char *results_dir, const char *algo, const region *g, int ng, const kernel_sum *k,
                            int nk, const ncu_columns *c, const profile_env *e, sb_error *err)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%.1000s/%.60s.profile.csv", results_dir, algo);
    sb_atomic_file af;
    sb_status st = sb_atomic_open(&af, path, err);
    if (st)
        return st;
    fprintf(af.fp, "%s\n", SB_PROFILE_CSV_HEADER);
    for (int r = 0; r < ng; r++) {
        if (strcmp(g[r].algo, algo))
            continue;
        kernel_sum all;
        memset(&all, 0, sizeof all);
        for (int i = 0; i < nk; i++)
            if (k[i].region == r) {
                put_line(af.fp, &g[r], k[i].name, &k[i], c, e);
                add_into(&all, &k[i], c->nstalls);
            }
        put_line(af.fp, &g[r], "(all)", &all, c, e);
    }
    return sb_atomic_commit(&af, err);
}

/* The import's tables: too large for a stack. */
typedef struct import_tables {
    region g[MAX_REGIONS];
    kernel_sum k[MAX_KERNELS];
    ncu_columns c;
} import_tables;

static sb_status ncu_import_with(import_tables *t, const char *ncu_csv, const char *regions, const char *results_dir,
                                 sb_error *err)
{
    region *g = t->g;
    kernel_sum *k = t->k;
    ncu_columns *c = &t->c;
    int ng = 0, nk = 0, markers = 0;
    sb_status st = read_regions(regions, g, &ng, err);
    if (!st)
        st = read_ncu(ncu_csv, ng, k, &nk, c, &markers, err);
    if (st)
        return st;
    if (markers == 0)
        return sb_fail(err, SB_ERR_FORMAT, "%s: no region marker (was ncu run with --profile-from-start off, on "
                       "segbench profile --regions %s?)", ncu_csv, regions);
    if (markers < ng) {            /* ncu was stopped: the last region it began may be cut short */
        fprintf(stderr, "warning: %s: ncu saw %d of the %d regions; the last it began is left out, as it may be "
                        "incomplete\n", ncu_csv, markers, ng);
        ng = markers - 1;
    }
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/env.json", results_dir);
    char *env = sb_read_text(path);
    if (!env)
        return sb_fail(err, SB_ERR_IO, "%s: cannot read (the result set the profile belongs to)", path);
    profile_env e;
    char num[32];
    /* the profile's own commit (the binary's: what ran under ncu), and the
     * timings' run it was made beside (the report says when their commits
     * differ) */
    snprintf(e.commit, sizeof e.commit, "%s", sb_env_build_commit());
    sb_json_get(env, "run_id", e.run_id, sizeof e.run_id);
    sb_json_get(env, "gpu_sm_count", num, sizeof num);
    e.sm_count = atoi(num);
    sb_json_get(env, "device_copy_gbps", num, sizeof num);
    e.copy_gbps = atof(num);
    free(env);
    for (int r = 0; r < ng && !st; r++) {
        int first = 1;
        for (int q = 0; q < r; q++)
            first &= strcmp(g[q].algo, g[r].algo) != 0;
        if (first) {
            st = write_algo(results_dir, g[r].algo, g, ng, k, nk, c, &e, err);
            if (!st)
                printf("wrote %s/%s.profile.csv\n", results_dir, g[r].algo);
        }
    }
    return st;
}

sb_status sb_ncu_import(const char *ncu_csv, const char *regions, const char *results_dir, sb_error *err)
{
    import_tables *t = calloc(1, sizeof *t);
    if (!t)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = ncu_import_with(t, ncu_csv, regions, results_dir, err);
    free(t);
    return st;
}
