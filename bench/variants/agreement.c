/* agreement.c - comparing a variant's output with the reference's, part by
 * part, as the algorithm's layout declares (see agreement.h). */
#include "variants/agreement.h"

#include "variants/outputs.h"
#include "variants/partition.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The metric under construction: appended to, cut at its size. */
typedef struct metric_text {
    char *buf;
    size_t size, len;
} metric_text;

static void say(metric_text *t, const char *fmt, ...)
{
    if (t->len + 1 >= t->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len = t->len + (size_t)n < t->size ? t->len + (size_t)n : t->size - 1;
}

static const uint8_t *part_data(const void *out, const sb_out_part *p, int plane)
{
    const char *at = (const char *)out + p->at;
    return plane ? *(const uint8_t *const *)at : (const uint8_t *)at;
}

/* Element i read as each kind it may be: signed, unsigned, floating. */
typedef struct element {
    long long s;
    unsigned long long u;
    double d;
} element;

static element element_at(const sb_out_part *p, const uint8_t *data, size_t i)
{
    const uint8_t *e = data + i * p->size;
    element v = { 0, 0, 0.0 };
    switch (p->size) {
    case 1: v.s = (int8_t)e[0]; v.u = e[0]; break;
    case 2: { int16_t x; memcpy(&x, e, 2); v.s = x; v.u = (uint16_t)x; break; }
    case 4: { int32_t x; float f; memcpy(&x, e, 4); memcpy(&f, e, 4); v.s = x; v.u = (uint32_t)x; v.d = f; break; }
    case 8: { int64_t x; memcpy(&x, e, 8); memcpy(&v.d, e, 8); v.s = x; v.u = (uint64_t)x; break; }
    default: break;
    }
    return v;
}

/* Element i as text ("" for a record, whose bytes say nothing alone). */
static void value_text(char *buf, size_t size, const sb_out_part *p, const uint8_t *data, size_t i)
{
    element v = element_at(p, data, i);
    switch (p->elem) {
    case SB_ELEM_INT: snprintf(buf, size, "%lld", v.s); break;
    case SB_ELEM_UINT: snprintf(buf, size, "%llu", v.u); break;
    case SB_ELEM_FLOAT: snprintf(buf, size, p->size == 4 ? "%.9g" : "%.17g", v.d); break;
    default: buf[0] = '\0'; break;
    }
}

/* Two integer elements of any widths and signedness: the same number? */
static int same_integer(const sb_out_part *pw, const uint8_t *want, const sb_out_part *pg, const uint8_t *got,
                        size_t i)
{
    element w = element_at(pw, want, i), g = element_at(pg, got, i);
    int w_neg = pw->elem == SB_ELEM_INT && w.s < 0, g_neg = pg->elem == SB_ELEM_INT && g.s < 0;
    if (w_neg || g_neg)
        return w_neg && g_neg && w.s == g.s;
    return (pw->elem == SB_ELEM_INT ? (unsigned long long)w.s : w.u) ==
           (pg->elem == SB_ELEM_INT ? (unsigned long long)g.s : g.u);
}

static void where_text(char *buf, size_t size, const sb_out_part *p, size_t i)
{
    if (p->width > 0)
        snprintf(buf, size, "(%zu,%zu)", i % (size_t)p->width, i / (size_t)p->width);
    else
        snprintf(buf, size, "[%zu]", i);
}

static unsigned long long as_unsigned(const sb_out_part *p, const uint8_t *data, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, data + i * p->size, p->size < 8 ? p->size : 8);   /* little-endian hosts */
    return v;
}

/* What one part's comparison found. */
typedef struct part_result {
    size_t differ, overflow, first;
    int failed;
    char error[160];
} part_result;

/* A narrow variant's plane against the reference's wider one, by value. */
static part_result compare_values(const sb_out_part *pw, const uint8_t *want, const sb_out_part *pg,
                                  const uint8_t *got)
{
    part_result r = { 0, 0, 0, 0, "" };
    int integers = (pw->elem == SB_ELEM_INT || pw->elem == SB_ELEM_UINT) &&
                   (pg->elem == SB_ELEM_INT || pg->elem == SB_ELEM_UINT);
    if (!integers || pw->check != SB_CHECK_EXACT || pw->count != pg->count) {
        snprintf(r.error, sizeof r.error, "%zu elements of %zu bytes against %zu of %zu: the layouts do not match",
                 pg->count, pg->size, pw->count, pw->size);
        r.failed = 1;
        return r;
    }
    for (size_t i = 0; i < pw->count; i++)
        if (!same_integer(pw, want, pg, got, i) && r.differ++ == 0)
            r.first = i;
    r.failed = r.differ > 0;
    return r;
}

