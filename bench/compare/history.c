/* history.c - a machine's runs of record as series, and their steps
 * (history.h). */
#include "compare/history.h"

#include "base/grow.h"
#include "variants/registry.h"

#include "segbench/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- series from the snapshots ---- */

static int same_group(const sb_history_series *s, const char *algo, const char *stage, const char *image)
{
    return !strcmp(s->algo, algo) && !strcmp(s->stage, stage) && !strcmp(s->image, image);
}

static int is_row(const sb_history_series *s, const sb_row *r)
{
    return !s->best && s->threads == r->threads && !strcmp(s->variant, r->variant) &&
           same_group(s, r->algo, r->stage, r->image);
}

/* The series of row r (best: the fastest variant's of its group), made
 * when it is new; NULL when out of memory.  Rows of a CSV come in the
 * order they came last time: the search starts where the last one ended. */
static sb_history_series *series_of(sb_history *h, const sb_row *r, int best)
{
    for (int k = 0; k < h->ns; k++) {
        int i = (h->hint + k) % h->ns;
        sb_history_series *s = &h->s[i];
        if (best ? s->best && same_group(s, r->algo, r->stage, r->image) : is_row(s, r)) {
            h->hint = i + 1;
            return s;
        }
    }
    sb_history_series *grown = sb_grow(h->s, &h->s_cap, h->ns + 1, sizeof *h->s);
    if (!grown)
        return NULL;
    h->s = grown;
    sb_history_series *s = &h->s[h->ns++];
    memset(s, 0, sizeof *s);
    snprintf(s->algo, sizeof s->algo, "%s", r->algo);
    snprintf(s->stage, sizeof s->stage, "%s", r->stage);
    snprintf(s->image, sizeof s->image, "%s", r->image);
    s->width = r->width;
    s->height = r->height;
    s->best = best;
    if (!best) {
        snprintf(s->variant, sizeof s->variant, "%s", r->variant);
        snprintf(s->backend, sizeof s->backend, "%s", r->backend);
        s->threads = r->threads;
        const sb_variant *v = sb_variant_find(r->algo, r->variant);
        s->floor = v && (v->flags & SB_FLOOR);
    }
    return s;
}

/* A point for r at snapshot snap, unless the series' last point is this
 * very measurement (a set keeps the rows of algorithms it did not bench
 * again: the same run, the same numbers). */
static sb_status add_point(sb_history_series *s, int snap, const sb_history_point *p, sb_error *err)
{
    const sb_history_point *last = s->n ? &s->pt[s->n - 1] : NULL;
    if (last && !strcmp(last->run_id, p->run_id) && !strcmp(last->variant, p->variant) &&
        last->median == p->median)
        return SB_OK;
    sb_history_point *grown = sb_grow(s->pt, &s->cap, s->n + 1, sizeof *s->pt);
    if (!grown)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    s->pt = grown;
    s->pt[s->n] = *p;
    s->pt[s->n++].snap = snap;
    return SB_OK;
}

static void point_of(const sb_row *r, sb_history_point *p)
{
    memset(p, 0, sizeof *p);
    p->median = r->kernel.median;
    p->p25 = r->kernel.p25;
    p->p75 = r->kernel.p75;
    snprintf(p->variant, sizeof p->variant, "%s", r->variant);
    snprintf(p->backend, sizeof p->backend, "%s", r->backend);
    p->threads = r->threads;
    snprintf(p->run_id, sizeof p->run_id, "%s", r->run_id);
    snprintf(p->commit, sizeof p->commit, "%s", r->commit);
    snprintf(p->code_id, sizeof p->code_id, "%s", r->code_id);
}

/* A row worth a point: timed, and within its contract. */
static int timed(const sb_row *r) { return r->kernel.median > 0 && strcmp(r->agreement, "FAIL") != 0; }

/* The fastest present row of r's group now, as a point of the group's
 * fastest-variant series. */
