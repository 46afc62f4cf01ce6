/* union_find.h - the host union-find that regions.c (SLIC's connectivity)
 * and ccl.c (mean-shift's flood and merge) share.  Unions keep the
 * smaller root, so a set's root is its smallest index whatever the order
 * of the unions. */
#ifndef SEGBENCH_UNION_FIND_H
#define SEGBENCH_UNION_FIND_H

#include <stdint.h>

static inline int32_t sb_uf_find(int32_t *parent, int32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];   /* path halving */
        i = parent[i];
    }
    return i;
}

static inline void sb_uf_unite(int32_t *parent, int32_t a, int32_t b)
{
    a = sb_uf_find(parent, a);
    b = sb_uf_find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

/* Read-only find, for phases where other threads read the same links. */
static inline int32_t sb_uf_find_const(const int32_t *parent, int32_t i)
{
    while (parent[i] != i)
        i = parent[i];
    return i;
}

#endif
