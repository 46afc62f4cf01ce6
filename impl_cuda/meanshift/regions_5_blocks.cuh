/* regions_5_blocks.cuh - what cuda-blocks (regions_5_blocks.cu) lends the
 * regions rungs after it: a thread a 2x2 block of pixels, the block's own
 * joins settled in registers and its representatives in the tile's
 * union-find (the device functions below, which cuda-roots' and
 * cuda-fused's tile kernels call too), and its components, kept by
 * cuda-rag and cuda-coop. */
#ifndef SEGBENCH_MS_REGIONS_5_BLOCKS_CUH
#define SEGBENCH_MS_REGIONS_5_BLOCKS_CUH

#include "regions_2_tiles.cuh"

#include "segbench/ccl.h"

#include "../regions/union_find.cuh"

enum { CCL_BLOCKS = CCL_TILE / 2 };

/* The offset of a, b, c or d (k = 0..3) from a in a tile's local indices. */
static __device__ __forceinline__ int block_at(int k) { return (k >> 1) * CCL_TILE + (k & 1); }

/* Each pixel's representative (an offset in block_at's terms) from the
 * block's inner joins: ab, ac, bd, cd.  Two sweeps reach every path of a
 * 2x2 block (the longest, a-c-d-b, has three edges). */
static __device__ __forceinline__ void block_components(const uint8_t j[4], int rep[4])
{
    bool ab = j[1] & SB_CCL_LEFT, cd = j[3] & SB_CCL_LEFT, ac = j[2] & SB_CCL_UP, bd = j[3] & SB_CCL_UP;
    for (int k = 0; k < 4; k++)
        rep[k] = block_at(k);
    for (int sweep = 0; sweep < 2; sweep++) {
        if (ab)
            rep[0] = rep[1] = min(rep[0], rep[1]);
        if (ac)
            rep[0] = rep[2] = min(rep[0], rep[2]);
        if (bd)
            rep[1] = rep[3] = min(rep[1], rep[3]);
        if (cd)
            rep[2] = rep[3] = min(rep[2], rep[3]);
    }
}

/* rg_find with path halving: each node on the way is linked to its
 * grandparent, so the trees of a tile stay shallow while its threads
 * union.  Only nodes that are no longer roots are written, with one of
 * their ancestors, and by atomicMin, as the unions write: a link only
 * ever moves to a smaller index, so every set stays whole. */
static __device__ __forceinline__ int32_t find_halving(int32_t *link, int32_t i)
{
    const volatile int32_t *l = link;
    int32_t p;
    while ((p = l[i]) != i) {
        int32_t g = l[p];
        if (g != p)
            atomicMin(&link[i], g);
        i = g;
    }
    return i;
}

/* rg_union over find_halving. */
static __device__ __forceinline__ void union_halving(int32_t *link, int32_t a, int32_t b)
{
    rg_union_by(link, a, b, find_halving);
}

/* The unions of a tile of 2x2 blocks, a block a thread (t: its a's local
 * index; j: its four pixels' joins, already in bits): each block's own
 * components, their representatives linked, then joined to the blocks
 * on the left and above; root[k] is pixel k's tile-local root.  Every
 * thread of the tile calls it. */
static __device__ __forceinline__ void block_tile_roots(int t, const uint8_t j[4], int32_t *link,
                                                        const uint8_t *bits, int root[4])
{
    int rep[4];
    block_components(j, rep);
    for (int k = 0; k < 4; k++)
        link[t + block_at(k)] = t + rep[k];
    __syncthreads();
    /* to the block on the left (its b and d) and the one above (its c and
     * d), skipping each join that a path of joins already made:
     *   c's left join, where c shares a's representative, a joins left
     *     and the left block's b and d are joined;
     *   a's up join, where a joins left, the left block's b joins up and
     *     the upper block's c joins left (the pixel rule of cuda-tiles);
     *   b's up join, where b shares a's representative, a joins up and
     *     the upper block's c and d are joined. */
    bool a_left = j[0] & SB_CCL_LEFT, a_up = j[0] & SB_CCL_UP;
    if (a_left)
        union_halving(link, t, t - 1);
    if ((j[2] & SB_CCL_LEFT) && !(a_left && rep[2] == 0 && (bits[t + CCL_TILE - 1] & SB_CCL_UP)))
        union_halving(link, t + CCL_TILE, t + CCL_TILE - 1);
    if (a_up && !(a_left && (bits[t - 1] & SB_CCL_UP) && (bits[t - CCL_TILE] & SB_CCL_LEFT)))
        union_halving(link, t, t - CCL_TILE);
    if ((j[1] & SB_CCL_UP) && !(a_up && rep[1] == 0 && (bits[t - CCL_TILE + 1] & SB_CCL_LEFT)))
        union_halving(link, t + 1, t - CCL_TILE + 1);
    __syncthreads();
    /* no link changes now: each representative finds its tile-local root */
    for (int k = 0; k < 4; k++)
        root[k] = rep[k] == block_at(k) ? find_halving(link, t + block_at(k))
                                        : root[rep[k] == 0 ? 0 : rep[k] == 1 ? 1 : 2];
}

/* Components over 2x2 blocks in the tiles, then cuda-tiles' seams, then
 * the roots (an ms_regions' components). */
sb_status ms_blocks_components(ms_device *d, const uint8_t *join, int32_t *comp, sb_error *err);

#endif