static sb_status add_best(sb_history *h, const sb_row *r, sb_error *err)
{
    const sb_history_point *fastest = NULL;
    for (int i = 0; i < h->ns; i++) {
        const sb_history_series *s = &h->s[i];
        if (!s->best && !s->floor && s->present && s->n && same_group(s, r->algo, r->stage, r->image) &&
            (!fastest || s->pt[s->n - 1].median < fastest->median))
            fastest = &s->pt[s->n - 1];
    }
    if (!fastest)
        return SB_OK;
    sb_history_point p = *fastest;            /* copied: the series below may move the array */
    sb_history_series *b = series_of(h, r, 1);
    return b ? add_point(b, h->nsnap - 1, &p, err) : sb_fail(err, SB_ERR_NOMEM, "out of memory");
}

/* The rows of one algorithm's CSV at the newest snapshot. */
static sb_status take_csv(sb_history *h, const sb_history_csv *csv, sb_error *err)
{
    for (int i = 0; i < h->ns; i++)
        if (!strcmp(h->s[i].algo, csv->algo) && !h->s[i].best)
            h->s[i].present = 0;                   /* until this CSV says otherwise */
    sb_status st = SB_OK;
    for (int i = 0; i < csv->rows.count && !st; i++) {
        const sb_row *r = &csv->rows.row[i];
        if (!timed(r))
            continue;
        sb_history_series *s = series_of(h, r, 0);
        if (!s)
            return sb_fail(err, SB_ERR_NOMEM, "out of memory");
        s->present = 1;
        sb_history_point p;
        point_of(r, &p);
        st = add_point(s, h->nsnap - 1, &p, err);
    }
    /* each group's fastest, once a group: the first row of it in the file */
    for (int i = 0; i < csv->rows.count && !st; i++) {
        const sb_row *r = &csv->rows.row[i];
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = strcmp(csv->rows.row[j].stage, r->stage) || strcmp(csv->rows.row[j].image, r->image);
        if (first)
            st = add_best(h, r, err);
    }
    return st;
}

static sb_status visit(void *ctx, const sb_history_snap *snap, const sb_history_csv *csv, int ncsv, sb_error *err)
{
    sb_history *h = ctx;
    sb_history_snap *grown = sb_grow(h->snap, &h->snap_cap, h->nsnap + 1, sizeof *h->snap);
    if (!grown)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    h->snap = grown;
    h->snap[h->nsnap++] = *snap;
    sb_status st = SB_OK;
    for (int i = 0; i < ncsv && !st; i++)
        st = take_csv(h, &csv[i], err);
    return st;
}

sb_status sb_history_from_git(sb_history *h, const char *results_root, const char *machine, int last,
                              sb_error *err)
{
    memset(h, 0, sizeof *h);
    return sb_history_walk_git(results_root, machine, last, visit, h, err);
}

sb_status sb_history_from_sets(sb_history *h, const char *const *dirs, int n, sb_error *err)
{
    memset(h, 0, sizeof *h);
    return sb_history_walk_sets(dirs, n, visit, h, err);
}

/* ---- steps ---- */

/* Is series s one of those judged and shown: the fastest variant's, or
 * the named variant's rows? */
static int shown(const sb_history_series *s, const char *variant)
{
    return variant ? !s->best && !strcmp(s->variant, variant) : s->best;
}

