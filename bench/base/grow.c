/* grow.c - room in a growing array (grow.h). */
#include "base/grow.h"

#include <stdlib.h>

void *sb_grow(void *array, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return array;
    int room = *cap > 0 ? *cap : 64;
    while (room < need)
        room *= 2;
    void *grown = realloc(array, (size_t)room * elem);
    if (grown)
        *cap = room;
    return grown;
}
