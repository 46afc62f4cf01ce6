/* grow.h - room in a growing array: the one way bench/ grows its lists of
 * rows, lines and floors. */
#ifndef SEGBENCH_GROW_H
#define SEGBENCH_GROW_H

#include <stddef.h>

/* The array with room for `need` elements of `elem` bytes: itself when
 * *cap is enough, else moved to a capacity doubled from 64 until it is
 * (*cap updated).  NULL when out of memory, the array and *cap as they
 * were. */
void *sb_grow(void *array, int *cap, int need, size_t elem);

#endif
