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
 * nothing but the pointer.
 */
#ifndef SEGBENCH_OUTPUTS_H
#define SEGBENCH_OUTPUTS_H

#include "algo.h"

/* output_layout's helpers: a plane of `bytes` at the pointer member
 * `at` (offsetof), a result field of `bytes` at `at`. */
void sb_out_plane(sb_out_layout *l, size_t at, size_t bytes);
void sb_out_field(sb_out_layout *l, size_t at, size_t bytes);

sb_status sb_output_alloc(const sb_algo *algo, void **out, const sb_image *in, const void *params, sb_error *err);
void sb_output_poison(void *out);
void sb_output_free(void *out);     /* NULL: nothing */

#endif