static part_result compare_part(const sb_out_part *p, const uint8_t *want, const sb_out_part *pg, const uint8_t *got,
                                unsigned flags)
{
    part_result r = { 0, 0, 0, 0, "" };
    if (p->check == SB_CHECK_REPORT)
        return r;
    if (pg->size != p->size || pg->elem != p->elem)
        return compare_values(p, want, pg, got);
    if (p->check == SB_CHECK_PARTITION) {
        long first = -1;
        sb_error err;
        long bad = sb_partition_diff((const int32_t *)want, (const int32_t *)got, (long)p->count, &first, &err);
        if (bad < 0) {
            snprintf(r.error, sizeof r.error, "%.150s", err.msg);
            r.failed = 1;
            return r;
        }
        r.differ = (size_t)bad;
        r.first = first >= 0 ? (size_t)first : 0;
        r.failed = bad > 0;
        return r;
    }
    int range = (p->flags & SB_PART_INT32_RANGE) && (flags & SB_INT32);
    for (size_t i = 0; i < p->count; i++) {
        int bad = memcmp(want + i * p->size, got + i * p->size, p->size) != 0;
        if (!bad && range && as_unsigned(p, want, i) > INT32_MAX) {
            bad = 1;
            r.overflow++;
        }
        if (bad && r.differ++ == 0)
            r.first = i;
    }
    r.failed = r.differ > 0;
    return r;
}

/* "A, B and C" from the items, one at a time. */
static void say_item(metric_text *t, int i, int n)
{
    say(t, "%s", i == 0 ? "" : i == n - 1 ? " and " : ", ");
}

static void say_equal(metric_text *t, const sb_out_layout *l, const sb_out_layout *lg, const void *want, int floor)
{
    int n = l->planes, k = 0;
    for (int i = 0; i < l->fields; i++)
        n += l->field[i].check != SB_CHECK_REPORT;
    say(t, "all ");
    for (int plane = 1; plane >= 0; plane--)
        for (int i = 0; i < (plane ? l->planes : l->fields); i++) {
            const sb_out_part *p = plane ? &l->plane[i] : &l->field[i];
            if (p->check == SB_CHECK_REPORT)
                continue;
            say_item(t, k++, n);
            if (p->count != 1 || plane) {
                say(t, "%zu %s%s", p->count, p->name, p->check == SB_CHECK_PARTITION ? " (as a partition)" : "");
                if (plane && lg->plane[i].size != p->size)
                    say(t, " (in %zu bits)", 8 * lg->plane[i].size);
            } else {
                char v[64];
                value_text(v, sizeof v, p, part_data(want, p, 0), 0);
                say(t, v[0] ? "%s (%s)" : "%s", p->name, v);
            }
        }
    say(t, " equal%s", floor ? " (the floor's own rule)" : "");
}

static void say_differ(metric_text *t, const sb_out_part *p, const part_result *r, const uint8_t *want,
                       const sb_out_part *pg, const uint8_t *got, int *said)
{
    char at[48], w[64], g[64];
    where_text(at, sizeof at, p, r->first);
    value_text(w, sizeof w, p, want, r->first);
    value_text(g, sizeof g, pg, got, r->first);
    say(t, "%s", (*said)++ ? "; " : "");
    if (r->error[0])
        say(t, "%s: could not compare: %s", p->name, r->error);
    else if (p->check == SB_CHECK_PARTITION)
        say(t, "partitions differ at %zu of %zu %s, first at %s: label %s, reference %s", r->differ, p->count, p->name,
            at, g, w);
    else if (p->count == 1)
        say(t, w[0] ? "%s %s != %s" : "%s differs", p->name, g, w);
    else {
        say(t, "%zu of %zu %s differ", r->differ, p->count, p->name);
        if (r->overflow)
            say(t, ", %zu of them above INT32_MAX (the int32 output overflows)", r->overflow);
        say(t, w[0] ? ", first at %s: %s != %s" : ", first at %s", at, g, w);
    }
}

