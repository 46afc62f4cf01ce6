/* outputs.c - output structs from their layouts (see outputs.h). */
#include "variants/outputs.h"

#include "segbench/device.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The layout sits in front of the struct, padded so the struct keeps the
 * strictest alignment. */
enum { HEADER = (sizeof(sb_out_layout) + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * _Alignof(max_align_t) };

static sb_out_layout *layout_of(void *out) { return (sb_out_layout *)((char *)out - HEADER); }
static void **plane_ptr(void *out, const sb_out_part *p) { return (void **)((char *)out + p->at); }

static size_t bytes_of(const sb_out_part *p) { return p->span; }

void sb_out_plane(sb_out_layout *l, size_t at, const char *name, sb_elem elem, size_t size, size_t count, int width)
{
    if (l->planes < SB_OUT_PARTS) {
        l->last = &l->plane[l->planes++];
        *l->last = (sb_out_part){ at, size, count, size * count, elem, name, SB_CHECK_EXACT, width, 0, NULL };
    }
}

void sb_out_field(sb_out_layout *l, size_t at, size_t span, const char *name, sb_elem elem, size_t size,
                  size_t count)
{
    if (l->fields < SB_OUT_PARTS) {
        l->last = &l->field[l->fields++];
        *l->last = (sb_out_part){ at, size, count, span, elem, name, SB_CHECK_EXACT, 0, 0, NULL };
    }
}

void sb_out_check(sb_out_layout *l, sb_part_check check, unsigned flags)
{
    if (l->last) {
        l->last->check = check;
        l->last->flags = flags;
    }
}

void sb_out_work(sb_out_layout *l, const char *key)
{
    if (l->last && l->last->count == 1 && (l->last->elem == SB_ELEM_INT || l->last->elem == SB_ELEM_UINT))
        l->last->work = key;
}

const sb_out_layout *sb_output_layout(const void *out) { return layout_of((void *)out); }

/* An integer field's one element, of 1, 2, 4 or 8 bytes. */
static long long field_integer(const void *out, const sb_out_part *p)
{
    const unsigned char *at = (const unsigned char *)out + p->at;
    int sign = p->elem == SB_ELEM_INT;
    switch (p->size) {
    case 1: { uint8_t v; memcpy(&v, at, 1); return sign ? (int8_t)v : v; }
    case 2: { uint16_t v; memcpy(&v, at, 2); return sign ? (int16_t)v : v; }
    case 4: { uint32_t v; memcpy(&v, at, 4); return sign ? (int32_t)v : (long long)v; }
    default: { uint64_t v; memcpy(&v, at, 8); return (long long)v; }
    }
}

void sb_output_work(const void *out, sb_work *w)
{
    const sb_out_layout *l = layout_of((void *)out);
    w->n = 0;
    for (int i = 0; i < l->fields && w->n < SB_WORK_MAX; i++)
        if (l->field[i].work) {
            w->key[w->n] = l->field[i].work;
            w->value[w->n++] = field_integer(out, &l->field[i]);
        }
}

sb_layout_fn *sb_output_layout_for(const sb_algo *algo, unsigned variant_flags)
{
    return (variant_flags & SB_NARROW) && algo->narrow_layout ? algo->narrow_layout : algo->output_layout;
}

sb_status sb_output_alloc(const sb_algo *algo, void **out, const sb_image *in, const void *params, sb_error *err)
{
    return sb_output_alloc_for(algo, 0, out, in, params, err);
}

sb_status sb_output_alloc_for(const sb_algo *algo, unsigned variant_flags, void **out, const sb_image *in,
                              const void *params, sb_error *err)
{
    *out = NULL;
    char *block = calloc(1, HEADER + algo->output_size);
    if (!block)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for the output", algo->name);
    void *o = block + HEADER;
    sb_out_layout *l = layout_of(o);
    sb_status st = sb_output_layout_for(algo, variant_flags)(o, in, params, l, err);
    for (int i = 0; !st && i < l->planes; i++)
        if (!(*plane_ptr(o, &l->plane[i]) = sb_host_alloc(bytes_of(&l->plane[i]) ? bytes_of(&l->plane[i]) : 1)))
            st = sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for a %dx%d image's output", algo->name, in->width,
                         in->height);
    if (st) {
        sb_output_free(o);
        return st;
    }
    *out = o;
    return SB_OK;
}

void sb_output_poison(void *out)
{
    const sb_out_layout *l = layout_of(out);
    for (int i = 0; i < l->planes; i++)
        memset(*plane_ptr(out, &l->plane[i]), 0xA5, bytes_of(&l->plane[i]));
    for (int i = 0; i < l->fields; i++)
        memset((char *)out + l->field[i].at, 0xA5, bytes_of(&l->field[i]));
}

void sb_output_free(void *out)
{
    if (!out)
        return;
    sb_out_layout *l = layout_of(out);
    for (int i = 0; i < l->planes; i++)
        sb_host_free(*plane_ptr(out, &l->plane[i]));
    free(l);
}

void sb_work_text(const sb_work *lo, const sb_work *hi, char *out, size_t size)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < lo->n && i < hi->n && at < size; i++) {
        int k = lo->value[i] == hi->value[i]
                    ? snprintf(out + at, size - at, "%s%s %lld", i ? ", " : "", lo->key[i], lo->value[i])
                    : snprintf(out + at, size - at, "%s%s %lld..%lld", i ? ", " : "", lo->key[i], lo->value[i],
                               hi->value[i]);
        at += k > 0 ? (size_t)k : 0;
    }
}

int sb_work_text_varies(const char *text) { return text && strstr(text, "..") != NULL; }