/* Why the code of a step changed, or did not: into st->why. */
static void cause_of(const sb_history *h, const sb_history_series *s, const sb_history_point *a,
                     const sb_history_point *b, sb_code_ids *ids, sb_history_step *st)
{
    if (strcmp(a->variant, b->variant) != 0) {
        st->cause = SB_STEP_CODE;
        snprintf(st->why, sizeof st->why, "the fastest is now %s (was %s)", b->variant, a->variant);
        return;
    }
    char ida[SB_CODE_ID_LEN + 1], idb[SB_CODE_ID_LEN + 1];
    snprintf(ida, sizeof ida, "%.*s", SB_CODE_ID_LEN, a->code_id);
    snprintf(idb, sizeof idb, "%.*s", SB_CODE_ID_LEN, b->code_id);
    /* two rows of one clean commit are one code, whatever ids they lack */
    int one_commit = (!ida[0] || !idb[0]) && !strcmp(a->commit, b->commit) && !strstr(a->commit, "-dirty") &&
                     strcmp(a->commit, "unknown") != 0;
    if (one_commit && ida[0])
        snprintf(idb, sizeof idb, "%s", ida);
    else if (one_commit)
        snprintf(ida, sizeof ida, "%s", idb);
    if (!ida[0] && ids)
        sb_code_id_at(ids, s->algo, a->variant, a->commit, ida);
    if (!idb[0] && ids)
        sb_code_id_at(ids, s->algo, b->variant, b->commit, idb);
    const sb_history_snap *sa = &h->snap[a->snap], *sb = &h->snap[b->snap];
    if (!one_commit && (!ida[0] || !idb[0])) {
        st->cause = SB_STEP_UNKNOWN;
        snprintf(st->why, sizeof st->why, "%s: its code's identity is not known at %.12s (a row older than code "
                 "ids whose file git no longer has there, or a tree with changes)", b->variant,
                 ida[0] ? b->commit : a->commit);
    } else if (!one_commit && strcmp(ida, idb) != 0) {
        st->cause = SB_STEP_CODE;
        snprintf(st->why, sizeof st->why, "%s: its code changed (id %s -> %s)", b->variant, ida, idb);
    } else {
        st->cause = SB_STEP_MACHINE;
        int gpu = strcmp(sa->run.gpu_uuid, sb->run.gpu_uuid) != 0, driver = strcmp(sa->driver, sb->driver) != 0;
        char same[64];
        snprintf(same, sizeof same, idb[0] ? "id %s" : "commit %.12s", idb[0] ? idb : b->commit);
        snprintf(st->why, sizeof st->why, "%s: the same code (%s), %s", b->variant, same,
                 gpu && driver ? "another GPU and driver" : gpu ? "another GPU of the machine's kind"
                 : driver ? "another driver" : "the same GPU and driver: the protocol or the machine's state");
    }
}

static sb_status add_step(sb_history *h, const sb_history_step *st, sb_error *err)
{
    sb_history_step *grown = sb_grow(h->step, &h->step_cap, h->nstep + 1, sizeof *h->step);
    if (!grown)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    h->step = grown;
    h->step[h->nstep++] = *st;
    return SB_OK;
}

/* A row's key as the floors look it up: the series' row, or the variant
 * of point p of a fastest-variant series. */
static void key_of(const sb_history_series *s, const sb_history_point *p, sb_row *key)
{
    memset(key, 0, sizeof *key);
    snprintf(key->algo, sizeof key->algo, "%s", s->algo);
    snprintf(key->stage, sizeof key->stage, "%s", s->stage);
    snprintf(key->variant, sizeof key->variant, "%s", p->variant);
    snprintf(key->backend, sizeof key->backend, "%s", p->backend);
    snprintf(key->image, sizeof key->image, "%s", s->image);
    key->threads = p->threads;
}

static int same_machine(const sb_history *h, const sb_history_point *a, const sb_history_point *b)
{
    return !strcmp(h->snap[a->snap].run.machine_id, h->snap[b->snap].run.machine_id);
}

/* A row's class for the history's floors: its noise class and the decade
 * of its time (a 4 us kernel moves by more between runs than a 4 ms one). */
static void class_of(const sb_row *key, double ms, char *out, size_t size)
{
    char cls[32];
    sb_floor_class_name(sb_floor_kind_of(key), key->threads, cls, sizeof cls);
    snprintf(out, size, "%s %s", cls, ms < 0.01 ? "<10 us" : ms < 0.1 ? "10-100 us" : ms < 1.0 ? "0.1-1 ms" : ">=1 ms");
}

/* A move between two runs of one row's same code, by its row's class. */
typedef struct class_move {
    char cls[48];
    double move;               /* |log ratio| */
} class_move;