/* The parts the check only shows: "; rounds 419, global relabels 14". */
static void say_reported(metric_text *t, const sb_out_layout *l, const void *got)
{
    int k = 0;
    for (int i = 0; i < l->fields; i++) {
        const sb_out_part *p = &l->field[i];
        char v[64];
        if (p->check != SB_CHECK_REPORT || p->count != 1)
            continue;
        value_text(v, sizeof v, p, part_data(got, p, 0), 0);
        if (v[0])
            say(t, "%s%s %s", k++ ? ", " : "; ", p->name, v);
    }
}

/* A struct with the layout's planes, for the floor's expected output. */
static void *expected_alloc(const sb_algo *algo, const sb_out_layout *l, const void *shape)
{
    char *e = malloc(algo->output_size);
    if (!e)
        return NULL;
    memcpy(e, shape, algo->output_size);
    for (int i = 0; i < l->planes; i++) {
        const sb_out_part *p = &l->plane[i];
        void *plane = calloc(p->count ? p->count : 1, p->size);
        memcpy(e + p->at, &plane, sizeof plane);
    }
    return e;
}

static void expected_free(const sb_out_layout *l, void *e)
{
    if (!e)
        return;
    for (int i = 0; i < l->planes; i++)
        free(*(void **)((char *)e + l->plane[i].at));
    free(e);
}

void sb_output_check(const sb_algo *algo, const sb_image *in, const void *params, const void *ref, const void *got,
                     unsigned variant_flags, sb_agreement *ag)
{
    metric_text t = { ag->metric, sizeof ag->metric, 0 };
    ag->metric[0] = '\0';
    ag->ok = 0;
    snprintf(ag->verdict, sizeof ag->verdict, "FAIL");

    /* the layouts for this image and these parameters, made in scratch
     * structs: the reference's, and the variant's (a narrow one's own) */
    sb_out_layout l, lg;
    memset(&l, 0, sizeof l);
    void *shape = calloc(1, algo->output_size);
    sb_error err;
    int made = shape && algo->output_layout(shape, in, params, &l, &err) == SB_OK;
    lg = l;
    sb_layout_fn *got_layout = sb_output_layout_for(algo, variant_flags);
    if (made && got_layout != algo->output_layout) {
        void *narrow_shape = calloc(1, algo->output_size);
        memset(&lg, 0, sizeof lg);
        made = narrow_shape && got_layout(narrow_shape, in, params, &lg, &err) == SB_OK;
        if (!narrow_shape)
            snprintf(err.msg, sizeof err.msg, "out of memory");
        free(narrow_shape);
    }
    if (made && (lg.planes != l.planes || lg.fields != l.fields)) {
        snprintf(err.msg, sizeof err.msg, "%s's narrow layout has other parts than its own", algo->name);
        made = 0;
    }
    if (!made) {
        say(&t, "could not compare: %.200s", shape ? err.msg : "out of memory");
        free(shape);
        return;
    }
    int floor = (variant_flags & SB_FLOOR) && algo->floor_output;
    void *expected = NULL;
    if (floor) {
        if (!(expected = expected_alloc(algo, &l, shape))) {
            say(&t, "could not compare: out of memory");
            free(shape);
            return;
        }
        algo->floor_output(in, params, expected);
    }
    const void *want = floor ? expected : ref;

    int said = 0;
    for (int plane = 1; plane >= 0; plane--)
        for (int i = 0; i < (plane ? l.planes : l.fields); i++) {
            const sb_out_part *p = plane ? &l.plane[i] : &l.field[i], *pg = plane ? &lg.plane[i] : &lg.field[i];
            const uint8_t *w = part_data(want, p, plane), *g = part_data(got, pg, plane);
            part_result r = compare_part(p, w, pg, g, variant_flags);
            if (r.failed)
                say_differ(&t, p, &r, w, pg, g, &said);
        }
    ag->ok = said == 0;
    if (ag->ok) {
        snprintf(ag->verdict, sizeof ag->verdict, "exact");
        say_equal(&t, &l, &lg, want, floor);
    }
    say_reported(&t, &l, got);
    expected_free(&l, expected);
    free(shape);
}
