/* union_find.cuh - the device union-find that SLIC's connectivity
 * (regions_device.cu) and mean-shift's flood and merge (meanshift/regions_*.cu)
 * share.  A union links the larger of two roots under the smaller with
 * atomicMin and retries until it sticks, so a set's root is its smallest
 * index whatever the order in which threads ran (Oliveira and Lotufo
 * 2010; Playne and Hawick 2018). */
#ifndef SEGBENCH_UNION_FIND_CUH
#define SEGBENCH_UNION_FIND_CUH

#include <cstdint>

/* Reads go past L1 (volatile): other threads relink roots with atomics.
 * The same code serves the links in shared and in global memory. */
static __device__ __forceinline__ int32_t rg_find(const int32_t *parent, int32_t i)
{
    const volatile int32_t *link = parent;
    int32_t p;
    while ((p = link[i]) != i)
        i = p;
    return i;
}

/* Join the sets of a and b, their roots found by find(parent, i): rg_find,
 * or a rung's own (one that compresses paths as it goes); the smaller
 * root wins (see above). */
template <class Find>
static __device__ __forceinline__ void rg_union_by(int32_t *parent, int32_t a, int32_t b, const Find &find)
{
    bool done;
    do {
        a = find(parent, a);
        b = find(parent, b);
        if (a < b) {
            int32_t old = atomicMin(&parent[b], a);
            done = old == b;
            b = old;
        } else if (b < a) {
            int32_t old = atomicMin(&parent[a], b);
            done = old == a;
            a = old;
        } else {
            done = true;
        }
    } while (!done);
}

/* Join the sets of a and b; the smaller root wins (see above). */
static __device__ __forceinline__ void rg_union(int32_t *parent, int32_t a, int32_t b)
{
    rg_union_by(parent, a, b, rg_find);
}

#endif