static int by_class_move(const void *x, const void *y)
{
    const class_move *a = x, *b = y;
    int c = strcmp(a->cls, b->cls);
    return c ? c : (a->move > b->move) - (a->move < b->move);
}

/* The history's own floor of each class: the SB_HISTORY_QUANTILE of
 * |log ratio| between consecutive runs of one row whose code identities,
 * both recorded, agree -- what another lent GPU, another day and the same
 * code move a row by, which an A/A within one session cannot see. */
static sb_status own_floors(sb_history *h, sb_error *err)
{
    class_move *m = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < h->ns; i++) {
        const sb_history_series *s = &h->s[i];
        for (int k = 1; k < s->n && !s->best; k++) {
            const sb_history_point *a = &s->pt[k - 1], *b = &s->pt[k];
            if (!a->code_id[0] || strcmp(a->code_id, b->code_id) || !same_machine(h, a, b))
                continue;
            class_move *grown = sb_grow(m, &cap, n + 1, sizeof *m);
            if (!grown) {
                free(m);
                return sb_fail(err, SB_ERR_NOMEM, "out of memory");
            }
            m = grown;
            sb_row key;
            key_of(s, b, &key);
            class_of(&key, a->median, m[n].cls, sizeof m[n].cls);
            m[n++].move = fabs(log(b->median / a->median));
        }
    }
    if (n)
        qsort(m, (size_t)n, sizeof *m, by_class_move);
    h->nclass = 0;
    double *v = n ? malloc((size_t)n * sizeof *v) : NULL;
    for (int lo = 0, hi; lo < n && v; lo = hi) {
        for (hi = lo; hi < n && !strcmp(m[hi].cls, m[lo].cls); hi++)
            v[hi - lo] = m[hi].move;
        if (hi - lo < SB_HISTORY_MIN_MOVES || h->nclass == SB_HISTORY_CLASSES)
            continue;
        sb_history_class *hc = &h->cls[h->nclass++];
        snprintf(hc->name, sizeof hc->name, "%s", m[lo].cls);
        hc->floor = expm1(sb_quantile_sorted(v, hi - lo, SB_HISTORY_QUANTILE));
        hc->moves = hi - lo;
    }
    free(v);
    free(m);
    return n && !v ? sb_fail(err, SB_ERR_NOMEM, "out of memory") : SB_OK;
}

static double own_floor(const sb_history *h, const sb_row *key, double ms);

sb_status sb_history_own_floors(sb_history *h, sb_error *err) { return own_floors(h, err); }

double sb_history_floor_for(const sb_history *h, const sb_row *row, double ms) { return own_floor(h, row, ms); }

static double own_floor(const sb_history *h, const sb_row *key, double ms)
{
    char cls[48];
    class_of(key, ms, cls, sizeof cls);
    for (int j = 0; j < h->nclass; j++)
        if (!strcmp(h->cls[j].name, cls))
            return h->cls[j].floor;
    return 0.0;
}

/* The points of a series from `from` on (dir 1) or back (dir -1), up
 * to SB_HISTORY_WINDOW of the machine of point `from`: their least and
 * most times. */
static void window(const sb_history *h, const sb_history_series *s, int from, int dir, double *least, double *most)
{
    *least = *most = s->pt[from].median;
    for (int k = from, n = 0; k >= 0 && k < s->n && n < SB_HISTORY_WINDOW && same_machine(h, &s->pt[from], &s->pt[k]);
         k += dir, n++) {
        *least = fmin(*least, s->pt[k].median);
        *most = fmax(*most, s->pt[k].median);
    }
}

/* Is the move into point k of s a step?  Beyond the floor from one run
 * to the next, with their quartiles apart.  Where the code did not
 * change, it must hold too: every run of a few before it beyond the
 * floor from every run of a few after it -- a run that strays and comes
 * back is the machine's weather, not a step.  Where the code changed,
 * the two runs either side say it (a slowdown mended by the next commit
 * is one). */
