/* outputs.h - the harness's one way to make, poison and free an
 * algorithm's output.
 *
 * An algorithm describes its output struct (sb_algo.output_size and
 * output_layout): the pointer members that hold per-pixel planes, with
 * their sizes for this image and these parameters, and the result fields
 * held in the struct itself (a pass count, a flow value, centres).  From
 * that the harness
 *   - allocates the struct and every plane (pinned host memory when a GPU
 *     is present, so transfers are honest);
 *   - poisons the planes and the result fields with 0xA5 bytes before a
 *     checked run, so an element a variant forgets to write cannot pass
 *     the agreement check (0xA5A5A5A5 is no count, index or flow any
 *     algorithm here produces);
 *   - frees them.
 * The layout is kept beside the struct, so freeing and poisoning need
 * nothing but the pointer.  The same description drives the agreement
 * check (agreement.h).
 */
#ifndef SEGBENCH_OUTPUTS_H
#define SEGBENCH_OUTPUTS_H

#include "variants/algo.h"

#include <stddef.h>

/* output_layout's helpers.  A plane: `count` elements of `size` bytes
 * for the pointer member at `at` (offsetof), over the image when width >
 * 0.  A field: the first `count` elements of `size` bytes of the member
 * of `span` bytes at `at` (all of it is poisoned).  Both are compared
 * exactly unless sb_out_check says otherwise for the part added last. */
void sb_out_plane(sb_out_layout *l, size_t at, const char *name, sb_elem elem, size_t size, size_t count, int width);
void sb_out_field(sb_out_layout *l, size_t at, size_t span, const char *name, sb_elem elem, size_t size,
                  size_t count);
void sb_out_check(sb_out_layout *l, sb_part_check check, unsigned flags);
/* The field added last (an integer, one element) counts the run's work:
 * passes made, a solver's rounds.  Where such a count can differ between
 * two runs, or two builds, their times are not of the same work, and a
 * comparison says so instead of "faster" (docs/measuring.md). */
void sb_out_work(sb_out_layout *l, const char *key);

/* The same for a member of struct T: its element size from the member. */
#define SB_OUT_PLANE(l, T, member, name, elem, count, width) \
    sb_out_plane(l, offsetof(T, member), name, elem, sizeof *((T *)0)->member, count, width)
#define SB_OUT_FIELD(l, T, member, name, elem) \
    sb_out_field(l, offsetof(T, member), sizeof((T *)0)->member, name, elem, sizeof((T *)0)->member, 1)
#define SB_OUT_ARRAY(l, T, member, name, elem, count) \
    sb_out_field(l, offsetof(T, member), sizeof((T *)0)->member, name, elem, sizeof((T *)0)->member[0], count)

sb_status sb_output_alloc(const sb_algo *algo, void **out, const sb_image *in, const void *params, sb_error *err);
/* The output a variant with these flags writes: the narrow layout for an
 * SB_NARROW variant of an algorithm that has one, else the same as above. */
sb_status sb_output_alloc_for(const sb_algo *algo, unsigned variant_flags, void **out, const sb_image *in,
                              const void *params, sb_error *err);
/* The layout function behind sb_output_alloc_for. */
sb_layout_fn *sb_output_layout_for(const sb_algo *algo, unsigned variant_flags);
void sb_output_poison(void *out);
void sb_output_free(void *out);     /* NULL: nothing */

/* The layout of `out` as sb_output_alloc made it. */
const sb_out_layout *sb_output_layout(const void *out);

/* The work counts an output holds now (sb_out_work), in layout order. */
enum { SB_WORK_MAX = 4 };
typedef struct sb_work {
    int n;
    const char *key[SB_WORK_MAX];      /* "passes", "rounds" */
    long long value[SB_WORK_MAX];
} sb_work;
void sb_output_work(const void *out, sb_work *w);
/* A row's work as text, from each count's least and most over its rounds:
 * "passes 13", "rounds 419, relabels 14"; a count that varied shows
 * both ends, "rounds 410..415" ("" when there are no counts). */
void sb_work_text(const sb_work *lo, const sb_work *hi, char *out, size_t size);
/* Does such a text say that the work varied between the row's rounds? */
int sb_work_text_varies(const char *text);

#endif