static int is_step(const sb_history *h, const sb_history_series *s, int k, double floor, int code_changed)
{
    const sb_history_point *a = &s->pt[k - 1], *b = &s->pt[k];
    double f = 1.0 + floor;
    if (!(b->median > a->median * f || b->median * f < a->median) || !(b->p75 < a->p25 || b->p25 > a->p75))
        return 0;
    if (code_changed)
        return 1;
    double lo_before, hi_before, lo_after, hi_after;
    window(h, s, k - 1, -1, &lo_before, &hi_before);
    window(h, s, k, 1, &lo_after, &hi_after);
    return lo_after > hi_before * f || hi_after * f < lo_before;
}

sb_status sb_history_find_steps(sb_history *h, const char *variant, const sb_noise_floor *floors, sb_code_ids *ids,
                                sb_error *err)
{
    h->nstep = h->unjudged = 0;
    sb_status st = own_floors(h, err);
    for (int i = 0; i < h->ns && !st; i++) {
        const sb_history_series *s = &h->s[i];
        if (!shown(s, variant))
            continue;
        for (int k = 1; k < s->n && !st; k++) {
            const sb_history_point *a = &s->pt[k - 1], *b = &s->pt[k];
            if (!same_machine(h, a, b)) {
                h->unjudged++;                     /* two machines: no verdict */
                continue;
            }
            sb_row key;
            key_of(s, b, &key);
            sb_history_step step = { .series = i, .at = k, .ratio = b->median / a->median };
            step.floor = fmax(sb_floor_for_row(floors, &key), own_floor(h, &key, a->median));
            double f = 1.0 + step.floor;
            if (!(b->median > a->median * f || b->median * f < a->median))
                continue;                          /* within the floor: no step, no need of its cause */
            cause_of(h, s, a, b, ids, &step);
            if (is_step(h, s, k, step.floor, step.cause == SB_STEP_CODE))
                st = add_step(h, &step, err);
        }
    }
    return st;
}

/* Has series i a step? */
static int has_step(const sb_history *h, int series)
{
    for (int i = 0; i < h->nstep; i++)
        if (h->step[i].series == series)
            return 1;
    return 0;
}

const sb_history_step *sb_history_step_at(const sb_history *h, int series, int at)
{
    for (int i = 0; i < h->nstep; i++)
        if (h->step[i].series == series && h->step[i].at == at)
            return &h->step[i];
    return NULL;
}

void sb_history_free(sb_history *h)
{
    for (int i = 0; i < h->ns; i++)
        free(h->s[i].pt);
    free(h->s);
    free(h->snap);
    free(h->step);
    memset(h, 0, sizeof *h);
}

/* ---- on the terminal ---- */

const char *sb_history_span(const sb_history *h, char *out, size_t size)
{
    int commits = 0;
    for (int i = 0; i < h->nsnap; i++)
        commits += h->snap[i].commit[0] != '\0';
    if (!commits)
        snprintf(out, size, "%d result sets", h->nsnap);
    else
        snprintf(out, size, "%d commit%s%s", commits, commits == 1 ? "" : "s",
                 commits < h->nsnap ? " and the working tree" : "");
    return out;
}

static const char *cause_name(sb_step_cause c)
{
    return c == SB_STEP_CODE ? "code" : c == SB_STEP_MACHINE ? "machine" : "unknown";
}


static void print_series(const sb_history *h, int i, FILE *fp)
{
    const sb_history_series *s = &h->s[i];
    char label[200];
    if (s->best)
        snprintf(label, sizeof label, "  %s %dx%d", s->image, s->width, s->height);
    else
        snprintf(label, sizeof label, "  %s t%d %s %dx%d", s->variant, s->threads, s->image, s->width, s->height);
    const sb_history_point *a = &s->pt[0], *b = &s->pt[s->n - 1];
    fprintf(fp, "%-44s %5d %10.4f %10.4f %8.3f\n", label, s->n, a->median, b->median, b->median / a->median);
    for (int k = 1; k < s->n; k++) {
        const sb_history_step *st = sb_history_step_at(h, i, k);
        if (!st)
            continue;
        const sb_history_snap *at = &h->snap[s->pt[k].snap];
        fprintf(fp, "    %.10s %-12s %.4f -> %.4f ms  x%.3f (floor %.1f %%)  %s: %s\n", at->date, at->label,
                s->pt[k - 1].median, s->pt[k].median, st->ratio, 100.0 * st->floor, cause_name(st->cause), st->why);
    }
}

const char *sb_history_floors_words(const sb_history *h, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int j = 0; j < h->nclass && len < size; j++)
        len += (size_t)snprintf(out + len, size - len, "%s%s %.1f %% (%d moves)", j ? ", " : "", h->cls[j].name,
                                100.0 * h->cls[j].floor, h->cls[j].moves);
    if (!h->nclass)
        snprintf(out, size, "too few moves to tell");
    return out;
}

/* Its own floors in words, on the terminal. */
static void own_floors_line(const sb_history *h, FILE *fp)
{
    char words[1024];
    fprintf(fp, "between runs of the same code here (99th percentile): %s\n", sb_history_floors_words(h, words, sizeof words));
}

void sb_history_count(const sb_history *h, const char *variant, sb_history_tally *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < h->ns; i++) {
        if (!shown(&h->s[i], variant))
            continue;
        t->series++;
        int mine = 0;
        for (int k = 0; k < h->nstep; k++)
            if (h->step[k].series == i) {
                mine++;
                t->cause[h->step[k].cause]++;
            }
        t->steps += mine;
        t->stepped += mine > 0;
    }
}

const char *sb_history_tally_words(const sb_history_tally *t, char *out, size_t size)
{
    snprintf(out, size, "%d step%s in %d of %d series (code %d, machine %d, unknown %d)", t->steps,
             t->steps == 1 ? "" : "s", t->stepped, t->series, t->cause[SB_STEP_CODE], t->cause[SB_STEP_MACHINE],
             t->cause[SB_STEP_UNKNOWN]);
    return out;
}

/* The series of one (algorithm, stage) that print shows, those with a step. */
static void print_stage(const sb_history *h, const char *variant, int first, FILE *fp)
{
    const sb_history_series *f = &h->s[first];
    int header = 0;
    for (int i = first; i < h->ns; i++) {
        const sb_history_series *s = &h->s[i];
        if (!shown(s, variant) || strcmp(s->algo, f->algo) || strcmp(s->stage, f->stage) ||
            !has_step(h, i))
            continue;
        if (!header++)
            fprintf(fp, "%s, stage %s\n", s->algo, s->stage);
        print_series(h, i, fp);
    }
}

void sb_history_print(const sb_history *h, const char *variant, FILE *fp)
{
    if (!h->nsnap)
        return;
    own_floors_line(h, fp);
    char span[120];
    fprintf(fp, "%s, %.10s .. %.10s; each %s with a step:\n", sb_history_span(h, span, sizeof span),
            h->snap[0].date, h->snap[h->nsnap - 1].date,
            variant ? "row of that variant" : "stage and image's fastest variant");
    fprintf(fp, "%-44s %5s %10s %10s %8s\n", "", "runs", "first ms", "last ms", "last/1st");
    for (int i = 0; i < h->ns; i++) {
        int first = shown(&h->s[i], variant);
        for (int j = 0; j < i && first; j++)
            first = !(shown(&h->s[j], variant) && !strcmp(h->s[j].algo, h->s[i].algo) &&
                      !strcmp(h->s[j].stage, h->s[i].stage));
        if (first)
            print_stage(h, variant, i, fp);
    }
    sb_history_tally t;
    char words[160];
    sb_history_count(h, variant, &t);
    fprintf(fp, "\n%s", sb_history_tally_words(&t, words, sizeof words));
    if (h->unjudged)
        fprintf(fp, "; %d move%s between two machines' runs not judged (a verdict across machines is not one)",
                h->unjudged, h->unjudged == 1 ? "" : "s");
    fputs("\n", fp);
}
